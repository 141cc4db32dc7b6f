/**
 * bench/mail: notification mail from an issue storm, on the embedded default (SQLite, BENCH_WORKERS
 * workers, 2 by default), to an SMTP server (`smtp-server`) in this process that reads each
 * message's recipient, Message-ID and the comment it is about, without parsing the rest.
 * BENCH_WATCHERS users (200) watch alice/storm; alice opens an issue (its mails are waited for and
 * not counted), then posts BENCH_COMMENTS comments (50), BENCH_CONCURRENCY (4) at a time: one mail
 * per watcher per comment (10,000).
 * - storm: mails per second (first comment posted to last mail received), `/api/v1/version` p50/p99
 *   polled every 20 ms while the mails flow, lost mails (expected minus distinct arrivals);
 * - kill -9: the same storm again with BENCH_KILL_COMMENTS comments (20), one worker killed with
 *   SIGKILL once a third of its mails arrived (the primary starts a new one; the dead worker's
 *   leased mails are sent again when their lease ends); lost mails, and duplicates: a second
 *   arrival of one comment's mail to one recipient, each checked to carry the first's Message-ID.
 */
import fs from 'node:fs';
import http from 'node:http';
import { SMTPServer } from 'smtp-server';
import { freePort, newServer, type TestServer } from '../test/helpers/server';
import { percentile as pct } from './util';

const WATCHERS = Number(process.env.BENCH_WATCHERS ?? '200');
const COMMENTS = Number(process.env.BENCH_COMMENTS ?? '50');
const KILL_COMMENTS = Number(process.env.BENCH_KILL_COMMENTS ?? '20');
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? '4');
const WORKERS = Number(process.env.BENCH_WORKERS ?? '2');

/** One received mail: to whom, its Message-ID, the storm comment it carries (from the body), when. */
interface Arrival { rcpt: string; messageId: string; comment: string; at: number }

/** An SMTP sink that keeps what the bench counts. */
class Sink {
  readonly arrivals: Arrival[] = [];
  private server: SMTPServer | null = null;
  constructor(readonly port: number) {}

  async start(): Promise<void> {
    this.server = new SMTPServer({
      authOptional: true, disabledCommands: ['STARTTLS', 'AUTH'], logger: false,
      onData: (stream, session, done) => {
        const parts: Buffer[] = [];
        stream.on('data', (d: Buffer) => parts.push(d));
        stream.on('end', () => {
          const raw = Buffer.concat(parts).toString('utf8');
          const messageId = /^Message-ID:\s*(<[^>]+>)/im.exec(raw)?.[1] ?? '';
          const comment = /storm-([a-z]+-\d+)/.exec(raw)?.[1] ?? '';
          for (const r of session.envelope.rcptTo) this.arrivals.push({ rcpt: r.address, messageId, comment, at: Date.now() });
          done();
        });
      },
    });
    // why: a killed worker's connections end with a reset, which is no fault of the sink.
    this.server.on('error', () => undefined);
    await new Promise<void>((resolve) => this.server!.listen(this.port, '127.0.0.1', resolve));
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  /** Arrivals of one storm's comments (by their tag prefix). */
  of(tag: string): Arrival[] {
    return this.arrivals.filter((a) => a.comment.startsWith(`${tag}-`));
  }
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });

function call(server: TestServer, method: string, p: string, token: string, body?: unknown, sudo?: string): Promise<{ status: number; json: unknown }> {
  const data = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { Authorization: `token ${token}` };
    if (data) Object.assign(headers, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(data) });
    if (sudo) headers.Sudo = sudo;
    const req = http.request(`${server.api}${p}`, { method, agent, headers }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(parts).toString() || 'null') as unknown }));
    });
    req.once('error', reject);
    req.end(data);
  });
}

/** Poll `/api/v1/version` every 20 ms until stopped; the latencies (ms). */
function pollVersion(server: TestServer): { stop: () => Promise<number[]> } {
  const times: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const t = performance.now();
      try {
        await new Promise<void>((resolve, reject) => http.get(`${server.api}/version`, { agent }, (res) => { res.resume(); res.on('end', resolve); }).once('error', reject));
        times.push(performance.now() - t);
      } catch { /* a restarting worker: not a latency */ }
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  return { stop: async () => { running = false; await loop; return times; } };
}

/** Wait until `count()` reaches `n` or nothing new arrived for `quietMs`. */
async function waitFor(count: () => number, n: number, quietMs: number): Promise<void> {
  let last = count();
  let since = Date.now();
  while (count() < n) {
    await new Promise((r) => setTimeout(r, 200));
    if (count() !== last) { last = count(); since = Date.now(); }
    if (Date.now() - since > quietMs) return;
  }
}

/** Post `n` comments tagged `tag-i`, CONCURRENCY at a time; when the first was posted. */
async function storm(server: TestServer, token: string, issue: number, tag: string, n: number): Promise<number> {
  const started = Date.now();
  let next = 0;
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < n) {
      const i = next++;
      const res = await call(server, 'POST', `/repos/alice/storm/issues/${issue}/comments`, token, { body: `Comment storm-${tag}-${i}: the build is red again.` });
      if (res.status !== 201) throw new Error(`comment: ${res.status} ${JSON.stringify(res.json)}`);
    }
  }));
  return started;
}

/** The worker processes of the forge's primary. */
function workerPids(server: TestServer): number[] {
  const pid = server.proc!.pid!;
  try { return fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number); } catch { return []; }
}

/** Distinct (recipient, comment) pairs, duplicates, and duplicates whose Message-ID differs from the first arrival's. */
function tally(arrivals: Arrival[]): { distinct: number; duplicates: number; differing: number } {
  const first = new Map<string, string>();
  let duplicates = 0;
  let differing = 0;
  for (const a of arrivals) {
    const key = `${a.rcpt} ${a.comment}`;
    const id = first.get(key);
    if (id === undefined) first.set(key, a.messageId);
    else {
      duplicates++;
      if (id !== a.messageId) differing++;
    }
  }
  return { distinct: first.size, duplicates, differing };
}

export async function run(): Promise<void> {
  const sink = new Sink(await freePort());
  await sink.start();
  const server = await newServer({
    workers: WORKERS,
    env: {
      FORGE__LOG__LEVEL: 'error', FORGE__MAILER__ENABLED: 'true', FORGE__MAILER__PROTOCOL: 'smtp', FORGE__MAILER__SMTP_ADDR: '127.0.0.1',
      FORGE__MAILER__SMTP_PORT: String(sink.port), FORGE__MAILER__FROM: 'forge@example.com', FORGE__SERVICE__ENABLE_NOTIFY_MAIL: 'true',
    },
  });
  const made = await server.cli(['admin', 'user', 'create', '--username', 'alice', '--password', 'alice-password', '--email', 'alice@example.com',
    '--admin', '--must-change-password=false', '--access-token', '--access-token-scopes', 'all']);
  if (made.code !== 0) throw new Error(made.stderr);
  const token = made.stdout.trim().split('\n').pop()!;
  await server.start();
  try {
    await call(server, 'POST', '/user/repos', token, { name: 'storm' });
    for (let i = 0; i < WATCHERS; i++) {
      const name = `w${i}`;
      const u = await call(server, 'POST', '/admin/users', token, { username: name, email: `${name}@example.com`, password: 'watcher-password', must_change_password: false });
      if (u.status !== 201) throw new Error(`user ${name}: ${u.status}`);
      await call(server, 'PUT', '/repos/alice/storm/subscription', token, undefined, name);
    }
    const issue = (await call(server, 'POST', '/repos/alice/storm/issues', token, { title: 'Nightly build fails' })).json as { number: number };
    await waitFor(() => sink.arrivals.length, WATCHERS, 30_000);
    if (sink.arrivals.length < WATCHERS) throw new Error(`the issue's mails did not arrive: ${sink.arrivals.length} of ${WATCHERS}`);

    // storm
    const expected = COMMENTS * WATCHERS;
    const poll = pollVersion(server);
    const started = await storm(server, token, issue.number, 'a', COMMENTS);
    await waitFor(() => sink.of('a').length, expected, 30_000);
    const latencies = await poll.stop();
    const got = sink.of('a');
    const last = Math.max(...got.map((a) => a.at));
    const rate = got.length / ((last - started) / 1000);
    const stormTally = tally(got);

    // kill -9 of a worker mid-storm
    const killExpected = KILL_COMMENTS * WATCHERS;
    const before = workerPids(server);
    const killStarted = await storm(server, token, issue.number, 'k', KILL_COMMENTS);
    await waitFor(() => sink.of('k').length, Math.floor(killExpected / 3), 60_000);
    const victim = before[before.length - 1];
    process.kill(victim, 'SIGKILL');
    const killedAt = Date.now();
    // why: the dead worker's leased mails wait for their lease (60 s) before another sender takes them.
    await waitFor(() => tally(sink.of('k')).distinct, killExpected, 90_000);
    await new Promise((r) => setTimeout(r, 3_000));
    const killTally = tally(sink.of('k'));
    const killLast = Math.max(...sink.of('k').map((a) => a.at));

    const rows: [string, string, string][] = [
      ['mails delivered per second to a local SMTP server', rate.toFixed(0), 'at least 500'],
      ['/api/v1/version p50 during the storm (ms)', pct(latencies, 50).toFixed(1), ''],
      ['/api/v1/version p99 during the storm (ms)', pct(latencies, 99).toFixed(1), 'under 50'],
      ['lost mails (storm)', String(expected - stormTally.distinct), '0'],
      ['duplicated mails (storm)', String(stormTally.duplicates), ''],
      ['lost mails after kill -9 of a worker', String(killExpected - killTally.distinct), '0'],
      ['duplicated mails after kill -9 of a worker', String(killTally.duplicates), 'counted'],
      ['... of which with a different Message-ID', String(killTally.differing), '0'],
    ];
    process.stdout.write(`\nmail: ${WATCHERS} watchers x ${COMMENTS} comments = ${expected} mails, ${WORKERS} workers, SQLite; `
      + `kill run ${KILL_COMMENTS} comments = ${killExpected} mails, worker ${victim} killed ${((killedAt - killStarted) / 1000).toFixed(1)} s in, last mail ${((killLast - killedAt) / 1000).toFixed(1)} s after\n\n`);
    process.stdout.write('| measure | forge | target |\n|---|---|---|\n');
    for (const [m, v, t] of rows) process.stdout.write(`| ${m} | ${v} | ${t} |\n`);
  } finally {
    await server.destroy();
    await sink.stop();
  }
}
