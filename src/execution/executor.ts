// Applies one transaction to a state manager inside a block: MOAC intrinsic gas, nonce and
// balance checks, the EVM call or creation, refunds, fees to the miner, the receipt.

import type { EVM } from '@ethereumjs/evm';
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import { Account, Address, KECCAK256_NULL } from '@ethereumjs/util';
import { equalBytes } from '../encoding/bytes.js';
import type { Log, Receipt, SignedTx } from '../chain/types.js';
import { logsBloom } from '../chain/block.js';
import { intrinsicGas } from './gas.js';

export interface BlockEnv {
  number: bigint;
  timestamp: bigint;
  miner: Uint8Array;
  difficulty: bigint;
  gasLimit: bigint;
}

/** Why a transaction cannot go into a block (the pool uses the same words). */
export type TxRejection =
  | 'nonce too low'
  | 'nonce too high'
  | 'insufficient funds for gas * price + value'
  | 'intrinsic gas too low'
  | 'exceeds block gas limit';

export type ApplyResult =
  | { ok: true; receipt: Receipt; gasUsed: bigint; returnValue: Uint8Array; error?: string }
  | { ok: false; reason: TxRejection };

export function evmBlock(env: BlockEnv) {
  return {
    header: {
      number: env.number,
      coinbase: new Address(env.miner),
      timestamp: env.timestamp,
      difficulty: env.difficulty,
      prevRandao: new Uint8Array(32),
      gasLimit: env.gasLimit,
      getBlobGasPrice: () => undefined,
    },
  };
}

export async function applyTransaction(
  evm: EVM,
  sm: MerkleStateManager,
  tx: SignedTx,
  env: BlockEnv,
  gasUsedBefore: bigint,
  /** run even a plain transfer through the EVM (tracing wants its message events); same state */
  viaEvm = false,
): Promise<ApplyResult> {
  if (gasUsedBefore + tx.gas > env.gasLimit) return { ok: false, reason: 'exceeds block gas limit' };
  const isCreation = tx.to === null;
  const intrinsic = intrinsicGas(tx.data, isCreation);
  if (tx.gas < intrinsic) return { ok: false, reason: 'intrinsic gas too low' };

  const sender = new Address(tx.from);
  const account = (await sm.getAccount(sender)) ?? new Account();
  if (tx.nonce < account.nonce) return { ok: false, reason: 'nonce too low' };
  if (tx.nonce > account.nonce) return { ok: false, reason: 'nonce too high' };
  const upfront = tx.gas * tx.gasPrice;
  if (account.balance < upfront + tx.value) return { ok: false, reason: 'insufficient funds for gas * price + value' };

  if (!viaEvm && !isCreation && (await isPlainAccount(sm, tx.to!))) {
    return applyTransfer(sm, tx, env, gasUsedBefore, intrinsic, evm.common.gteHardfork('spuriousDragon'));
  }

  await sm.checkpoint();
  account.balance -= upfront;
  await sm.putAccount(sender, account);

  // The EVM increments the sender nonce itself for a depth-0 message.
  const result = await evm.runCall({
    caller: sender,
    origin: sender,
    to: isCreation ? undefined : new Address(tx.to!),
    value: tx.value,
    data: tx.data,
    gasLimit: tx.gas - intrinsic,
    gasPrice: tx.gasPrice,
    block: evmBlock(env),
  });
  const exec = result.execResult;
  let gasUsed = intrinsic + exec.executionGasUsed;
  const refund = exec.exceptionError ? 0n : (exec.gasRefund ?? 0n);
  gasUsed -= refund < gasUsed / 2n ? refund : gasUsed / 2n;

  const after = (await sm.getAccount(sender)) ?? new Account();
  after.balance += (tx.gas - gasUsed) * tx.gasPrice;
  await sm.putAccount(sender, after);
  const miner = new Address(env.miner);
  const minerAccount = (await sm.getAccount(miner)) ?? new Account();
  minerAccount.balance += gasUsed * tx.gasPrice;
  await sm.putAccount(miner, minerAccount);
  await evm.journal.cleanup();
  await sm.commit();

  const logs: Log[] = exec.exceptionError
    ? []
    : (exec.logs ?? []).map(([address, topics, data]) => ({ address, topics, data }));
  const receipt: Receipt = {
    status: exec.exceptionError ? 0 : 1,
    cumulativeGasUsed: gasUsedBefore + gasUsed,
    gasUsed,
    logs,
    logsBloom: logsBloom(logs),
    contractAddress: isCreation && !exec.exceptionError && result.createdAddress ? result.createdAddress.bytes : null,
  };
  return { ok: true, receipt, gasUsed, returnValue: exec.returnValue, error: exec.exceptionError?.error };
}

/** Precompiles (Ethereum's 1–8, MOAC's 9–14 and 101) and the other low addresses go through the EVM. */
function isLowAddress(address: Uint8Array): boolean {
  for (let i = 0; i < 18; i++) if (address[i] !== 0) return false;
  return true;
}

/** An address without code, where a call runs nothing: the EVM is not needed. */
async function isPlainAccount(sm: MerkleStateManager, to: Uint8Array): Promise<boolean> {
  if (isLowAddress(to)) return false;
  const account = await sm.getAccount(new Address(to));
  return account === undefined || equalBytes(account.codeHash, KECCAK256_NULL);
}

/**
 * A call to an account without code, without the EVM: the sender pays the intrinsic gas and the
 * value, the recipient receives the value, the miner the fee. The same state as the EVM gives
 * (a zero-value transfer to a missing account creates nothing after spuriousDragon, EIP-161).
 */
async function applyTransfer(
  sm: MerkleStateManager,
  tx: SignedTx,
  env: BlockEnv,
  gasUsedBefore: bigint,
  gasUsed: bigint,
  eip161: boolean,
): Promise<ApplyResult> {
  const sender = new Address(tx.from);
  const from = (await sm.getAccount(sender))!;
  from.nonce += 1n;
  from.balance -= gasUsed * tx.gasPrice + tx.value;
  await sm.putAccount(sender, from);
  const recipient = new Address(tx.to!);
  const to = await sm.getAccount(recipient);
  if (to !== undefined || tx.value > 0n || !eip161) {
    const account = to ?? new Account();
    account.balance += tx.value;
    await sm.putAccount(recipient, account);
  }
  await creditReward(sm, env.miner, gasUsed * tx.gasPrice);
  const receipt: Receipt = {
    status: 1,
    cumulativeGasUsed: gasUsedBefore + gasUsed,
    gasUsed,
    logs: [],
    logsBloom: new Uint8Array(256),
    contractAddress: null,
  };
  return { ok: true, receipt, gasUsed, returnValue: new Uint8Array() };
}

export async function creditReward(sm: MerkleStateManager, miner: Uint8Array, amount: bigint): Promise<void> {
  const address = new Address(miner);
  const account = (await sm.getAccount(address)) ?? new Account();
  account.balance += amount;
  await sm.putAccount(address, account);
}
