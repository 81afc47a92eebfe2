// The developer controls Anvil and Hardhat added after the first set (design.md §17; served under
// the evm_/anvil_/hardhat_ names by devControls.ts): gas limit and gas price, balances and
// tokens, the pool, time, detailed mining, rollback and reset, impersonation of every address,
// node facts and logging. State changes are setter blocks as in §15.

import type { DevMining } from '../../devControls/devMining.js';
import type { DevSnapshots } from '../../devControls/devSnapshots.js';
import type { DevState } from '../../devControls/devState.js';
import { findTokenSlot } from '../../devControls/erc20Slots.js';
import type { TraceRunner } from '../../tracing/traceRunner.js';
import { bytesToBigint, concatBytes } from '../../encoding/bytes.js';
import { bytesToHex, encodeQuantity, hexToBytes } from '../../encoding/hex.js';
import { unsupported } from '../../errors.js';
import { MIN_GAS_LIMIT } from '../../execution/gas.js';
import { formatBlock } from '../format.js';
import { ParamError, address, boolean, integer, method, objectParam, optional, quantity, uint64, type Codec } from '../params.js';
import type { McBackend } from '../backend.js';
import type { RpcMethod } from '../types.js';

export interface MoreDevControls {
  mining: DevMining;
  snapshots: DevSnapshots;
  state: DevState;
  backend: McBackend;
  traces: TraceRunner;
  /** the pool's minimum gas price (anvil_setMinGasPrice; miner_setGasPrice sets the same) */
  setMinGasPrice: (price: bigint) => void;
  /** the gas-limit target of the config, which anvil_reset returns to */
  configuredGasLimit: bigint;
  /** the node's own name and version (anvil_metadata keeps it whatever --compat says) */
  clientVersion: string;
  /** a random id of this process, as Anvil's and Hardhat's metadata carry */
  instanceId: Uint8Array;
  /** the chain's EVM rules (config chain.hardfork) */
  hardfork: string;
  /** the node's info-level logging (anvil_setLoggingEnabled) */
  logging: { enabled: boolean };
}

const padAddress = (a: Uint8Array) => concatBytes(new Uint8Array(12), a);
const BALANCE_OF = hexToBytes('0x70a08231');
const ALLOWANCE = hexToBytes('0xdd62ed3e');

/** A timestamp or count: a JSON integer or a QUANTITY. */
const int: Codec<bigint> = (v, i) => integer(v, i);

/** evm_mine_detailed's options: a timestamp, or `{timestamp?, blocks?}` (Anvil's MineOptions). */
const mineOptions: Codec<{ timestamp?: bigint; blocks?: bigint }> = (v, i) => {
  if (typeof v !== 'object') return { timestamp: int(v, i) };
  const o = objectParam(v, i);
  return {
    timestamp: o.timestamp == null ? undefined : int(o.timestamp, i),
    blocks: o.blocks == null ? undefined : int(o.blocks, i),
  };
};

/**
 * anvil_reset's options on a node that is not a fork: only the no-fork form (a fork serves its own, rpc/modules/forkReset.ts).
 * viem's reset() without arguments sends `{forking: {blockNumber: null}}`: no URL, a plain reset.
 */
const resetOptions: Codec<true> = (v, i) => {
  const forking = objectParam(v, i).forking;
  const url = forking !== null && typeof forking === 'object' ? (forking as Record<string, unknown>).jsonRpcUrl : undefined;
  if (url != null) throw unsupported('anvil_reset with forking options: this node is not a fork (start one with --fork.url)');
  return true;
};

const gasLimit: Codec<bigint> = (v, i) => {
  const limit = uint64(v, i);
  if (limit < MIN_GAS_LIMIT) throw new ParamError(i, `a block gas limit is at least ${MIN_GAS_LIMIT}`);
  return limit;
};

const capitalised = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);

export function moreDevControls(dev: MoreDevControls): Record<string, RpcMethod> {
  const { mining, snapshots, state, backend } = dev;
  const sealed = async (job: Promise<unknown>) => {
    await job;
    return null;
  };
  const token = async (tokenAddress: Uint8Array, data: Uint8Array, what: string, amount: bigint) => {
    const slot = await findTokenSlot(dev.traces, backend.head().header, { token: tokenAddress, data, what });
    await state.set({ op: 'setStorageAt', address: tokenAddress, slot: bytesToBigint(slot), value: amount });
    return null;
  };
  const detailed = async (timestamp: bigint | undefined, blocks: bigint | undefined) => {
    if (timestamp !== undefined) await mining.setNextBlockTimestamp(timestamp);
    const mined = await mining.mineMany(blocks ?? 1n, undefined);
    return Promise.all(mined.map(async (b) => formatBlock(b, (await backend.totalDifficulty(b.hash)) ?? 0n, true)));
  };

  return {
    setBlockGasLimit: method([gasLimit], async (limit) => {
      await state.set({ op: 'setBlockGasLimit', gasLimit: limit });
      return true;
    }),
    setMinGasPrice: method([quantity], (price) => {
      dev.setMinGasPrice(price);
      return true;
    }),
    addBalance: method([address, quantity], (a, amount) => sealed(state.addBalance(a, amount))),
    // Anvil's parameter order: (to, token, amount) and (owner, spender, token, amount).
    dealERC20: method([address, address, quantity], (to, t, amount) =>
      token(t, concatBytes(BALANCE_OF, padAddress(to)), `balanceOf(${bytesToHex(to)})`, amount)),
    // Anvil's other name for dealERC20.
    setERC20Balance: method([address, address, quantity], (to, t, amount) =>
      token(t, concatBytes(BALANCE_OF, padAddress(to)), `balanceOf(${bytesToHex(to)})`, amount)),
    setERC20Allowance: method([address, address, address, quantity], (owner, spender, t, amount) =>
      token(t, concatBytes(ALLOWANCE, padAddress(owner), padAddress(spender)), `allowance(${bytesToHex(owner)}, ${bytesToHex(spender)})`, amount)),
    dropAllTransactions: method([], () => sealed(state.dropPool())),
    removePoolTransactions: method([address], (sender) => sealed(state.dropPool(sender))),
    autoImpersonateAccount: method([boolean], (on) => {
      state.autoImpersonate = on;
      return null;
    }),
    setTime: method([int], async (t) => Number(await mining.setTime(t))),
    setBlockTimestampInterval: method([int], (seconds) => sealed(mining.setBlockTimestampInterval(seconds))),
    removeBlockTimestampInterval: method([], () => mining.setBlockTimestampInterval(undefined)),
    mine_detailed: method([optional(mineOptions)], (opts) => detailed(opts?.timestamp, opts?.blocks)),
    rollback: method([optional(int)], (depth) => sealed(snapshots.rollback(depth ?? 1n))),
    reset: method([optional(resetOptions)], async () => {
      await snapshots.reset();
      await state.clearGasLimit(dev.configuredGasLimit);
      return null;
    }),
    nodeInfo: method([], () => {
      const head = backend.head();
      return {
        currentBlockNumber: encodeQuantity(head.header.number),
        currentBlockTimestamp: Number(head.header.timestamp),
        currentBlockHash: bytesToHex(head.hash),
        hardFork: capitalised(dev.hardfork),
        transactionOrder: 'fees',
        environment: { baseFee: '0x0', chainId: Number(backend.chainId), gasLimit: encodeQuantity(head.header.gasLimit), gasPrice: encodeQuantity(backend.gasPrice()) },
        forkConfig: { forkUrl: null, forkBlockNumber: null, forkRetryBackoff: null },
      };
    }),
    metadata: method([], async () => {
      const head = backend.head();
      const snapshotList: Record<string, [number, string]> = {};
      for (const { id, head: hash } of await snapshots.list()) {
        const block = await backend.blockByHash(hash);
        if (block) snapshotList[encodeQuantity(id)] = [Number(block.header.number), bytesToHex(hash)];
      }
      return {
        clientVersion: dev.clientVersion,
        chainId: Number(backend.chainId),
        instanceId: bytesToHex(dev.instanceId),
        latestBlockNumber: Number(head.header.number),
        latestBlockHash: bytesToHex(head.hash),
        forkedNetwork: null,
        snapshots: snapshotList,
      };
    }),
    getGenesisTime: method([], async () => {
      const genesis = await backend.blockAt('earliest');
      return genesis?.kind === 'mined' ? Number(genesis.block.header.timestamp) : null;
    }),
    setLoggingEnabled: method([boolean], (on) => {
      dev.logging.enabled = on;
      return null;
    }),
  };
}
