// Worker thread: computes one slice [start, start + count) of an epoch's full Ethash dataset from
// the shared light cache, writing the items straight into the shared dataset buffer. Reports
// the items done after each chunk so that the main thread can draw progress.

import { parentPort, workerData } from 'node:worker_threads';
import { EthashKernel } from '../src/consensus/ethash/ethashKernel.js';
import { HASH_BYTES } from '../src/consensus/ethash/params.js';

export interface EthashDatasetJob {
  epoch: number;
  /** the epoch's light cache (SharedArrayBuffer) */
  cache: Uint8Array;
  /** the whole dataset being filled (SharedArrayBuffer); this worker writes only its slice */
  dataset: Uint8Array;
  start: number;
  count: number;
}

export type EthashDatasetMessage = { done: number } | { finished: true };

/** Items per chunk: a few hundred milliseconds of work, then a progress message. */
const CHUNK = 4096;

const job = workerData as EthashDatasetJob;
const kernel = new EthashKernel();
kernel.loadCache(job.epoch, job.cache);
for (let done = 0; done < job.count; ) {
  const n = Math.min(CHUNK, job.count - done);
  const index = job.start + done;
  job.dataset.set(kernel.datasetItems(index, n), index * HASH_BYTES);
  done += n;
  parentPort!.postMessage({ done: n } satisfies EthashDatasetMessage);
}
parentPort!.postMessage({ finished: true } satisfies EthashDatasetMessage);
