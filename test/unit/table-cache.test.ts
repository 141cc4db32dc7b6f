/** TableCache: one load for the requests that miss together, and no stale joins after a write. */
import { expect } from 'chai';
import { tableWritten } from '../../src/db';
import { TableCache } from '../../src/models/table-cache';

describe('TableCache', () => {
  const ctx = { doerId: null };

  it('serves the requests that miss a key at once from one load', async () => {
    const cache = new TableCache<number>('unit-stampede', ['unit_stampede']);
    let loads = 0;
    const load = async () => {
      loads++;
      await new Promise((r) => setImmediate(r));
      return 7;
    };
    const got = await Promise.all(Array.from({ length: 32 }, () => cache.get(ctx, 'k', load)));
    expect(got).to.deep.equal(Array(32).fill(7));
    expect(loads).to.equal(1);
    expect(await cache.get(ctx, 'k', load)).to.equal(7);
    expect(loads).to.equal(1);
  });

  it('never lets a request that came after a write join a load that started before it', async () => {
    const cache = new TableCache<string>('unit-write', ['unit_write']);
    let value = 'old';
    let release!: () => void;
    const gate = new Promise<void>((r) => { release = r; });
    const slow = cache.get(ctx, 'k', async () => {
      const seen = value;
      await gate;
      return seen;
    });
    value = 'new';
    tableWritten('unit_write');
    const after = cache.get(ctx, 'k', async () => value);
    release();
    expect(await slow).to.equal('old');
    expect(await after).to.equal('new');
    // the load that read before the write is not kept
    expect(await cache.get(ctx, 'k', async () => 'reloaded')).to.equal('new');
  });

  it('fails every joined request with the error of the load, and loads again next time', async () => {
    const cache = new TableCache<number>('unit-error', ['unit_error']);
    const failing = async (): Promise<number> => {
      await new Promise((r) => setImmediate(r));
      throw new Error('database away');
    };
    const results = await Promise.allSettled([cache.get(ctx, 'k', failing), cache.get(ctx, 'k', failing)]);
    expect(results.map((r) => r.status)).to.deep.equal(['rejected', 'rejected']);
    expect(await cache.get(ctx, 'k', async () => 3)).to.equal(3);
  });
});
