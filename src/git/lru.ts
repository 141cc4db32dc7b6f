/**
 * A per-process cache bounded by the total weight of its values (characters, ids), least recently
 * used first, for what git gives back that never changes (commit texts, a commit's history ids)
 * and for indexes that grow (set again after growing, to be weighed again).
 */
export class WeightedLru<V> {
  // why: each value's weight is kept as it was when set, so a value that grew in place is re-weighed correctly.
  private readonly entries = new Map<string, { value: V; weight: number }>();
  private total = 0;

  constructor(private readonly maxWeight: number, private readonly weigh: (value: V) => number) {}

  /** The value for `key`, which becomes the most recently used. */
  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  /** Keep `value`, evicting the least recently used entries while over the bound (never the one just set). */
  set(key: string, value: V): void {
    // why: two reads may both have missed the same key.
    this.delete(key);
    const weight = this.weigh(value);
    this.entries.set(key, { value, weight });
    this.total += weight;
    for (const [k, e] of this.entries) {
      if (this.total <= this.maxWeight || k === key) break;
      this.entries.delete(k);
      this.total -= e.weight;
    }
  }

  /** Forget `key`. */
  delete(key: string): void {
    const old = this.entries.get(key);
    if (old === undefined) return;
    this.total -= old.weight;
    this.entries.delete(key);
  }
}
