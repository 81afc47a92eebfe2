// Applies system transactions (chain/systemTx.ts) to a block's state, and the rules that say
// which a block may hold. Block building, import and sync all go through here, so a peer's
// block is accepted only when re-executing it by these rules gives the same result:
// - a settlement pays each payout from a payer that can cover it (no code, never sent a
//   transaction, balance ≥ amount); a node that serves the paying app chain also checks the
//   payouts against its records (blockBuilder.ts);
// - setters and impersonated transactions only on chains whose genesis has devControls.

import type { EVM } from '@ethereumjs/evm';
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import { Account, Address, KECCAK256_NULL } from '@ethereumjs/util';
import type { Receipt, SignedTx } from '../chain/types.js';
import { SYSTEM_SENDER, decodeSystemPayload, type DevSetter, type Payout } from '../chain/systemTx.js';
import { bigintToFixed, equalBytes } from '../encoding/bytes.js';
import { applyTransaction, type ApplyResult, type BlockEnv } from './executor.js';

/** Chain rules fixed at genesis (`config.devControls` of the genesis). */
export interface ChainRules {
  devControls: boolean;
}

export type SystemApplyResult = ApplyResult | { ok: false; reason: string };

const systemAddress = new Address(SYSTEM_SENDER);

async function accountOf(sm: MerkleStateManager, address: Uint8Array): Promise<Account> {
  return (await sm.getAccount(new Address(address))) ?? new Account();
}

/** The nonce settlements and setters take next (account 0x…64's). */
export async function systemNonce(sm: MerkleStateManager): Promise<bigint> {
  return (await accountOf(sm, SYSTEM_SENDER)).nonce;
}

/**
 * Whether `payout` may be paid now. Only an account that never sent a transaction and holds no
 * code can pay (an app chain address is such an account), so a settlement cannot take the funds
 * of a user or a contract.
 */
export async function canPay(sm: MerkleStateManager, payout: Payout): Promise<boolean> {
  const payer = await sm.getAccount(new Address(payout.from));
  return payer !== undefined && payer.nonce === 0n && equalBytes(payer.codeHash, KECCAK256_NULL) && payer.balance >= payout.amount;
}

async function pay(sm: MerkleStateManager, p: Payout): Promise<void> {
  const payer = await accountOf(sm, p.from);
  payer.balance -= p.amount;
  await sm.putAccount(new Address(p.from), payer);
  const payee = await accountOf(sm, p.to);
  payee.balance += p.amount;
  await sm.putAccount(new Address(p.to), payee);
}

/** Pays, in order, each of `proposals` that can be paid at that point; returns those paid. */
export async function payWhatCovers<P extends Payout>(sm: MerkleStateManager, proposals: readonly P[]): Promise<P[]> {
  const paid: P[] = [];
  for (const p of proposals) {
    if (!(await canPay(sm, p))) continue;
    await pay(sm, p);
    paid.push(p);
  }
  return paid;
}

/** What payWhatCovers would pay, leaving the state as it was. */
export async function payableNow<P extends Payout>(sm: MerkleStateManager, proposals: readonly P[]): Promise<P[]> {
  await sm.checkpoint();
  try {
    return await payWhatCovers(sm, proposals);
  } finally {
    await sm.revert();
  }
}

async function applySetter(sm: MerkleStateManager, s: DevSetter): Promise<void> {
  const address = new Address(s.address);
  const account = await accountOf(sm, s.address);
  switch (s.op) {
    case 'setBalance':
      account.balance = s.value;
      return sm.putAccount(address, account);
    case 'setNonce':
      account.nonce = s.nonce;
      return sm.putAccount(address, account);
    case 'setCode':
      await sm.putAccount(address, account);
      return sm.putCode(address, s.code);
    case 'setStorageAt':
      await sm.putAccount(address, account);
      return sm.putStorage(address, bigintToFixed(s.slot, 32), bigintToFixed(s.value, 32));
    case 'setCoinbase':
      return; // a record in the chain: the coinbase is the miner's choice, not state
  }
}

const systemReceipt = (gasUsedBefore: bigint): Receipt => ({
  status: 1, cumulativeGasUsed: gasUsedBefore, gasUsed: 0n, logs: [], logsBloom: new Uint8Array(256), contractAddress: null,
});

/**
 * Applies one system transaction (its form already checked by decodeSystemPayload or built by
 * chain/systemTx.ts). A refusal leaves the state unchanged and names the rule.
 */
export async function applySystemTx(
  evm: EVM,
  sm: MerkleStateManager,
  tx: SignedTx,
  env: BlockEnv,
  gasUsedBefore: bigint,
  rules: ChainRules,
): Promise<SystemApplyResult> {
  let payload;
  try {
    payload = decodeSystemPayload(tx);
  } catch (err) {
    return { ok: false, reason: `system transaction: ${(err as Error).message}` };
  }
  if (payload.kind !== 'settlement' && !rules.devControls) {
    return { ok: false, reason: 'dev-control system transactions need a chain whose genesis has config.devControls' };
  }
  if (payload.kind === 'impersonated') return applyTransaction(evm, sm, tx, env, gasUsedBefore);

  const nonce = await systemNonce(sm);
  if (tx.nonce !== nonce) return { ok: false, reason: `system transaction nonce ${tx.nonce}, account 0x…64 is at ${nonce}` };
  if (payload.kind === 'settlement') {
    // Each payout is checked on the state the earlier ones leave.
    await sm.checkpoint();
    for (const [k, p] of payload.payouts.entries()) {
      if (!(await canPay(sm, p))) {
        await sm.revert();
        return { ok: false, reason: `settlement payout ${k} cannot be paid (the payer lacks the balance, or is not an app chain address)` };
      }
      await pay(sm, p);
    }
    await sm.commit();
  } else {
    await applySetter(sm, payload.setter);
  }
  const system = await accountOf(sm, SYSTEM_SENDER);
  system.nonce += 1n;
  await sm.putAccount(systemAddress, system);
  return { ok: true, receipt: systemReceipt(gasUsedBefore), gasUsed: 0n };
}
