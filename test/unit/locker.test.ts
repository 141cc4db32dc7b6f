/**
 * The Locker contract, run against MemoryLocker and RedlockLocker (Redis at FORGE_TEST_REDIS,
 * default redis://127.0.0.1:56379; scripts/test.sh starts it, so an unreachable Redis fails).
 * Also: RepoBusy through the error mapper is Gitea's body with 503 and Retry-After.
 */
import crypto from 'node:crypto';
import { expect } from 'chai';
import Redis from 'ioredis';
import { MemoryLocker, RedlockLocker, type Locker } from '../../src/lock';
import { RepoBusy } from '../../src/errors';
import { mapError } from '../../src/errors/mapper';

const REDIS_URL = process.env.FORGE_TEST_REDIS || `redis://127.0.0.1:${process.env.FORGE_TEST_REDIS_PORT || 56379}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function rejection(p: Promise<unknown>): Promise<unknown> {
  try { await p; } catch (err) { return err; }
  throw new Error('expected a rejection');
}

/** The shared contract; `make` gives lockers that share one lock space (two nodes in Redis). */
function contract(name: string, make: () => Locker, makeOther: () => Locker) {
  describe(`${name} contract`, () => {
    let key: string;
    beforeEach(() => { key = `t-${crypto.randomUUID()}`; });

    it('never lets N concurrent holders of one key overlap', async () => {
      const l = make();
      let inside = 0; let maxInside = 0; const order: number[] = [];
      await Promise.all(Array.from({ length: 8 }, (_, i) => l.withLock(key, async () => {
        inside++; maxInside = Math.max(maxInside, inside);
        await sleep(5);
        order.push(i);
        inside--;
      }, { ttlMs: 5000, waitMs: 20000 })));
      expect(maxInside).to.equal(1);
      expect(order).to.have.length(8);
    });

    it('runs holders of different keys in parallel', async () => {
      const l = make();
      let inside = 0; let maxInside = 0;
      let openGate!: () => void; const gate = new Promise<void>((r) => { openGate = r; });
      const run = (k: string) => l.withLock(k, async () => {
        inside++; maxInside = Math.max(maxInside, inside);
        if (inside === 2) openGate();
        await gate; // both must be inside at once, or this never resolves
        inside--;
      }, { ttlMs: 5000, waitMs: 2000 });
      await Promise.all([run(`${key}-a`), run(`${key}-b`)]);
      expect(maxInside).to.equal(2);
    });

    it('lets the next waiter proceed after a release', async () => {
      const l = make();
      const first = await l.acquire(key, { ttlMs: 60000, waitMs: 0 });
      const waiting = l.acquire(key, { ttlMs: 5000, waitMs: 20000 });
      await first.release();
      // why: ttl is 60 s, so the waiter can only get in through the release.
      const second = await waiting;
      expect(second.key).to.equal(key);
      await second.release();
    });

    it('takes the lock from a holder that never releases once its ttl passes (crash)', async () => {
      const l = make();
      await l.acquire(key, { ttlMs: 300, waitMs: 0 }); // never released: a crashed holder
      const other = await make().acquire(key, { ttlMs: 5000, waitMs: 20000 });
      expect(other.key).to.equal(key);
      await other.release();
    });

    it('gives RepoBusy after waitMs when the lock stays held', async () => {
      const l = make();
      const held = await l.acquire(key, { ttlMs: 60000, waitMs: 0 });
      const err = await rejection(l.acquire(key, { ttlMs: 5000, waitMs: 200 }));
      expect(err).to.be.instanceOf(RepoBusy);
      const thrown = await rejection(l.withLock(key, async () => 'ran', { ttlMs: 5000, waitMs: 100 }));
      expect(thrown).to.be.instanceOf(RepoBusy);
      await held.release();
    });

    it('keeps the lock for a long holder that extends it', async () => {
      const l = make();
      let stolen = false;
      let entered!: () => void; const inside = new Promise<void>((r) => { entered = r; });
      let gaveUp!: () => void; const otherGaveUp = new Promise<void>((r) => { gaveUp = r; });
      // the holder stays inside until the other has waited four lifetimes of the lock in vain
      const long = l.withLock(key, async () => {
        entered();
        await otherGaveUp;
        return 'done';
      }, { ttlMs: 500, waitMs: 1000 });
      await inside;
      const err = await rejection(makeOther().acquire(key, { ttlMs: 500, waitMs: 2000 }).then(() => { stolen = true; }));
      gaveUp();
      expect(stolen).to.equal(false);
      expect(err).to.be.instanceOf(RepoBusy);
      expect(await long).to.equal('done');
      const after = await makeOther().acquire(key, { ttlMs: 300, waitMs: 2000 });
      await after.release();
    });

    it('does not release a lock another holder took after expiry', async () => {
      const l = make();
      const stale = await l.acquire(key, { ttlMs: 200, waitMs: 0 });
      const fresh = await makeOther().acquire(key, { ttlMs: 60000, waitMs: 5000 });
      await stale.release();
      const err = await rejection(l.acquire(key, { ttlMs: 1000, waitMs: 100 }));
      expect(err).to.be.instanceOf(RepoBusy);
      await rejection(stale.extend(1000));
      await fresh.release();
    });

    it('releases the lock when fn throws', async () => {
      const l = make();
      const err = await rejection(l.withLock(key, async () => { throw new Error('boom'); }, { ttlMs: 60000, waitMs: 0 }));
      expect((err as Error).message).to.equal('boom');
      const again = await l.acquire(key, { ttlMs: 1000, waitMs: 0 });
      await again.release();
    });
  });
}

describe('Locker', () => {
  const memory = new MemoryLocker();
  contract('MemoryLocker', () => memory, () => memory);

  describe('Redis', () => {
    const clients: Redis[] = [];
    const prefix = `forge-test:${crypto.randomUUID()}:`;
    const newLocker = () => {
      const c = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => null, connectTimeout: 2000 });
      clients.push(c);
      return new RedlockLocker(c, (k) => prefix + k);
    };
    let a: RedlockLocker; let b: RedlockLocker;
    before(async () => {
      const probe = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => null, connectTimeout: 2000 });
      try {
        await probe.connect();
        await probe.ping();
      } catch (err) {
        throw new Error(`Redis is not reachable at ${REDIS_URL} (set FORGE_TEST_REDIS or start it; scripts/test.sh does): ${(err as Error).message}`);
      } finally {
        probe.disconnect();
      }
      a = newLocker(); b = newLocker();
    });
    after(() => { for (const c of clients) c.disconnect(); });

    // why: `make` and `makeOther` are two lockers on two connections, like two cluster nodes.
    contract('RedlockLocker', () => a, () => b);

    it('two RedlockLocker instances on two clients exclude each other', async () => {
      const key = `two-${crypto.randomUUID()}`;
      let inside = 0; let maxInside = 0;
      await Promise.all(Array.from({ length: 6 }, (_, i) => (i % 2 ? a : b).withLock(key, async () => {
        inside++; maxInside = Math.max(maxInside, inside);
        await sleep(5);
        inside--;
      }, { ttlMs: 5000, waitMs: 20000 })));
      expect(maxInside).to.equal(1);
      const held = await a.acquire(key, { ttlMs: 60000, waitMs: 0 });
      expect(await rejection(b.acquire(key, { ttlMs: 1000, waitMs: 100 }))).to.be.instanceOf(RepoBusy);
      await held.release();
    });
  });

  describe('RepoBusy through the error mapper', () => {
    it('is Gitea\'s error body with 503 and Retry-After', async () => {
      const m = new MemoryLocker();
      const held = await m.acquire('repo:1', { ttlMs: 60000, waitMs: 0 });
      const busyErr = await rejection(m.acquire('repo:1', { ttlMs: 1000, waitMs: 50 }));
      await held.release();
      const res = mapError(busyErr, 'http://localhost:3000/api/swagger', false);
      expect(res.status).to.equal(503);
      expect(res.headers['Retry-After']).to.match(/^\d+$/);
      expect(res.body).to.deep.equal({ message: 'repository is busy, try again', url: 'http://localhost:3000/api/swagger' });
    });
  });
});
