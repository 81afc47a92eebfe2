// Worker thread for ethashReference.ts: @ethereumjs/ethash builds its own epoch cache here, so
// that ~20 s of plain-JavaScript hashing does not stall the test's event loop.
import { parentPort, workerData } from 'node:worker_threads';
import { Ethash } from '@ethereumjs/ethash';

const rows = new Ethash().mkcache(workerData.cacheSize, workerData.seed);
const flat = new Uint8Array(rows.length * 64);
rows.forEach((row, i) => flat.set(row, i * 64));
parentPort.postMessage(flat, [flat.buffer]);
