// The independent Ethash implementation the tests check the node against: @ethereumjs/ethash
// (plain JavaScript, a few hashes/s; never used by src/). Its cache is built by the library
// itself in a worker thread (ethashReferenceCache.mjs) rather than through loadEpoc, which
// would also store it hex-encoded in a database.

import { Worker } from 'node:worker_threads';
import { Ethash } from '@ethereumjs/ethash';
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
