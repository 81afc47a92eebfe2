// One bounded search step for any PoW, on the calling thread: the sealer's inline search and
// the worker tasks both call it. Ethash kernels (one per epoch, each holding its cache in
// WebAssembly memory) are kept per thread for the last two epochs seen.

import { searchNonce } from './pow.js';
import type { SearchContext } from './powEngine.js';
import { EthashKernel } from './ethash/ethashKernel.js';

const kernels = new Map<number, { kernel: EthashKernel; dataset?: Uint8Array }>();
const KEPT_EPOCHS = 2;

function ethashKernel(ctx: Extract<SearchContext, { pow: 'ethash' }>): EthashKernel {
  let entry = kernels.get(ctx.epoch);
  if (!entry) {
    const kernel = new EthashKernel();
    kernel.loadCache(ctx.epoch, ctx.cache);
    entry = { kernel };
    kernels.set(ctx.epoch, entry);
    while (kernels.size > KEPT_EPOCHS) kernels.delete(kernels.keys().next().value!);
  }
  // The dataset arrives shared: the kernel reads it in place (light until it is ready).
  if (entry.dataset !== ctx.dataset) {
    entry.kernel.useDataset(ctx.dataset);
    entry.dataset = ctx.dataset;
  }
  return entry.kernel;
}

/**
 * The smallest nonce in [start, start + count) whose seal meets `target` (32 bytes BE), with its
 * mix digest; undefined when none does. Callers keep start + count ≤ 2^64.
 */
export function searchStep(
  ctx: SearchContext,
  sealHash: Uint8Array,
  target: Uint8Array,
  start: bigint,
  count: number,
): { nonce: bigint; mix: Uint8Array } | undefined {
  if (ctx.pow === 'keccak-pow') return searchNonce(sealHash, target, start, count);
  const mix = new Uint8Array(32);
  const hit = ethashKernel(ctx).search(sealHash, target, start, count, mix);
  return hit >= 0 ? { nonce: start + BigInt(hit), mix } : undefined;
}
