// The differential harness for the fast call engine (src/execution/fastCall): one state, and for
// each hardfork two CallExecutors over it, one on our interpreter and one on the library EVM only.
// Every message runs on both; return data, gas used and error text (and mc_estimateGas results)
// must be the same.

import { Mainnet, createCustomCommon } from '@ethereumjs/common';
import { createEVM } from '@ethereumjs/evm';
import { MerkleStateManager } from '@ethereumjs/statemanager';
import { Account, Address, hexToBytes } from '@ethereumjs/util';
import type { Test } from 'tap';
import { CallExecutor, type CallOptions, type CallRequest } from '../../../../src/execution/call.js';
import { createChainEvm } from '../../../../src/execution/evm.js';
import { keccak256 } from '../../../../src/encoding/bytes.js';
import { bytesToHex } from '../../../../src/encoding/hex.js';
import type { Header } from '../../../../src/chain/types.js';
import type { WorldState } from '../../../../src/state/worldState.js';
import { contract } from '../../../helpers/abi.js';

export { HARDFORKS as FORKS, type Hardfork as Fork } from '../../../../src/chain/hardforks.js';

export const commonFor = (fork: string) =>
  createCustomCommon({ chainId: 100, name: 'mcnode' }, Mainnet, { hardfork: fork, customCrypto: { keccak256 } });

export const hexAddress = (n: bigint): string => '0x' + n.toString(16).padStart(40, '0');
export const addr = (n: bigint): Uint8Array => hexToBytes(hexAddress(n) as `0x${string}`);
export const bytes = (hex: string): Uint8Array => hexToBytes((hex.startsWith('0x') ? hex : '0x' + hex) as `0x${string}`);

export const CALLER = 0x1111111111111111111111111111111111111111n;
export const POOR = 0x2222222222222222222222222222222222222222n;
export const EMPTY_ACCOUNT = 0x3333333333333333333333333333333333333333n;
export const EOA = 0x4444444444444444444444444444444444444444n;
export const MISSING = 0x5555555555555555555555555555555555555555n;
export const COINBASE = 0x6666666666666666666666666666666666666666n;
/** Where the setup deploys the Solidity test contracts. */
export const DEPLOYER = 0x7777777777777777777777777777777777777777n;

export const HEADER_NUMBER = 300n;

export interface Deployed { store: bigint; counter: bigint; nest: bigint; dappBase: bigint }

/** A state with the accounts above, the Solidity contracts (constructors run), and `code` at its addresses. */
export async function buildState(code: Map<bigint, string>, storage: Map<bigint, Map<bigint, bigint>> = new Map()) {
  const sm = new MerkleStateManager({ common: commonFor('petersburg') });
  const put = (a: bigint, account: Account) => sm.putAccount(new Address(addr(a)), account);
  await put(CALLER, new Account(3n, 10n ** 20n));
  await put(POOR, new Account(0n, 0n));
  await put(EMPTY_ACCOUNT, new Account());
  await put(EOA, new Account(1n, 12345n));
  await put(DEPLOYER, new Account(0n, 10n ** 20n));
  for (const [a, hex] of code) {
    await put(a, new Account(1n, 1000n));
    await sm.putCode(new Address(addr(a)), bytes(hex));
  }
  for (const [a, slots] of storage) {
    for (const [slot, value] of slots) {
      const key = new Uint8Array(32);
      key.set(bytes(slot.toString(16).padStart(64, '0')));
      await sm.putStorage(new Address(addr(a)), key, bytes(value.toString(16).padStart(64, '0')));
    }
  }
  const deployed = await deploySolidity(sm);
  await sm.flush();
  return { sm, deployed, root: await sm.getStateRoot() };
}

/** Runs the contracts' constructors (petersburg) and a few transactions that fill their storage. */
async function deploySolidity(sm: MerkleStateManager): Promise<Deployed> {
  const evm = await createEVM({ common: commonFor('petersburg'), stateManager: sm });
  const caller = new Address(addr(DEPLOYER));
  const deploy = async (name: string, args = '') => {
    const r = await evm.runCall({ caller, data: bytes(contract(name).bytecode + args), gasLimit: 5_000_000n });
    if (r.execResult.exceptionError) throw new Error(`deploy ${name}: ${r.execResult.exceptionError.error}`);
    return BigInt(r.createdAddress!.toString());
  };
  const send = async (to: bigint, data: string) => {
    const r = await evm.runCall({ caller, to: new Address(addr(to)), data: bytes(data), gasLimit: 5_000_000n, value: 0n });
    if (r.execResult.exceptionError) throw new Error(`send: ${r.execResult.exceptionError.error}`);
  };
  const word = (n: bigint) => n.toString(16).padStart(64, '0');
  const store = await deploy('Store', word(42n));
  const counter = await deploy('Counter');
  const nest = await deploy('Nest', word(store));
  const dappBase = await deploy('DappBase');
  const sel = (sig: string) => bytesToHex(keccak256(new TextEncoder().encode(sig)).subarray(0, 4)).slice(2);
  await send(counter, sel('increment(uint256)') + word(5n));
  await send(store, sel('set(uint256)') + word(7n));
  return { store, counter, nest, dappBase };
}

export interface Pair {
  fork: string;
  fast: CallExecutor;
  library: CallExecutor;
}

const blocks = {
  getBlockByNumber: async (n: bigint) => (n < HEADER_NUMBER ? { hash: keccak256(bytes(n.toString(16).padStart(64, '0'))) } : undefined),
};

/** A CallExecutor over `sm` under `fork`'s rules. */
export function executorFor(fork: string, sm: MerkleStateManager, options: CallOptions = {}): CallExecutor {
  const common = commonFor(fork);
  const world = { stateManagerAt: async () => sm } as unknown as WorldState;
  return new CallExecutor(world, (view) => createChainEvm(common, view, blocks), options);
}

export function pairFor(fork: string, sm: MerkleStateManager): Pair {
  return { fork, fast: executorFor(fork, sm), library: executorFor(fork, sm, { fastCall: false }) };
}

export function headerFor(root: Uint8Array, miner = COINBASE): Header {
  return {
    number: HEADER_NUMBER, timestamp: 1_700_000_000n, miner: addr(miner), difficulty: 131_072n, gasLimit: 8_000_000n,
    stateRoot: root,
  } as unknown as Header;
}

type Outcome = { ret: string; gas: string; error: string | undefined } | { threw: string };

async function outcome(run: () => Promise<{ returnValue: Uint8Array; gasUsed: bigint; error?: string }>): Promise<Outcome> {
  try {
    const o = await run();
    return { ret: bytesToHex(o.returnValue), gas: o.gasUsed.toString(), error: o.error };
  } catch (e) {
    return { threw: (e as Error).message };
  }
}

async function estimate(run: () => Promise<bigint>): Promise<string> {
  try {
    return (await run()).toString();
  } catch (e) {
    const err = e as Error & { data?: unknown };
    return `threw ${err.message} ${String(err.data ?? '')}`;
  }
}

/** Runs `req` on both executors and compares; true unless the fast executor fell back to the library. */
export async function compare(t: Test, pair: Pair, req: CallRequest, header: Header, label: string, withEstimate = false): Promise<boolean> {
  const before = pair.fast.stats.library;
  const state = { header };
  const [fast, library] = [await outcome(() => pair.fast.run(req, state)), await outcome(() => pair.library.run(req, state))];
  const ran = pair.fast.stats.library === before;
  if (JSON.stringify(fast) !== JSON.stringify(library)) t.same(fast, library, `${pair.fork} ${label}`);
  else t.pass(`${pair.fork} ${label}`);
  if (withEstimate) {
    const cap = 2_000_000n;
    const [a, b] = [await estimate(() => pair.fast.estimateGas(req, state, cap)), await estimate(() => pair.library.estimateGas(req, state, cap))];
    if (a !== b) t.equal(a, b, `${pair.fork} ${label} estimateGas`);
  }
  return ran;
}
