// The Sealer's search thread for small keccak-pow seals (miner/sealThread.ts): it sleeps on the
// channel's state word, searches the range it is handed in slices (looking at the abort word
// between them), writes the result and wakes the main thread, whose event loop stays free meanwhile.

import { workerData } from 'node:worker_threads';
import { searchNonce } from '../src/consensus/pow.js';
import { ABORT, DONE, EXIT, STATE, TASK, readTask, stateWords, writeResult, type ChannelResult } from '../src/consensus/sealChannel.js';

/** Hashes between looks at the abort word (~1 ms with the WebAssembly kernel). */
const SLICE = 2048;

const channel = (workerData as { channel: SharedArrayBuffer }).channel;
const words = stateWords(channel);

function search(): ChannelResult {
  const { sealHash, target, start, count } = readTask(channel);
  let done = 0;
  while (done < count && Atomics.load(words, ABORT) === 0) {
    const n = Math.min(SLICE, count - done);
    const from = start + BigInt(done);
    const hit = searchNonce(sealHash, target, from, n);
    if (hit) return { hit, hashes: done + Number(hit.nonce - from) + 1 };
    done += n;
  }
  return { hashes: done };
}

for (;;) {
  let state = Atomics.load(words, STATE);
  while (state !== TASK && state !== EXIT) {
    Atomics.wait(words, STATE, state);
    state = Atomics.load(words, STATE);
  }
  if (state === EXIT) break;
  writeResult(channel, search());
  Atomics.store(words, STATE, DONE);
  Atomics.notify(words, STATE);
}
