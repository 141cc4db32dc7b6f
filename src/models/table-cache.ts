/**
 * Short-lived per-process caches of query results over some tables, for reads every request makes.
 * Any committed write to one of the tables (model or raw SQL, see onTableWrite) clears the cache in
 * every process over the bus (the write returns once every worker of its machine has), and entries
 * expire after a TTL regardless. Reads inside a transaction
 * bypass the cache.
 */
import { onTableWrite, type DbContext } from '../db';
import { publishAndWait, subscribe } from '../queue/bus';

const MAX_ENTRIES = 10_000;

function readOnly(): never {
  throw new Error('a cached row is a read-only snapshot; write through the model functions');
}

/**
 * Make a fetched model instance a read-only snapshot, to be shared by cached reads: its write
 * methods throw. Writers read inside a transaction, which bypasses the caches.
 */
export function readOnlyRow<T extends object>(row: T): T {
  for (const m of ['set', 'save', 'update', 'destroy', 'reload', 'increment', 'decrement', 'restore']) {
    Object.defineProperty(row, m, { value: readOnly });
  }
  return row;
}

/** Cached values by string key, loaded in batches. */
export class TableCache<V> {
  private readonly entries = new Map<string, { value: V; at: number }>();
  /** Loads under way in this generation, by key: a request that misses joins them. */
  private readonly loading = new Map<string, Promise<Map<string, V>>>();
  private generation = 0;

  constructor(name: string, tables: string[], private readonly ttlMs = 2_000, private readonly maxEntries = MAX_ENTRIES) {
    const topic = `table-cache:${name}`;
    subscribe(topic, () => {
      this.generation++;
      this.entries.clear();
      this.loading.clear();
    });
    for (const t of tables) onTableWrite(t, () => publishAndWait(topic, null));
  }

  /** Values for `keys`: cached ones, and the rest from `load` (which answers for every key it is given). */
  async getMany(ctx: DbContext, keys: string[], load: (missing: string[]) => Promise<Map<string, V>>): Promise<Map<string, V>> {
    if (ctx.tx) return load(keys);
    const now = Date.now();
    const out = new Map<string, V>();
    const missing: string[] = [];
    const joined = new Set<Promise<Map<string, V>>>();
    for (const k of keys) {
      const hit = this.entries.get(k);
      if (hit && now - hit.at < this.ttlMs) out.set(k, hit.value);
      else if (this.loading.has(k)) joined.add(this.loading.get(k)!);
      else missing.push(k);
    }
    // why: when an entry expires under load, every request in flight missed it at once; each sent the
    // same query, and they queued behind each other on the database. One load now serves them all.
    if (missing.length > 0) joined.add(this.load(missing, now, load));
    const wanted = joined.size > 0 ? new Set(keys) : null;
    for (const batch of joined) {
      for (const [k, v] of await batch) if (wanted!.has(k)) out.set(k, v);
    }
    return out;
  }

  private load(missing: string[], now: number, load: (missing: string[]) => Promise<Map<string, V>>): Promise<Map<string, V>> {
    const gen = this.generation;
    const batch = load(missing).then((loaded) => {
      // why: a write that committed while this read was in flight bumped the generation; what was read may be stale.
      if (gen === this.generation) {
        if (this.entries.size + loaded.size > this.maxEntries) this.entries.clear();
        for (const [k, v] of loaded) this.entries.set(k, { value: v, at: now });
      }
      return loaded;
    }).finally(() => {
      for (const k of missing) if (this.loading.get(k) === batch) this.loading.delete(k);
    });
    for (const k of missing) this.loading.set(k, batch);
    return batch;
  }

  /** The value for one key. */
  get(ctx: DbContext, key: string, load: () => Promise<V>): Promise<V> {
    // why: the hit is what nearly every request takes, several times; it allocates nothing but its promise.
    if (!ctx.tx) {
      const hit = this.entries.get(key);
      if (hit && Date.now() - hit.at < this.ttlMs) return Promise.resolve(hit.value);
    }
    return this.getMany(ctx, [key], async () => new Map([[key, await load()]])).then((m) => m.get(key)!);
  }
}
