/**
 * Short-lived per-process caches of query results over some tables, for reads every request makes.
 * Any committed write to one of the tables (model or raw SQL, see onTableWrite) clears the cache in
 * every process over the bus, and entries expire after a TTL regardless. Reads inside a transaction
 * bypass the cache.
 */
import { onTableWrite, type DbContext } from '../db';
import { publish, subscribe } from '../queue/bus';

const MAX_ENTRIES = 10_000;

/** Cached values by string key, loaded in batches. */
export class TableCache<V> {
  private readonly entries = new Map<string, { value: V; at: number }>();
  private generation = 0;

  constructor(name: string, tables: string[], private readonly ttlMs = 2_000) {
    const topic = `table-cache:${name}`;
    subscribe(topic, () => {
      this.generation++;
      this.entries.clear();
    });
    for (const t of tables) onTableWrite(t, () => publish(topic, null));
  }

  /** Values for `keys`: cached ones, and the rest from `load` (which answers for every key it is given). */
  async getMany(ctx: DbContext, keys: string[], load: (missing: string[]) => Promise<Map<string, V>>): Promise<Map<string, V>> {
    if (ctx.tx) return load(keys);
    const now = Date.now();
    const out = new Map<string, V>();
    const missing: string[] = [];
    for (const k of keys) {
      const hit = this.entries.get(k);
      if (hit && now - hit.at < this.ttlMs) out.set(k, hit.value);
      else missing.push(k);
    }
    if (missing.length === 0) return out;
    const gen = this.generation;
    const loaded = await load(missing);
    // why: a write that committed while this read was in flight bumped the generation; what was read may be stale.
    const keep = gen === this.generation;
    if (keep && this.entries.size + loaded.size > MAX_ENTRIES) this.entries.clear();
    for (const [k, v] of loaded) {
      out.set(k, v);
      if (keep) this.entries.set(k, { value: v, at: now });
    }
    return out;
  }

  /** The value for one key. */
  async get(ctx: DbContext, key: string, load: () => Promise<V>): Promise<V> {
    return (await this.getMany(ctx, [key], async () => new Map([[key, await load()]]))).get(key)!;
  }
}
