// Worker thread: generates one epoch's Ethash light cache off the main event loop. Reports
// progress, then posts the cache on a SharedArrayBuffer (shared with the search workers as is).

import { parentPort, workerData } from 'node:worker_threads';
import { EthashKernel } from '../src/consensus/ethash/ethashKernel.js';

export type EthashCacheMessage = { progress: number } | { cache: Uint8Array };

const { epoch } = workerData as { epoch: number };
const kernel = new EthashKernel();
kernel.generateCache(epoch, (step, of) => parentPort!.postMessage({ progress: step / of } satisfies EthashCacheMessage));
const generated = kernel.cache();
const cache = new Uint8Array(new SharedArrayBuffer(generated.length));
cache.set(generated);
parentPort!.postMessage({ cache } satisfies EthashCacheMessage);
