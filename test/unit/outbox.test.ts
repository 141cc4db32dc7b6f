/**
 * The durable outbox against a fresh SQLite database and a fresh PostgreSQL database
 * (127.0.0.1:FORGE_TEST_PG_PORT, default 55432, user forge/forge; scripts/test.sh starts it, so an
 * unreachable server fails the suite rather than skipping it).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { Client } from 'pg';
import { loadSettings, useSettings } from '../../src/config';
import { openDatabase, closeDatabase, systemCtx, withTx } from '../../src/db';
import { migrate } from '../../src/db/migrate';
import { enqueue, claim, complete, fail, outboxBackoffMs } from '../../src/queue/outbox';
import { startOutboxWorker } from '../../src/queue/worker';
import { findOutbox, countOutbox, OutboxStatus, OUTBOX_BACKOFF_BASE_MS } from '../../src/models/outbox.model';

const ctx = systemCtx;
const PG_PORT = Number(process.env.FORGE_TEST_PG_PORT || 55432);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function pgAdmin(): Promise<Client> {
  const c = new Client({ host: '127.0.0.1', port: PG_PORT, user: 'forge', password: 'forge', database: 'postgres' });
  try {
    await c.connect();
  } catch (err) {
    throw new Error(`PostgreSQL is not reachable at 127.0.0.1:${PG_PORT} (set FORGE_TEST_PG_PORT or start it; scripts/test.sh does): ${(err as Error).message}`);
  }
  return c;
}

/** Wait until `cond` holds (polling), failing after a generous bound. */
async function until(cond: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (await cond()) return;
    await sleep(25);
  }
  throw new Error(`timed out waiting for ${what}`);
}

function contract(dialect: 'sqlite' | 'postgres') {
  describe(`outbox on ${dialect}`, () => {
    let dir: string;
    let pgName = '';
    let topic: string;

    before(async () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'forge-outbox-'));
      const env: Record<string, string> = { FORGE__SERVER__APP_DATA_PATH: dir, FORGE__LOG__LEVEL: 'none' };
      if (dialect === 'postgres') {
        pgName = `forge_test_outbox_${crypto.randomBytes(6).toString('hex')}`;
        const admin = await pgAdmin();
        await admin.query(`CREATE DATABASE ${pgName}`);
        await admin.end();
        Object.assign(env, {
          FORGE__DATABASE__DB_TYPE: 'postgres', FORGE__DATABASE__HOST: `127.0.0.1:${PG_PORT}`, FORGE__DATABASE__NAME: pgName,
          FORGE__DATABASE__USER: 'forge', FORGE__DATABASE__PASSWD: 'forge',
        });
      }
      const s = loadSettings(null, env);
      useSettings(s);
      await migrate(openDatabase(s), s);
    });
    after(async () => {
      await closeDatabase();
      fs.rmSync(dir, { recursive: true, force: true });
      if (pgName) {
        const admin = await pgAdmin();
        await admin.query(`DROP DATABASE IF EXISTS ${pgName} WITH (FORCE)`);
        await admin.end();
      }
    });
    beforeEach(() => { topic = `t.${crypto.randomUUID()}`; });

    it('keeps nothing enqueued in a rolled-back transaction, and keeps a committed job', async () => {
      let err: unknown;
      try {
        await withTx(ctx, async (c) => { await enqueue(c, topic, { n: 1 }); throw new Error('rollback'); });
      } catch (e) { err = e; }
      expect((err as Error).message).to.equal('rollback');
      expect(await countOutbox(ctx, topic)).to.equal(0);
      expect(await claim(ctx, [topic], 10, 60000, 'w1')).to.deep.equal([]);
      await withTx(ctx, async (c) => { await enqueue(c, topic, { n: 2 }); });
      expect(await countOutbox(ctx, topic)).to.equal(1);
    });

    it('delivers a job once, with its payload, and never again after completion', async () => {
      const id = await enqueue(ctx, topic, { repo: 7, refs: ['refs/heads/main'] });
      const [job, ...rest] = await claim(ctx, [topic], 10, 60000, 'w1');
      expect(rest).to.be.empty;
      expect(job).to.deep.equal({ id, topic, payload: { repo: 7, refs: ['refs/heads/main'] }, attempts: 1 });
      expect(await claim(ctx, [topic], 10, 60000, 'w2')).to.deep.equal([]);
      expect(await complete(ctx, id, 'w1')).to.equal(true);
      expect(await complete(ctx, id, 'w1')).to.equal(false);
      expect(await claim(ctx, [topic], 10, 60000, 'w2')).to.deep.equal([]);
      expect((await findOutbox(ctx, id))!.status).to.equal(OutboxStatus.Done);
    });

    it('only claims jobs of the requested topics', async () => {
      await enqueue(ctx, `${topic}.other`, {});
      expect(await claim(ctx, [topic], 10, 60000, 'w1')).to.deep.equal([]);
    });

    it('never gives the same job to two concurrent claimers', async () => {
      const ids: number[] = [];
      for (let i = 0; i < 40; i++) ids.push(await enqueue(ctx, topic, { i }));
      const got: number[][] = [[], [], [], []];
      await Promise.all(got.map(async (mine, w) => {
        for (;;) {
          const jobs = await claim(ctx, [topic], 3, 60000, `w${w}`);
          if (jobs.length === 0) return;
          mine.push(...jobs.map((j) => j.id));
        }
      }));
      const all = got.flat();
      expect(new Set(all).size).to.equal(all.length);
      expect([...all].sort((a, b) => a - b)).to.deep.equal(ids);
    });

    if (dialect === 'postgres') {
      it('skips rows another open claim transaction has locked instead of waiting (SKIP LOCKED)', async () => {
        const first = await enqueue(ctx, topic, { n: 1 });
        const second = await enqueue(ctx, topic, { n: 2 });
        await withTx(ctx, async (c) => {
          expect((await claim(c, [topic], 1, 60000, 'w1')).map((j) => j.id)).to.deep.equal([first]);
          // first's row stays locked until this transaction ends; another connection passes it by
          expect((await claim(ctx, [topic], 5, 60000, 'w2')).map((j) => j.id)).to.deep.equal([second]);
        });
      });
    }

    it('two running workers process every job exactly once', async () => {
      const seen = new Map<number, number>();
      const ids: number[] = [];
      for (let i = 0; i < 30; i++) ids.push(await enqueue(ctx, topic, { i }));
      const handler = async (_p: unknown, job: { id: number }) => { seen.set(job.id, (seen.get(job.id) ?? 0) + 1); };
      const a = startOutboxWorker({ [topic]: handler }, { pollMs: 20, batch: 4, workerId: 'a' });
      const b = startOutboxWorker({ [topic]: handler }, { pollMs: 20, batch: 4, workerId: 'b' });
      try {
        await until(async () => seen.size === 30, 'all jobs processed');
      } finally {
        await a.stop(); await b.stop();
      }
      expect([...seen.values()].every((n) => n === 1)).to.equal(true);
      for (const id of ids) expect((await findOutbox(ctx, id))!.status).to.equal(OutboxStatus.Done);
    });

    it('retries a failed job later, with exponential backoff', async () => {
      const id = await enqueue(ctx, topic, {});
      await claim(ctx, [topic], 1, 60000, 'w1');
      const t1 = Date.now();
      expect(await fail(ctx, id, 'w1', new Error('remote said 502'))).to.equal(true);
      let row = (await findOutbox(ctx, id))!;
      expect(row.status).to.equal(OutboxStatus.Pending);
      expect(row.lastError).to.contain('remote said 502');
      expect(Number(row.availableAt) - t1).to.be.at.least(OUTBOX_BACKOFF_BASE_MS);
      expect(await claim(ctx, [topic], 1, 60000, 'w2')).to.deep.equal([]); // not due yet
      expect(await fail(ctx, id, 'w1', 'again')).to.equal(false); // no longer leased by w1
      await until(async () => (await claim(ctx, [topic], 1, 60000, 'w2')).length === 1, 'the retry to become due');
      row = (await findOutbox(ctx, id))!;
      expect(row.attempts).to.equal(2);
      const t2 = Date.now();
      await fail(ctx, id, 'w2', 'still failing');
      row = (await findOutbox(ctx, id))!;
      expect(Number(row.availableAt) - t2).to.be.at.least(2 * OUTBOX_BACKOFF_BASE_MS);
      expect(outboxBackoffMs(3)).to.equal(4 * OUTBOX_BACKOFF_BASE_MS);
    });

    it('lets another worker reclaim a job whose lease expired', async () => {
      const id = await enqueue(ctx, topic, { x: 1 });
      expect((await claim(ctx, [topic], 1, 200, 'crashed')).map((j) => j.id)).to.deep.equal([id]);
      expect(await claim(ctx, [topic], 1, 60000, 'w2')).to.deep.equal([]); // lease still valid
      await until(async () => (await claim(ctx, [topic], 1, 60000, 'w2')).length === 1, 'the lease to expire');
      const row = (await findOutbox(ctx, id))!;
      expect(row.leasedBy).to.equal('w2');
      expect(row.attempts).to.equal(2);
    });

    it('processes exactly once under a simulated crash: late completion by the crashed worker is refused', async () => {
      const ids: number[] = [];
      for (let i = 0; i < 5; i++) ids.push(await enqueue(ctx, topic, { i }));
      // the crashed worker claims everything and dies before completing
      expect((await claim(ctx, [topic], 10, 200, 'crashed')).map((j) => j.id)).to.deep.equal(ids);
      const effects = new Map<number, number>();
      const survivor = startOutboxWorker({ [topic]: async (_p, job) => { effects.set(job.id, (effects.get(job.id) ?? 0) + 1); } },
        { pollMs: 20, workerId: 'survivor' });
      try {
        await until(async () => {
          for (const id of ids) if ((await findOutbox(ctx, id))!.status !== OutboxStatus.Done) return false;
          return true;
        }, 'the survivor to finish the jobs');
      } finally {
        await survivor.stop();
      }
      expect([...effects.keys()].sort((a, b) => a - b)).to.deep.equal(ids);
      expect([...effects.values()].every((n) => n === 1)).to.equal(true);
      // the crashed worker comes back and tries to complete: refused, nothing changes
      for (const id of ids) expect(await complete(ctx, id, 'crashed')).to.equal(false);
      for (const id of ids) expect(await complete(ctx, id, 'survivor')).to.equal(false);
      expect(await claim(ctx, [topic], 10, 60000, 'w3')).to.deep.equal([]);
    });
  });
}

describe('outbox', () => {
  contract('sqlite');
  contract('postgres');
});
