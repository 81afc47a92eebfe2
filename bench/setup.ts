// Chain state the read benchmarks need: the Store test contract deployed, and a latest block
// that holds several transactions.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { privateKeyToAddress } from '../src/accounts/keys.js';
import { signTransaction } from '../src/chain/transaction.js';
import { keccak256 } from '../src/encoding/bytes.js';
import { bytesToHex, hexToBytes } from '../src/encoding/hex.js';
import { ROOT, type BenchNode } from './nodeProcess.js';
import { CHAIN_ID, GAS_PRICE, signedBodies, waitMined } from './transfers.js';

export const word = (n: bigint | number): string => BigInt(n).toString(16).padStart(64, '0');

export const selector = (signature: string): string =>
  bytesToHex(keccak256(new TextEncoder().encode(signature)).subarray(0, 4));

async function sendBody(node: BenchNode, body: string): Promise<string> {
  const { method, params } = JSON.parse(body);
  return node.rpc(method, params);
}

/** Deploys Store(initial) from `key`; returns the contract address. */
export async function deployStore(node: BenchNode, key: Uint8Array): Promise<string> {
  const fixture = JSON.parse(readFileSync(path.join(ROOT, 'test/fixtures/contracts/contracts.json'), 'utf8'));
  const bytecode: string = fixture.contracts.Store.bytecode.replace(/^0x/, '');
  const from = bytesToHex(privateKeyToAddress(key));
  const nonce = BigInt(await node.rpc('mc_getTransactionCount', [from, 'pending']));
  const tx = signTransaction(
    {
      nonce,
      syscnt: 0n,
      gasPrice: GAS_PRICE,
      gas: 1_000_000n,
      to: null,
      value: 0n,
      data: hexToBytes('0x' + bytecode + word(7)),
      shardingFlag: 0n,
      via: null,
    },
    key,
    CHAIN_ID,
  );
  const hash = await node.rpc('mc_sendRawTransaction', [bytesToHex(tx.raw)]);
  await waitMined(node, [from], [nonce + 1n]);
  const receipt = await node.rpc('mc_getTransactionReceipt', [hash]);
  if (!receipt?.contractAddress || receipt.status !== '0x1') {
    throw new Error(`Store deployment failed: ${JSON.stringify(receipt)}`);
  }
  return receipt.contractAddress;
}

/**
 * Makes the latest block hold `count` transfers from `key`: nonces n+1… go first (queued behind
 * the gap), then n, which makes all of them executable at once for a single instant block.
 * Returns the number of transactions in the resulting latest block.
 */
export async function fillLatestBlock(node: BenchNode, key: Uint8Array, count: number): Promise<number> {
  const from = bytesToHex(privateKeyToAddress(key));
  const nonce = BigInt(await node.rpc('mc_getTransactionCount', [from, 'pending']));
  const bodies = signedBodies(key, nonce, count, { recipient: privateKeyToAddress(key) });
  for (const body of bodies.slice(1)) await sendBody(node, body);
  await sendBody(node, bodies[0]);
  await waitMined(node, [from], [nonce + BigInt(count)]);
  const latest = await node.rpc('mc_getBlockByNumber', ['latest', false]);
  return latest.transactions.length;
}
