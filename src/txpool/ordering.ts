// Block order of executable transactions: each sender's in nonce order, and across senders the
// best gas price first (ties: the sender that entered the pool first). A heap over the lanes'
// heads keeps this O(n log senders).

import type { SignedTx } from '../chain/types.js';

export function mergeByPrice(lanes: SignedTx[][]): SignedTx[] {
  if (lanes.length === 1) return lanes[0].slice();
  const heads = lanes.map(() => 0);
  // heap of lane indexes; `before(a, b)`: lane a's head goes first
  const before = (a: number, b: number): boolean => {
    const pa = lanes[a][heads[a]].gasPrice;
    const pb = lanes[b][heads[b]].gasPrice;
    return pa > pb || (pa === pb && a < b);
  };
  const heap = lanes.map((_, i) => i).filter((i) => lanes[i].length > 0);
  const swap = (i: number, j: number): void => {
    const x = heap[i];
    heap[i] = heap[j];
    heap[j] = x;
  };
  const down = (i: number): void => {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let best = i;
      if (l < heap.length && before(heap[l], heap[best])) best = l;
      if (r < heap.length && before(heap[r], heap[best])) best = r;
      if (best === i) return;
      swap(i, best);
      i = best;
    }
  };
  for (let i = (heap.length >> 1) - 1; i >= 0; i--) down(i);

  const out: SignedTx[] = [];
  while (heap.length > 0) {
    const lane = heap[0];
    out.push(lanes[lane][heads[lane]++]);
    if (heads[lane] >= lanes[lane].length) {
      heap[0] = heap[heap.length - 1];
      heap.pop();
    }
    if (heap.length > 0) down(0);
  }
  return out;
}
