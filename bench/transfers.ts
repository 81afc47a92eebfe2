// End-to-end signed transfers: pre-signed raw transactions sent over keep-alive connections
// (one connection per sender, so each sender's nonces arrive in order), timed from the first
// send until the chain has mined them all.

import { privateKeyToAddress } from '../src/accounts/keys.js';
import secp256k1 from 'secp256k1';
import { encodeClassicSigningPayload, encodeClassicTransaction, signTransaction } from '../src/chain/transaction.js';
import type { TxFields } from '../src/chain/types.js';
import { bytesToBigint, keccak256 } from '../src/encoding/bytes.js';
import { bytesToHex } from '../src/encoding/hex.js';
import { runLoad, type LoadResult } from './load.js';
import type { BenchNode } from './nodeProcess.js';

export const CHAIN_ID = 100n;
export const GAS_PRICE = 20_000_000_000n; // 20 Gsha
const POLL_MS = 5;
const MINE_TIMEOUT_MS = 60_000;

export interface TransferResult {
  load: LoadResult;
  txs: number;
  /** first send → all mined */
  seconds: number;
  perSecond: number;
  blocks: number;
}

export interface TransferOptions {
  recipient: Uint8Array;
  data?: Uint8Array;
  gas?: bigint;
  /** sign classic (Ethereum legacy, EIP-155) transactions instead of MOAC ones */
  classic?: boolean;
}

/** The 9-item classic form, signed as Ethereum libraries sign it. */
function classicRaw(tx: TxFields, key: Uint8Array): Uint8Array {
  const { signature, recid } = secp256k1.ecdsaSign(keccak256(encodeClassicSigningPayload(tx, CHAIN_ID)), key);
  const sig = { v: BigInt(recid) + 35n + 2n * CHAIN_ID, r: bytesToBigint(signature.subarray(0, 32)), s: bytesToBigint(signature.subarray(32)) };
  return encodeClassicTransaction({ ...tx, ...sig });
}

/** Signs `count` transactions from `key` starting at `nonce`; returns their JSON-RPC bodies. */
export function signedBodies(key: Uint8Array, nonce: bigint, count: number, o: TransferOptions): string[] {
  const bodies: string[] = [];
  for (let k = 0; k < count; k++) {
    const fields: TxFields = {
      nonce: nonce + BigInt(k),
      syscnt: 0n,
      gasPrice: GAS_PRICE,
      gas: o.gas ?? 21_000n,
      to: o.recipient,
      value: 1n,
      data: o.data ?? new Uint8Array(0),
      shardingFlag: 0n,
      via: null,
    };
    const raw = o.classic ? classicRaw(fields, key) : signTransaction(fields, key, CHAIN_ID).raw;
    bodies.push(`{"jsonrpc":"2.0","id":${k + 1},"method":"mc_sendRawTransaction","params":["${bytesToHex(raw)}"]}`);
  }
  return bodies;
}

/** Nonces that mined transactions of `addresses` have reached ('latest'). */
async function minedNonces(node: BenchNode, addresses: string[], tag = 'latest'): Promise<bigint[]> {
  const results = await node.batch(addresses.map((a) => ({ method: 'mc_getTransactionCount', params: [a, tag] })));
  return results.map((r) => BigInt(r));
}

/** Polls until every sender's mined nonce reaches its target; throws on timeout. */
export async function waitMined(node: BenchNode, addresses: string[], targets: bigint[]): Promise<void> {
  const deadline = performance.now() + MINE_TIMEOUT_MS;
  for (;;) {
    const nonces = await minedNonces(node, addresses);
    if (nonces.every((n, i) => n >= targets[i])) return;
    if (performance.now() > deadline) {
      const pool = await node.rpc('txpool_status').catch((err: Error) => err.message);
      throw new Error(`transactions not mined within ${MINE_TIMEOUT_MS / 1000} s: mined nonces ${nonces.join(',')}, ` +
        `want ${targets.join(',')}; txpool_status ${JSON.stringify(pool)}`);
    }
    await Promise.race([node.died, new Promise((r) => setTimeout(r, POLL_MS))]);
  }
}

/**
 * `perSender` transfers from each key, all signed before the clock starts; one connection per
 * sender keeps `keys.length` requests in flight (1 key: strictly one after another).
 */
export async function benchTransfers(node: BenchNode, keys: Uint8Array[], perSender: number, o: TransferOptions): Promise<TransferResult> {
  const addresses = keys.map((k) => bytesToHex(privateKeyToAddress(k)));
  const start = await minedNonces(node, addresses, 'pending');
  const bodies = keys.map((key, i) => signedBodies(key, start[i], perSender, o));
  const targets = start.map((n) => n + BigInt(perSender));
  const headBefore = Number(await node.rpc('mc_blockNumber'));

  const load = await Promise.race([
    node.died,
    runLoad({ url: node.url, connections: keys.length, requestsPerConnection: perSender, body: (conn, k) => bodies[conn][k] }),
  ]);
  await waitMined(node, addresses, targets);
  const seconds = (performance.now() - load.startedAt) / 1000;
  const headAfter = Number(await node.rpc('mc_blockNumber'));
  const txs = perSender * keys.length;
  return { load, txs, seconds, perSecond: txs / seconds, blocks: headAfter - headBefore };
}
