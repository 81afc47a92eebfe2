// A small least-recently-used cache on Map insertion order: the block, receipt, trie-node, state
// reader and reply caches all use it. Capacity counts entries, or bytes when a weigh function is
// given (for values whose sizes vary a lot, such as trie nodes).

export class Lru<K, V> {
  private readonly map = new Map<K, V>();
  /** evicted together: a Map skips its deleted front entries on every keys(), so one at a time costs O(holes) each */
  private readonly slack: number;
  private total = 0;
  /**
   * @param capacity entries, or bytes with `weigh`
   * @param weigh the bytes an entry holds (key, value and their objects); must not change while cached
   */
  constructor(
    private readonly capacity: number,
    private readonly weigh?: (key: K, value: V) => number,
  ) {
    this.slack = capacity >> 5;
  }
  get(key: K): V | undefined {
    const value = this.map.get(key);
    if (value !== undefined) {
      this.map.delete(key);
      this.map.set(key, value);
    }
    return value;
  }
  set(key: K, value: V): void {
    this.delete(key);
    this.map.set(key, value);
    this.total += this.weigh ? this.weigh(key, value) : 1;
    if (this.total > this.capacity) {
      const oldest = this.map.keys();
      const target = this.capacity - this.slack;
      // The entry just set stays even when it alone is over capacity.
      while (this.total > target && this.map.size > 1) this.delete(oldest.next().value as K);
    }
  }
  delete(key: K): void {
    const value = this.map.get(key);
    if (value === undefined) return;
    this.map.delete(key);
    this.total -= this.weigh ? this.weigh(key, value) : 1;
  }
  clear(): void {
    this.map.clear();
    this.total = 0;
  }
  get size(): number {
    return this.map.size;
  }
  /** entries, or bytes with a weigh function */
  get weight(): number {
    return this.total;
  }
}
