// A small least-recently-used cache on Map insertion order: the block, receipt, trie-node, state
// reader and reply caches all use it. Capacity counts entries.

export class Lru<K, V> {
  private readonly map = new Map<K, V>();
  /** evicted together: a Map skips its deleted front entries on every keys(), so one at a time costs O(holes) each */
  private readonly slack: number;
  constructor(private readonly capacity: number) {
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
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.capacity) {
      const oldest = this.map.keys();
      for (let n = this.map.size - this.capacity + this.slack; n > 0; n--) this.map.delete(oldest.next().value as K);
    }
  }
  delete(key: K): void {
    this.map.delete(key);
  }
  clear(): void {
    this.map.clear();
  }
  get size(): number {
    return this.map.size;
  }
}

