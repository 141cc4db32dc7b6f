/**
 * A per-process cache bounded by the total weight of its values (characters, ids), least recently
 * used first, for what git gives back that never changes (commit texts, a commit's history ids).
 */
export class WeightedLru<V> {
  private readonly entries = new Map<string, V>();
  private total = 0;

  constructor(private readonly maxWeight: number, private readonly weigh: (value: V) => number) {}

  /** The value for `key`, which becomes the most recently used. */
  get(key: string): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  /** Keep `value`, evicting the least recently used entries while over the bound (never the one just set). */
  set(key: string, value: V): void {
    // why: two reads may both have missed the same key.
    const old = this.entries.get(key);
    if (old !== undefined) {
      this.total -= this.weigh(old);
      this.entries.delete(key);
    }
    this.entries.set(key, value);
    this.total += this.weigh(value);
    for (const [k, v] of this.entries) {
      if (this.total <= this.maxWeight || k === key) break;
      this.entries.delete(k);
      this.total -= this.weigh(v);
    }
  }
}
