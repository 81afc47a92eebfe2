// Applies system transactions (chain/systemTx.ts) to a block's state, and the rules that say
// which a block may hold. Block building, import and sync all go through here, so a peer's
// block is accepted only when re-executing it by these rules gives the same result:
// - a settlement pays each payout from a payer that can cover it: from its balance, and at
//   most what buyMintToken() deposits put into it and no payout took out yet (its escrow, kept
//   in the storage of account 0x…64), so no block can pay out anyone else's funds; a node that
//   serves the paying app chain also checks the payouts against its records (blockProcessor.ts);
// - setters and impersonated transactions only on chains whose genesis has devControls.

import type { EVM } from '@ethereumjs/evm';
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import { Account, Address } from '@ethereumjs/util';
import type { Receipt, SignedTx } from '../chain/types.js';
import { SYSTEM_SENDER, decodeSystemPayload, type DevSetter, type Payout } from '../chain/systemTx.js';
import { bigintToFixed, bytesToBigint, equalBytes, keccak256 } from '../encoding/bytes.js';
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

/** buyMintToken(): with value, a main-chain deposit into the app chain at the call's `to`. */
export const BUY_MINT_TOKEN = Uint8Array.of(0x6b, 0xbd, 0xed, 0x70);

/** Whether a transaction with this receipt deposited into an app chain (the address `tx.to`). */
export function isDeposit(tx: SignedTx, receipt: Receipt): boolean {
  if (tx.shardingFlag !== 0n || tx.to === null || tx.value === 0n || receipt.status !== 1) return false;
  return tx.data.length >= 4 && equalBytes(tx.data.subarray(0, 4), BUY_MINT_TOKEN);
}

const escrowSlot = (payer: Uint8Array): Uint8Array => keccak256(payer);

async function escrowOf(sm: MerkleStateManager, payer: Uint8Array): Promise<bigint> {
  if ((await sm.getAccount(systemAddress)) === undefined) return 0n;
  return bytesToBigint(await sm.getStorage(systemAddress, escrowSlot(payer)));
}

async function setEscrow(sm: MerkleStateManager, payer: Uint8Array, value: bigint): Promise<void> {
  const system = await accountOf(sm, SYSTEM_SENDER);
  // Nonce ≥ 1: an account with nonce 0, no balance and no code counts as empty, and a call
  // touching it would delete it (EIP-161), escrows and all.
  if (system.nonce === 0n) {
    system.nonce = 1n;
    await sm.putAccount(systemAddress, system);
  }
  await sm.putStorage(systemAddress, escrowSlot(payer), bigintToFixed(value, 32));
}

/** Adds a deposit's value to the escrow of the app chain it went to (every block builder and importer). */
export async function recordDeposit(sm: MerkleStateManager, tx: SignedTx, receipt: Receipt): Promise<void> {
  if (!isDeposit(tx, receipt)) return;
  await setEscrow(sm, tx.to!, (await escrowOf(sm, tx.to!)) + tx.value);
}

/** Whether `payout` may be paid now: its payer holds the amount, in balance and in escrow. */
export async function canPay(sm: MerkleStateManager, payout: Payout): Promise<boolean> {
  const payer = await sm.getAccount(new Address(payout.from));
  return payer !== undefined && payer.balance >= payout.amount && (await escrowOf(sm, payout.from)) >= payout.amount;
}

async function pay(sm: MerkleStateManager, p: Payout): Promise<void> {
  await setEscrow(sm, p.from, (await escrowOf(sm, p.from)) - p.amount);
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
  if (proposals.length === 0) return [];
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
        return { ok: false, reason: `settlement payout ${k} cannot be paid (the payer's balance or deposit escrow is below ${p.amount})` };
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
  return { ok: true, receipt: systemReceipt(gasUsedBefore), gasUsed: 0n, returnValue: new Uint8Array() };
}
