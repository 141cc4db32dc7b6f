/** The weight-bounded cache behind kept commit texts, history id lists and the Actions log indexes. */
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

  it('weighs a value that grew in place again when it is set again, and forgets a deleted key', () => {
    const lru = new WeightedLru<number[]>(6, (v) => v.length);
    const growing = [1, 2];
    lru.set('g', growing);
    lru.set('x', [1, 2]);
    growing.push(3, 4, 5);
    lru.set('g', growing);
    expect(lru.get('x'), 'evicted once g weighs 5').to.equal(undefined);
    expect(lru.get('g')).to.have.length(5);
    lru.delete('g');
    lru.set('y', [1, 2, 3, 4, 5, 6]);
    lru.set('z', []);
    expect(lru.get('y'), 'the deleted weight no longer counts').to.have.length(6);
  });
});
