/** The group-commit batcher: calls that arrive during a flush go together in the next one. */
import { expect } from 'chai';
import { batcher } from '../../src/queue/batcher';

describe('batcher', () => {
  it('flushes the calls of one turn together, and those made during a flush in the next', async () => {
    const flushed: number[][] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => { release = r; });
    const double = batcher(async (items: number[]) => {
      flushed.push(items);
      if (flushed.length === 1) await gate;
      return items.map((n) => n * 2);
    });
    const first = [double(1), double(2)];
    await new Promise((r) => setImmediate(r));
    // the first flush is under way: these wait for the next one
    const later = [double(3), double(4), double(5)];
    release();
    expect(await Promise.all([...first, ...later])).to.deep.equal([2, 4, 6, 8, 10]);
    expect(flushed).to.deep.equal([[1, 2], [3, 4, 5]]);
  });

  it('keeps batches within the maximum, and fails only the calls of a flush that threw', async () => {
    const sizes: number[] = [];
    const check = batcher(async (items: number[]) => {
      sizes.push(items.length);
      if (items.includes(-1)) throw new Error('bad batch');
      return items;
    }, 3);
    const results = await Promise.allSettled([1, 2, 3, -1, 5, 6, 7].map((n) => check(n)));
    expect(sizes).to.deep.equal([3, 3, 1]);
    expect(results.map((r) => r.status)).to.deep.equal(['fulfilled', 'fulfilled', 'fulfilled', 'rejected', 'rejected', 'rejected', 'fulfilled']);
  });
});
