// Builds one app-chain block: deposit credits (flush blocks), then the transactions, each run by
// the EVM without gas charges (execution limit 4,000,000). Interprets what the DappBase sees:
// the first successful deploy becomes the DappBase (and receives the token supply), a
// successful registerDapp call adds a Dapp, a redeemFromMicroChain call starts a withdrawal.

import type { EVM } from '@ethereumjs/evm';
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import { Account, Address } from '@ethereumjs/util';
import type { Header, Receipt, SignedTx } from '../chain/types.js';
import { EMPTY_UNCLES_HASH, assembleHeader, headerHash, logsBloom } from '../chain/block.js';
import { equalBytes } from '../encoding/bytes.js';
import { evmBlock } from '../execution/executor.js';
import type { WorldState } from '../state/worldState.js';
import { decodeAbi, parseAbiType } from './abi.js';
import type { AppBlock, AppReceipt, DappEntry } from './store.js';
import { appTxTarget } from './appTx.js';

/** Gas an app-chain transaction may use (the real node's DirectCallGasLimit). */
export const DIRECT_CALL_GAS_LIMIT = 4_000_000n;
/** registerDapp(address,address,string) */
export const REGISTER_DAPP = Uint8Array.of(0xb5, 0x56, 0x0a, 0x14);
/** redeemFromMicroChain() */
export const REDEEM_FROM_MICROCHAIN = Uint8Array.of(0x89, 0x73, 0x9c, 0x5b);

const REGISTER_TYPES = ['address', 'address', 'string'].map(parseAbiType);

export interface AppBuildInput {
  parent: AppBlock;
  timestamp: bigint;
  miner: Uint8Array;
  transactions: SignedTx[];
  /** undefined until the DappBase is deployed */
  dappBase: Uint8Array | undefined;
  tokenSupply: bigint;
  /** flush credits from the DappBase's balance, in order; `ref` names the record */
  credits: { to: Uint8Array; amount: bigint; ref: number }[];
}

export interface BuiltAppBlock {
  block: AppBlock;
  /** set when this block deployed the DappBase */
  dappBase?: Uint8Array;
  registered: DappEntry[];
  withdrawals: { user: Uint8Array; amount: bigint }[];
  /** refs of the credits that were paid (the DappBase could cover them) */
  paid: number[];
  /** transactions left out because their nonce no longer fits (dropped) */
  stale: SignedTx[];
}

export async function buildAppBlock(
  world: WorldState,
  makeEvm: (sm: MerkleStateManager) => Promise<EVM>,
  input: AppBuildInput,
): Promise<BuiltAppBlock> {
  const sm = await world.stateManagerAt(input.parent.header.stateRoot);
  const evm = await makeEvm(sm);
  const number = input.parent.header.number + 1n;
  const env = { number, timestamp: input.timestamp, miner: input.miner, difficulty: 0n, gasLimit: DIRECT_CALL_GAS_LIMIT };
  let dappBase = input.dappBase;
  const out: Omit<BuiltAppBlock, 'block'> = { registered: [], withdrawals: [], paid: [], stale: [] };

  for (const credit of input.credits) {
    if (dappBase && (await move(sm, dappBase, credit.to, credit.amount))) out.paid.push(credit.ref);
  }

  const transactions: SignedTx[] = [];
  const receipts: AppReceipt[] = [];
  for (const tx of input.transactions) {
    const sender = new Address(tx.from);
    const account = (await sm.getAccount(sender)) ?? new Account();
    if (tx.nonce !== account.nonce) {
      out.stale.push(tx);
      continue;
    }
    const target = appTxTarget(tx);
    const deploysBase = target.kind === 'deploy' && dappBase === undefined;
    await sm.checkpoint();
    // The DappBase deploy mints what it carries, as the real chain mints the supply with it.
    if (deploysBase && tx.value > 0n) {
      account.balance += tx.value;
      await sm.putAccount(sender, account);
    }
    const result = await evm.runCall({
      caller: sender,
      origin: sender,
      to: target.to && new Address(target.to),
      value: tx.value,
      data: target.data,
      gasLimit: DIRECT_CALL_GAS_LIMIT,
      gasPrice: 0n,
      block: evmBlock(env),
    });
    const exec = result.execResult;
    const ok = !exec.exceptionError;
    if (deploysBase && !ok && tx.value > 0n) {
      // A failed deploy gave the value back to the sender: take back what was minted.
      const after = (await sm.getAccount(sender)) ?? new Account();
      after.balance -= tx.value;
      await sm.putAccount(sender, after);
    }
    await evm.journal.cleanup();
    await sm.commit();
    const logs = ok ? (exec.logs ?? []).map(([address, topics, data]) => ({ address, topics, data })) : [];
    const created = target.kind === 'deploy' && ok ? (result.createdAddress?.bytes ?? null) : null;
    receipts.push({
      status: ok ? 1 : 0,
      contractAddress: created,
      logs,
      logsBloom: logsBloom(logs),
      returnValue: target.kind === 'call' ? exec.returnValue : new Uint8Array(),
    });
    transactions.push(tx);

    if (deploysBase && created) {
      dappBase = created;
      out.dappBase = created;
      if (input.tokenSupply > 0n) await credit(sm, created, input.tokenSupply);
    } else if (ok && target.kind === 'call' && dappBase && equalBytes(target.to!, dappBase)) {
      const selector = target.data.subarray(0, 4);
      if (equalBytes(selector, REGISTER_DAPP)) {
        const entry = decodeRegistration(target.data.subarray(4));
        if (entry) out.registered.push(entry);
      } else if (equalBytes(selector, REDEEM_FROM_MICROCHAIN) && tx.value > 0n) {
        out.withdrawals.push({ user: tx.from, amount: tx.value });
      }
    }
  }

  const stateRoot = await sm.getStateRoot();
  // App chains have no gas, difficulty or extra data: those header fields are zero.
  const header = assembleHeader(
    {
      parentHash: input.parent.hash, miner: input.miner, stateRoot, number, timestamp: input.timestamp,
      difficulty: 0n, gasLimit: 0n, gasUsed: 0n, extraData: new Uint8Array(),
    },
    transactions,
    receipts.map(consensusReceipt),
  );
  return { ...out, block: { header, hash: headerHash(header), transactions, receipts } };
}

/** Block 0 of a new app chain: empty state, no transactions. */
export function appGenesis(miner: Uint8Array, timestamp: bigint, emptyRoot: Uint8Array): AppBlock {
  const header: Header = {
    parentHash: new Uint8Array(32),
    sha3Uncles: EMPTY_UNCLES_HASH,
    miner,
    stateRoot: emptyRoot,
    transactionsRoot: emptyRoot,
    receiptsRoot: emptyRoot,
    logsBloom: new Uint8Array(256),
    difficulty: 0n,
    number: 0n,
    gasLimit: 0n,
    gasUsed: 0n,
    timestamp,
    extraData: new Uint8Array(),
    mixHash: new Uint8Array(32),
    nonce: new Uint8Array(8),
  };
  return { header, hash: headerHash(header), transactions: [], receipts: [] };
}

/** An app receipt as the receipts root commits to it (no gas on app chains). */
const consensusReceipt = (r: AppReceipt): Receipt =>
  ({ status: r.status, cumulativeGasUsed: 0n, gasUsed: 0n, logsBloom: r.logsBloom, logs: r.logs, contractAddress: r.contractAddress });

function decodeRegistration(args: Uint8Array): DappEntry | undefined {
  try {
    const [address, owner, abi] = decodeAbi(REGISTER_TYPES, args) as [Uint8Array, Uint8Array, string];
    return { address, owner, abi };
  } catch {
    return undefined; // the contract accepted it; a malformed ABI argument just is not recorded
  }
}

async function credit(sm: MerkleStateManager, to: Uint8Array, amount: bigint): Promise<void> {
  const address = new Address(to);
  const account = (await sm.getAccount(address)) ?? new Account();
  account.balance += amount;
  await sm.putAccount(address, account);
}

async function move(sm: MerkleStateManager, from: Uint8Array, to: Uint8Array, amount: bigint): Promise<boolean> {
  const address = new Address(from);
  const payer = (await sm.getAccount(address)) ?? new Account();
  if (payer.balance < amount) return false;
  payer.balance -= amount;
  await sm.putAccount(address, payer);
  await credit(sm, to, amount);
  return true;
}
