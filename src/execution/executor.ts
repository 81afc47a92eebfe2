// Applies one transaction to a state manager inside a block: intrinsic gas (MOAC's table unless
// told), nonce and balance checks, the EVM call or creation, refunds, fees to the miner,
// self-destructed and (from spuriousDragon) touched empty accounts removed, the receipt.

import type { EVM } from '@ethereumjs/evm';
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import { Account, Address, KECCAK256_NULL } from '@ethereumjs/util';
import { equalBytes } from '../encoding/bytes.js';
import { hexToBytes } from '../encoding/hex.js';
import type { Log, Receipt, SignedTx } from '../chain/types.js';
import { logsBloom } from '../chain/block.js';
import { MOAC_TX_GAS, intrinsicGas, type TxGasRules } from './gas.js';

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

/**
 * The library's EVMError text for a chainstart creation whose code deposit did not fit in its gas
 * (a string, not the library's constant: the EVM library loads with the first EVM, not at start-up;
 * test/unit/execution/chainEvmShape.test.ts checks it against the library).
 */
export const CODESTORE_OUT_OF_GAS = 'code store out of gas';

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
  /** the intrinsic gas table (Ethereum's for the conformance vectors) */
  gasRules: TxGasRules = MOAC_TX_GAS,
): Promise<ApplyResult> {
  if (gasUsedBefore + tx.gas > env.gasLimit) return { ok: false, reason: 'exceeds block gas limit' };
  const isCreation = tx.to === null;
  const intrinsic = intrinsicGas(tx.data, isCreation, gasRules);
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
  // Under chainstart a creation that cannot pay for its code still succeeds, without the code:
  // its state changes, logs and refund stay (the EVM keeps them too).
  const failed = exec.exceptionError !== undefined && exec.exceptionError.error !== CODESTORE_OUT_OF_GAS;
  let gasUsed = intrinsic + exec.executionGasUsed;
  const refund = failed ? 0n : (exec.gasRefund ?? 0n);
  gasUsed -= refund < gasUsed / 2n ? refund : gasUsed / 2n;

  const after = (await sm.getAccount(sender)) ?? new Account();
  after.balance += (tx.gas - gasUsed) * tx.gasPrice;
  await sm.putAccount(sender, after);
  const eip161 = evm.common.gteHardfork('spuriousDragon');
  await creditAccount(sm, env.miner, gasUsed * tx.gasPrice, eip161);
  // The EVM only marks self-destructed accounts; they go once the fee is paid (a miner that
  // destroyed itself loses the fee, as on Ethereum), before touched empty accounts are swept.
  for (const address of exec.selfdestruct?.keys() ?? []) await evm.journal.deleteAccount(new Address(hexToBytes(address)));
  await evm.journal.cleanup();
  await sm.commit();

  const logs: Log[] = failed
    ? []
    : (exec.logs ?? []).map(([address, topics, data]) => ({ address, topics, data }));
  const receipt: Receipt = {
    status: failed ? 0 : 1,
    cumulativeGasUsed: gasUsedBefore + gasUsed,
    gasUsed,
    logs,
    logsBloom: logsBloom(logs),
    contractAddress: isCreation && !failed && result.createdAddress ? result.createdAddress.bytes : null,
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
 * (from spuriousDragon a recipient or miner left empty is not kept: EIP-161).
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
  await creditAccount(sm, tx.to!, tx.value, eip161);
  await creditAccount(sm, env.miner, gasUsed * tx.gasPrice, eip161);
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

/**
 * Adds `amount` (possibly 0) to an account, which touches it: from spuriousDragon an account left
 * empty is not kept (EIP-161), whether it existed or not.
 */
export async function creditAccount(sm: MerkleStateManager, to: Uint8Array, amount: bigint, eip161: boolean): Promise<void> {
  const address = new Address(to);
  const before = await sm.getAccount(address);
  const account = before ?? new Account();
  account.balance += amount;
  if (!eip161 || !account.isEmpty()) await sm.putAccount(address, account);
  else if (before !== undefined) await sm.deleteAccount(address);
}

export async function creditReward(sm: MerkleStateManager, miner: Uint8Array, amount: bigint): Promise<void> {
  const address = new Address(miner);
  const account = (await sm.getAccount(address)) ?? new Account();
  account.balance += amount;
  await sm.putAccount(address, account);
}
