/** The weight-bounded cache behind kept commit texts and history id lists. */
import { expect } from 'chai';
import { WeightedLru } from '../../src/git/lru';

describe('WeightedLru', () => {
  const keys = (lru: WeightedLru<string>, names: string[]) => names.filter((k) => lru.get(k) !== undefined);

  it('evicts the least recently used entries once over its weight, a read counting as a use', () => {
    const lru = new WeightedLru<string>(6, (v) => v.length);
    lru.set('a', 'aa');
    lru.set('b', 'bb');
    lru.set('c', 'cc');
    expect(lru.get('a')).to.equal('aa');
    lru.set('d', 'dd');
    expect(keys(lru, ['a', 'b', 'c', 'd'])).to.deep.equal(['a', 'c', 'd']);
  });

  it('counts a key set twice once', () => {
    const lru = new WeightedLru<string>(6, (v) => v.length);
    lru.set('a', 'aa');
    lru.set('a', 'aa');
    lru.set('a', 'aa');
    lru.set('b', 'bb');
    lru.set('c', 'cc');
    expect(keys(lru, ['a', 'b', 'c'])).to.deep.equal(['a', 'b', 'c']);
  });

  it('keeps an entry heavier than the bound until the next one comes', () => {
    const lru = new WeightedLru<string>(3, (v) => v.length);
    lru.set('a', 'a');
    lru.set('big', 'bigger');
    expect(keys(lru, ['a', 'big'])).to.deep.equal(['big']);
    lru.set('b', 'b');
    expect(keys(lru, ['big', 'b'])).to.deep.equal(['b']);
  });
});
