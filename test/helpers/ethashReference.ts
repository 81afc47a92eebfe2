// The independent Ethash implementation the tests check the node against: @ethereumjs/ethash
// (plain JavaScript, a few hashes/s; never used by src/). Its cache is built by the library
// itself in a worker thread (ethashReferenceCache.mjs) rather than through loadEpoc, which
// would also store it hex-encoded in a database.

import { Worker } from 'node:worker_threads';
import type { Test } from 'tap';
import { Ethash } from '@ethereumjs/ethash';
import { RLP } from '@ethereumjs/rlp';
import { keccak256 } from 'ethereum-cryptography/keccak.js';
import { bytesToHex, hexToBytes } from '../../src/encoding/hex.js';
import { bigintToBytes, bytesToBigint } from '../../src/encoding/bytes.js';
// Not in the package's export map: the size and seed rules, reached by file.
import { getCacheSize, getFullSize, getSeed } from '../../node_modules/@ethereumjs/ethash/dist/esm/util.js';

export { getCacheSize, getFullSize, getSeed };

const made = new Map<number, Promise<Ethash>>();

/** An ethereumjs Ethash holding the epoch's cache as the library generates it. */
export function referenceEthash(epoch = 0): Promise<Ethash> {
  let e = made.get(epoch);
  if (!e) {
    e = (async () => {
      const ethash = new Ethash();
      ethash.cacheSize = await getCacheSize(epoch);
      ethash.fullSize = await getFullSize(epoch);
      ethash.seed = getSeed(new Uint8Array(32), 0, epoch);
      ethash.epoc = epoch;
      const flat = await new Promise<Uint8Array>((resolve, reject) => {
        const worker = new Worker(new URL('./ethashReferenceCache.mjs', import.meta.url), {
          workerData: { cacheSize: ethash.cacheSize, seed: ethash.seed }, execArgv: [],
        });
        // The worker is done once it has answered: end it, so that it never holds the test open.
        worker.once('message', (flat: Uint8Array) => {
          resolve(flat);
          void worker.terminate();
        });
        worker.once('error', reject);
      });
      // One buffer per row: the library reads rows through their .buffer.
      ethash.cache = Array.from({ length: flat.length / 64 }, (_, i) => flat.slice(i * 64, i * 64 + 64));
      return ethash;
    })();
    made.set(epoch, e);
  }
  return e;
}

/** Node flags for a small Ethash chain: at difficulty 4 the reference (a few hashes a second) solves a package in seconds. */
export const ETHASH_ARGS = ['--chain.pow', 'ethash', '--genesis.difficulty', '0x4', '--mining.threads', '1', '--verbosity', '3'];

export type RpcBlock = Record<string, string>;
const q = (hex: string) => bigintToBytes(BigInt(hex));

/** The seal hash and block hash recomputed here from the RPC fields (header RLP in MOAC's field order). */
export function rpcHeaderHashes(b: RpcBlock): { sealHash: Uint8Array; hash: Uint8Array } {
  const fields = [
    hexToBytes(b.parentHash), hexToBytes(b.sha3Uncles), hexToBytes(b.miner), hexToBytes(b.stateRoot),
    hexToBytes(b.transactionsRoot), hexToBytes(b.receiptsRoot), hexToBytes(b.logsBloom), q(b.difficulty), q(b.number),
    q(b.gasLimit), q(b.gasUsed), q(b.timestamp), hexToBytes(b.extraData),
  ];
  return {
    sealHash: keccak256(RLP.encode(fields)),
    hash: keccak256(RLP.encode([...fields, hexToBytes(b.mixHash), hexToBytes(b.nonce)])),
  };
}

/** A block the node returned, checked by the reference: header hash, mix digest and target. */
export async function independentlyValid(t: Test, b: RpcBlock): Promise<void> {
  const { sealHash, hash } = rpcHeaderHashes(b);
  t.equal(bytesToHex(hash), b.hash, `block ${Number(b.number)}: header fields recomputed`);
  const { mix, hash: result } = (await referenceEthash(0)).run(sealHash, hexToBytes(b.nonce));
  t.equal(bytesToHex(mix), b.mixHash, `block ${Number(b.number)}: @ethereumjs/ethash computes the same mix digest`);
  t.ok(bytesToBigint(result) <= (1n << 256n) / BigInt(b.difficulty), `block ${Number(b.number)}: its result meets the target`);
}
