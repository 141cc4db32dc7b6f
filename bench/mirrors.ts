/**
 * bench/mirrors: migrations and pull mirrors between two forges on this machine.
 * - `src` holds bench/big: the generated repository (BENCH_COMMITS, 20,000 commits) pushed over
 *   HTTP, then, the server stopped, BENCH_ISSUES (10,000) issues with BENCH_COMMENTS (50,000)
 *   comments and 12 labels written by bulk SQL as the API would have written them (counters,
 *   num_comments, label counts, the keyword index), and the server started again. Its access log
 *   is on (level Info, JSON lines in a file), so every request it answers is recorded.
 * - `dst` migrates it (POST /repos/migrate, service gitea, with issues, comments, labels,
 *   milestones, pull requests and releases), timed from the request until its answer; afterwards
 *   dst must hold every issue and comment, or the run fails.
 * - The baseline is what the migration cannot do without: `git clone --mirror` of bench/big from
 *   src, plus the very API reads the migration made, taken from src's access log (the GETs under
 *   /api/v1 within the migration's time) and sent again in their order with the same token from a
 *   kept-alive client, as many at once as the migration had in flight (read from the log).
 * - BENCH_MIRRORS (100) repositories on src with one commit each, a pull mirror of each on dst
 *   (interval 0: synced only on demand), one more commit in each upstream, then the clock: POST
 *   /mirror-sync for every mirror, until every mirror's main, as dst's API shows it, is its
 *   upstream's new head; `GET /api/v1/version` on dst evenly paced meanwhile (BENCH_PROBE_RATE, 50/s).
 * Targets (the issue's): the migration within 1.5 times the baseline; all mirrors in sync in under
 * 30 s; /version p99 under 50 ms while they sync.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import { newServer, type TestServer } from '../test/helpers/server';
import { benchHome, COMMITS, generateSource, gitEnv, pushSource, timedGit } from './util';
import { pacedUntilStopped, type Probe } from './http';
import {
  checkCounters, COMMENT_COLS, commentBody, COUNTER_COLS, dropIndexes, ISSUE_COLS, ISSUE_LABEL_COLS, issueBody, LABEL_COLS, LABELS, openBulk, prng, title, type Bulk,
} from './issues';

const ISSUES = Number(process.env.BENCH_ISSUES ?? '10000');
const COMMENTS = Number(process.env.BENCH_COMMENTS ?? '50000');
const MIRRORS = Number(process.env.BENCH_MIRRORS ?? '100');
const PROBE_RATE = Number(process.env.BENCH_PROBE_RATE ?? '50');
/** Requests of the replay in flight at once; by default as many as the migration had (read from the access log). */
const REPLAY_CONCURRENCY = process.env.BENCH_REPLAY_CONCURRENCY ? Number(process.env.BENCH_REPLAY_CONCURRENCY) : null;
const KEEP = !!process.env.BENCH_KEEP;
/** Targets of the issue. */
const MIGRATION_RATIO = 1.5;
const SYNC_SECONDS = 30;
const P99_MS = 50;
/** How long the mirrors may take before the run fails. */
const SYNC_LIMIT_MS = 300_000;
const POLL_MS = 200;
/** Users of src besides bench who post issues and comments; dst knows none of them, so their rows keep original_author. */
const POSTERS = ['dev1', 'dev2', 'dev3', 'dev4'];
const DAY = 86_400;

const say = (m: string) => process.stderr.write(`[mirrors] ${m}\n`);
const since = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e9;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------------------------------------
// HTTP

/** Kept-alive connections for the bench's own API calls (set-up, checks, polls). */
const calls = new http.Agent({ keepAlive: true, maxSockets: 16 });

interface Answer { status: number; text: string; headers: http.IncomingHttpHeaders }

/** One API request with node's client: no time limit (the migration answers when it is done). */
function call(base: string, method: string, apiPath: string, token: string | null, body?: unknown): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (token) headers.Authorization = `token ${token}`;
    if (data) Object.assign(headers, { 'Content-Type': 'application/json', 'Content-Length': String(data.length) });
    const req = http.request(`${base}${apiPath}`, { method, agent: calls, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => { text += d; });
      res.once('error', reject);
      res.once('end', () => resolve({ status: res.statusCode ?? 0, text, headers: res.headers }));
    });
    req.once('error', reject);
    req.end(data);
  });
}

/** A request that must answer `want`; answers the parsed body. */
async function ok<T>(base: string, method: string, apiPath: string, token: string, want: number, body?: unknown): Promise<T> {
  const r = await call(base, method, apiPath, token, body);
  if (r.status !== want) throw new Error(`${method} ${apiPath}: ${r.status} ${r.text.slice(0, 500)}`);
  return (r.text ? JSON.parse(r.text) : null) as T;
}

/** Run `fn` over `items`, at most `n` at once. */
async function eachLimit<T>(items: T[], n: number, fn: (item: T, i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      await fn(items[i], i);
    }
  }));
}

// ---------------------------------------------------------------------------------------------
// The source's tracker, seeded with the server stopped

interface Tracker { seconds: number; open: number; closed: number; comments: number; labelled: number; links: number }

/**
 * Write ISSUES issues (numbers 1..N, created over three years, older ones more often closed) with
 * COMMENTS comments thrown at random issues, the 12 labels of bench/issues on their share of the
 * issues, the counters and the keyword index into repository `repoId`, as bench/issues seeds.
 */
async function seedTracker(db: Bulk, repoId: number, posterIds: number[]): Promise<Tracker> {
  const t0 = process.hrtime.bigint();
  const r = prng(20261201);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
  const end = Math.floor(Date.now() / 1000) - 3600;
  const start = end - 3 * 365 * DAY;
  const out: Tracker = { seconds: 0, open: 0, closed: 0, comments: 0, labelled: 0, links: 0 };
  if (!db.pg) {
    for (const p of ['PRAGMA journal_mode = WAL', 'PRAGMA synchronous = OFF', 'PRAGMA cache_size = -262144', 'PRAGMA temp_store = MEMORY']) await db.run(p);
  } else {
    await db.run('SET synchronous_commit = off');
  }
  const indexes = await dropIndexes(db, ['issue', 'comment', 'issue_label', ...(db.pg ? ['issue_fts', 'comment_fts'] : [])]);
  const nextId = async (table: string) => Number((await db.rows(`SELECT COALESCE(MAX(id), 0) AS m FROM ${table}`))[0].m) + 1;
  let issueId = await nextId('issue');
  let commentId = await nextId('comment');
  let linkId = await nextId('issue_label');
  const labelBase = await nextId('label');
  const labelCounts = LABELS.map(() => ({ all: 0, closed: 0 }));
  const perIssue = new Uint32Array(ISSUES + 1);
  for (let k = 0; k < COMMENTS; k++) perIssue[1 + Math.floor(r() * ISSUES)]++;

  const issues: (number | string | boolean)[][] = [];
  const comments: (number | string | boolean)[][] = [];
  const links: (number | string | boolean)[][] = [];
  const flush = async () => {
    await db.insert('issue', ISSUE_COLS, issues.splice(0));
    await db.insert('comment', COMMENT_COLS, comments.splice(0));
    await db.insert('issue_label', ISSUE_LABEL_COLS, links.splice(0));
  };
  await db.run('BEGIN');
  for (let i = 1; i <= ISSUES; i++) {
    const id = issueId++;
    const created = start + Math.floor(((i - 1) * (end - start - DAY)) / ISSUES);
    const n = perIssue[i];
    const span = Math.min(end - created, Math.floor(r() * r() * 60 * DAY) + 600);
    let last = created;
    for (let j = 0; j < n; j++) {
      const at = Math.min(end, created + Math.floor((span * (j + r())) / n));
      comments.push([commentId++, 0, pick(posterIds), id, commentBody(r, false), at, at]);
      last = at;
    }
    out.comments += n;
    // why: older issues are more often closed (5% of the newest, half of the oldest), as on a real tracker.
    const closed = r() < 0.05 + 0.45 * (1 - i / ISSUES);
    const closedUnix = closed ? Math.min(end, last + 60 + Math.floor(r() * 7 * DAY)) : 0;
    issues.push([id, repoId, i, pick(posterIds), title(r, false), issueBody(r, false), 0, 0, closed, false, n, '', 0, false, 0,
      closedUnix, created, closed ? closedUnix : last]);
    if (closed) out.closed++;
    else out.open++;
    let any = false;
    LABELS.forEach((l, k) => {
      if (r() >= l.share) return;
      links.push([linkId++, id, labelBase + k]);
      out.links++;
      labelCounts[k].all++;
      if (closed) labelCounts[k].closed++;
      any = true;
    });
    if (any) out.labelled++;
    if (issues.length >= 5000 || comments.length >= 50_000) await flush();
  }
  await flush();
  const made = start - DAY;
  await db.insert('label', LABEL_COLS, LABELS.map((l, k) => [labelBase + k, repoId, 0, l.name, false, l.description, l.color,
    labelCounts[k].all, labelCounts[k].closed, 0, made, made]));
  await db.run('DELETE FROM repo_issue_counter WHERE repo_id = $1', [repoId]);
  await db.insert('repo_issue_counter', COUNTER_COLS, [[repoId, ISSUES, ISSUES, out.closed, 0, 0, 0, 0]]);
  await db.run('COMMIT');

  // the keyword index: one document per issue (title, newline, body) and per plain comment, as the app writes them
  if (db.pg) {
    await db.run(`INSERT INTO issue_fts (id, repo_id, is_pull, is_closed, created_unix, doc)
      SELECT id, repo_id, is_pull, is_closed, created_unix, to_tsvector('simple', name || chr(10) || content) FROM issue WHERE repo_id = $1`, [repoId]);
    await db.run(`INSERT INTO comment_fts (id, issue_id, repo_id, is_pull, is_closed, created_unix, doc)
      SELECT c.id, c.issue_id, i.repo_id, i.is_pull, i.is_closed, i.created_unix, to_tsvector('simple', c.content)
      FROM comment c JOIN issue i ON i.id = c.issue_id WHERE i.repo_id = $1 AND c.type = 0 AND c.content <> ''`, [repoId]);
  } else {
    await db.run('BEGIN');
    await db.run('INSERT INTO issue_fts (rowid, body) SELECT id, name || char(10) || content FROM issue WHERE repo_id = $1', [repoId]);
    await db.run(`INSERT INTO comment_fts (rowid, body) SELECT c.id, c.content FROM comment c JOIN issue i ON i.id = c.issue_id
      WHERE i.repo_id = $1 AND c.type = 0 AND c.content <> ''`, [repoId]);
    await db.run('COMMIT');
  }
  for (const sql of indexes) await db.run(sql);
  if (db.pg) {
    for (const t of ['issue', 'comment', 'label', 'issue_label']) await db.run(`SELECT setval(pg_get_serial_sequence('${t}', 'id'), (SELECT MAX(id) FROM ${t}))`);
    await db.run('VACUUM ANALYZE');
  } else {
    await db.run('ANALYZE');
    await db.run('PRAGMA wal_checkpoint(TRUNCATE)');
  }
  await checkCounters(db, repoId);
  out.seconds = since(t0);
  return out;
}

// ---------------------------------------------------------------------------------------------
// The access log and its replay

/** One access line of src (the JSON format of docs/logging.md). */
interface AccessLine { type?: string; time: string; method: string; uri: string; status: number; duration_ms: number; dropped?: number }

function accessLines(s: TestServer): AccessLine[] {
  const file = path.join(s.dataDir, 'log', 'access.log');
  return fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as AccessLine);
}

/** Wait until src's access log has stopped growing (its writer is asynchronous). */
async function settledLog(s: TestServer): Promise<void> {
  const file = path.join(s.dataDir, 'log', 'access.log');
  let size = -1;
  for (let i = 0; i < 50; i++) {
    const now = fs.statSync(file).size;
    if (now === size) return;
    size = now;
    await sleep(200);
  }
}

/**
 * How many requests the migration had in flight at once: the most requests under way together, from
 * the server's start times (whole milliseconds, so each span is taken to end a millisecond early:
 * a request sent after the one before it ended never counts as beside it) and durations.
 */
function inFlight(lines: AccessLine[]): number {
  const spans = lines.map((l) => ({ start: Date.parse(l.time), end: Date.parse(l.time) + Math.max(0, l.duration_ms - 1) })).sort((a, b) => a.start - b.start);
  let active: number[] = [];
  let most = 1;
  for (const s of spans) {
    active = active.filter((e) => e > s.start);
    active.push(s.end);
    most = Math.max(most, active.length);
  }
  return most;
}

/** Send the recorded GETs again in their order, `n` at once, with kept-alive connections; answers the seconds taken. */
async function replay(s: TestServer, token: string, lines: AccessLine[], n: number): Promise<number> {
  const pool = new http.Agent({ keepAlive: true, maxSockets: n });
  // why: the migration's own headers (services/migration/gitea-source): its token and JSON.
  const headers = { Accept: 'application/json', Authorization: `token ${token}` };
  const mismatches: string[] = [];
  const t0 = process.hrtime.bigint();
  await eachLimit(lines, n, (l) => new Promise<void>((resolve, reject) => {
    http.get(`${s.url.replace(/\/$/, '')}${l.uri}`, { agent: pool, headers }, (res) => {
      res.resume();
      res.once('error', reject);
      res.once('end', () => {
        if (res.statusCode !== l.status) mismatches.push(`${l.uri}: ${res.statusCode}, the migration had ${l.status}`);
        resolve();
      });
    }).once('error', reject);
  }));
  const seconds = since(t0);
  pool.destroy();
  if (mismatches.length) throw new Error(`the replay was answered otherwise than the migration (${mismatches.length}): ${mismatches.slice(0, 5).join('; ')}`);
  return seconds;
}

// ---------------------------------------------------------------------------------------------
// The scenario

/** Where the server's output and its forge.log end now, so a later wait reads only what comes after. */
function outputMark(s: TestServer): { output: number; log: number } {
  const log = path.join(s.dataDir, 'log', 'forge.log');
  return { output: s.output.length, log: fs.existsSync(log) ? fs.statSync(log).size : 0 };
}

/** Wait until the server's output (or its forge.log) has `text` after `mark`; says so and goes on after `ms`. */
async function waitForLine(s: TestServer, mark: { output: number; log: number }, text: string, ms: number): Promise<void> {
  const log = path.join(s.dataDir, 'log', 'forge.log');
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (s.output.includes(text, mark.output) || (fs.existsSync(log) && fs.readFileSync(log).subarray(mark.log).includes(text))) return;
    await sleep(200);
  }
  say(`the server did not print '${text}' within ${ms / 1000} s; going on`);
}

/** A user with an all-scoped token, made through the CLI; answers the token. */
async function cliUser(s: TestServer, name: string, token: boolean): Promise<string> {
  const made = await s.cli(['admin', 'user', 'create', '--username', name, '--password', `${name}-password`, '--email', `${name}@example.com`,
    '--must-change-password=false', ...(token ? ['--access-token', '--access-token-scopes', 'all'] : [])]);
  if (made.code !== 0) throw new Error(made.stderr);
  return made.stdout.trim().split('\n').pop()!;
}

/** A ref of a bare repository on disk: loose, else packed; null when absent. */
function diskRef(dir: string, ref: string): string | null {
  try {
    return fs.readFileSync(path.join(dir, ref), 'utf8').trim();
  } catch { /* packed */ }
  try {
    const line = fs.readFileSync(path.join(dir, 'packed-refs'), 'utf8').split('\n').find((l) => l.endsWith(` ${ref}`));
    return line ? line.split(' ')[0] : null;
  } catch {
    return null;
  }
}

/** Wait until a server's outbox holds no pending or leased job (fails after a minute). */
async function outboxIdle(s: TestServer): Promise<void> {
  const db = await openBulk(s);
  try {
    for (const deadline = Date.now() + 60_000; ;) {
      const [r] = await db.rows("SELECT COUNT(*) AS n FROM outbox WHERE status IN ('pending', 'leased')");
      if (Number(r.n) === 0) return;
      if (Date.now() > deadline) throw new Error(`the outbox still holds ${r.n} jobs after a minute`);
      await sleep(100);
    }
  } finally {
    await db.close();
  }
}

interface Result {
  migrationS: number; cloneS: number; replayS: number; replayed: number; concurrency: number;
  dstIssues: number; dstComments: number; dstLabels: number; tracker: Tracker;
  syncS: number; probe: Probe; setup: Record<string, number>;
}

export async function run(): Promise<void> {
  const setup: Record<string, number> = {};
  const home = benchHome();
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-mirrors-'));
  let t = process.hrtime.bigint();
  await generateSource(home);
  setup['source repository (cached in .bench/)'] = since(t);

  t = process.hrtime.bigint();
  // why: access lines are Info lines; src writes them, as JSON, to its access.log, which the baseline replays.
  const src = await newServer({ env: { FORGE__LOG__LEVEL: 'info', FORGE__LOG__MODE: 'file', FORGE__LOG__FORMAT: 'json' } });
  const dst = await newServer({ env: { FORGE__LOG__LEVEL: 'error', FORGE__MIGRATIONS__ALLOW_LOCALNETWORKS: 'true' } });
  let done = false;
  try {
    const srcToken = await cliUser(src, 'bench', true);
    for (const p of POSTERS) await cliUser(src, p, false);
    const dstToken = await cliUser(dst, 'bench', true);
    await Promise.all([src.start(), dst.start()]);
    setup['two servers, users'] = since(t);

    // src: bench/big, its history pushed, its tracker seeded with the server stopped
    t = process.hrtime.bigint();
    say(`pushing ${COMMITS} commits to src bench/big ...`);
    await pushSource(src, srcToken, home, 'big');
    const big = await ok<{ id: number }>(src.api, 'GET', '/repos/bench/big', srcToken, 200);
    setup['push of bench/big'] = since(t);
    await src.stop();
    say(`seeding ${ISSUES} issues and ${COMMENTS} comments ...`);
    let db = await openBulk(src);
    let tracker: Tracker;
    try {
      const users = await db.rows(`SELECT id, lower_name FROM users WHERE lower_name IN (${['bench', ...POSTERS].map((p) => `'${p}'`).join(', ')})`);
      tracker = await seedTracker(db, big.id, users.map((u) => Number(u.id)));
    } finally {
      await db.close();
    }
    setup['seeding (bulk SQL, indexes, ANALYZE)'] = tracker.seconds;
    say(`seeded in ${tracker.seconds.toFixed(1)} s: ${tracker.open} open and ${tracker.closed} closed issues, ${tracker.comments} comments, ${tracker.labelled} labelled`);
    t = process.hrtime.bigint();
    const mark = outputMark(src);
    await src.start();
    // why: after a start the reconciler checks every repository once; the migration is timed after it.
    await waitForLine(src, mark, 'reconciler: ', 120_000);
    setup['restart of src'] = since(t);

    // the migration, timed from the request until its answer
    say('migrating bench/big from src to dst ...');
    const fromMs = Date.now();
    t = process.hrtime.bigint();
    const migrated = await call(dst.api, 'POST', '/repos/migrate', dstToken, {
      clone_addr: `${src.url}bench/big.git`, repo_name: 'big', service: 'gitea', auth_username: 'bench', auth_token: srcToken,
      issues: true, labels: true, milestones: true, pull_requests: true, releases: true, wiki: false, mirror: false,
    });
    const migrationS = since(t);
    const toMs = Date.now();
    if (migrated.status !== 201) throw new Error(`the migration failed after ${migrationS.toFixed(1)} s: ${migrated.status} ${migrated.text.slice(0, 1000)}`);
    say(`migrated in ${migrationS.toFixed(1)} s`);

    // dst holds every issue, comment and label, or the run fails
    const dstBig = JSON.parse(migrated.text) as { id: number; open_issues_count: number };
    const listed = await call(dst.api, 'GET', '/repos/bench/big/issues?state=all&type=issues&limit=1', dstToken);
    db = await openBulk(dst);
    let dstIssues: number;
    let dstComments: number;
    let dstLabels: number;
    try {
      const [row] = await db.rows(`SELECT (SELECT COUNT(*) FROM issue WHERE repo_id = $1 AND is_pull = $2) AS issues,
        (SELECT COUNT(*) FROM comment c JOIN issue i ON i.id = c.issue_id WHERE i.repo_id = $1 AND c.type = 0) AS comments,
        (SELECT COUNT(*) FROM issue_label il JOIN issue i ON i.id = il.issue_id WHERE i.repo_id = $1) AS labelled`, [dstBig.id, false]);
      dstIssues = Number(row.issues);
      dstComments = Number(row.comments);
      dstLabels = Number(row.labelled);
    } finally {
      await db.close();
    }
    const problems = [
      dstIssues !== ISSUES && `${dstIssues} issues (want ${ISSUES})`,
      dstComments !== COMMENTS && `${dstComments} comments (want ${COMMENTS})`,
      Number(listed.headers['x-total-count']) !== ISSUES && `the API lists ${listed.headers['x-total-count']} issues (want ${ISSUES})`,
      dstBig.open_issues_count !== tracker.open && `open_issues_count ${dstBig.open_issues_count} (want ${tracker.open})`,
      dstLabels !== tracker.links && `${dstLabels} labels on issues (want ${tracker.links})`,
    ].filter(Boolean);
    if (problems.length) throw new Error(`the migrated repository is incomplete: ${problems.join(', ')}`);
    say(`dst bench/big: ${dstIssues} issues (${dstBig.open_issues_count} open), ${dstComments} comments, ${dstLabels} issue labels`);

    // the baseline: git clone --mirror, and the migration's API reads sent again
    await settledLog(src);
    const all = accessLines(src);
    const dropped = all.filter((l) => l.type !== 'access' && l.type !== 'git');
    if (dropped.length) throw new Error(`src's access log is incomplete: ${JSON.stringify(dropped.slice(0, 3))}`);
    const reads = all.filter((l) => l.type === 'access' && l.method === 'GET' && l.uri.startsWith('/api/v1/')
      && Date.parse(l.time) >= fromMs - 1 && Date.parse(l.time) <= toMs);
    if (reads.length < ISSUES) throw new Error(`src's access log holds only ${reads.length} API reads of the migration`);
    const concurrency = REPLAY_CONCURRENCY ?? inFlight(reads);
    say('git clone --mirror of bench/big ...');
    const mirrorDir = path.join(work, 'big.git');
    const cloneS = await timedGit(['clone', '-q', '--mirror', `http://bench:${srcToken}@127.0.0.1:${src.httpPort}/bench/big.git`, mirrorDir], gitEnv(home));
    fs.rmSync(mirrorDir, { recursive: true, force: true });
    say(`cloned in ${cloneS.toFixed(1)} s; replaying ${reads.length} API reads, ${concurrency} at once ...`);
    const replayS = await replay(src, srcToken, reads, concurrency);
    say(`replayed in ${replayS.toFixed(1)} s`);

    // the mirrors: upstreams on src, pull mirrors of them on dst, one more commit upstream
    t = process.hrtime.bigint();
    const names = Array.from({ length: MIRRORS }, (_, i) => String(i + 1).padStart(3, '0'));
    say(`making ${MIRRORS} upstream repositories on src and their pull mirrors on dst ...`);
    await eachLimit(names, 4, async (n) => {
      await ok(src.api, 'POST', '/user/repos', srcToken, 201, { name: `up-${n}`, auto_init: true, default_branch: 'main' });
    });
    await eachLimit(names, 4, async (n) => {
      const m = await ok<{ mirror: boolean }>(dst.api, 'POST', '/repos/migrate', dstToken, 201, {
        clone_addr: `${src.url}bench/up-${n}.git`, repo_name: `mirror-${n}`, mirror: true, mirror_interval: '0',
      });
      if (!m.mirror) throw new Error(`mirror-${n} is not a mirror`);
    });
    const heads = new Map<string, string>();
    await eachLimit(names, 4, async (n) => {
      const c = await ok<{ commit: { sha: string } }>(src.api, 'POST', `/repos/bench/up-${n}/contents/upstream.txt`, srcToken, 201, {
        content: Buffer.from(`one more commit upstream of mirror ${n}\n`).toString('base64'), message: 'One more commit upstream', branch: 'main',
      });
      heads.set(n, c.commit.sha);
    });
    for (const n of names) {
      const b = await ok<{ commit: { id: string } }>(dst.api, 'GET', `/repos/bench/mirror-${n}/branches/main`, dstToken, 200);
      if (b.commit.id === heads.get(n)) throw new Error(`mirror-${n} already has its upstream's new commit`);
    }
    // why: the set-up's own after-work (events of the new repositories and commits) is not counted in the sync.
    await Promise.all([outboxIdle(src), outboxIdle(dst)]);
    setup[`${MIRRORS} upstreams, their mirrors, a commit in each`] = since(t);

    // the clock: a sync asked for every mirror, until dst's API shows every upstream's new head
    say(`syncing ${MIRRORS} mirrors ...`);
    const probe = pacedUntilStopped(`${dst.api}/version`, PROBE_RATE);
    const t0 = process.hrtime.bigint();
    await eachLimit(names, 8, async (n) => { await ok(dst.api, 'POST', `/repos/bench/mirror-${n}/mirror-sync`, dstToken, 200); });
    const pending = new Set(names);
    let syncS = 0;
    for (let round = 0; pending.size > 0; round++) {
      for (const n of [...pending]) {
        const dir = path.join(dst.dataDir, 'repositories', 'bench', `mirror-${n}.git`);
        // why: the ref on disk is read without asking the server, so polling adds no load to what is measured; dst's
        // API is asked once the ref moved (or when the ref cannot be read there, and every 25th round in any case).
        const onDisk = diskRef(dir, 'refs/heads/main');
        if (onDisk !== null && onDisk !== heads.get(n) && round % 25 !== 24) continue;
        const b = await ok<{ commit: { id: string } }>(dst.api, 'GET', `/repos/bench/mirror-${n}/branches/main`, dstToken, 200);
        if (b.commit.id === heads.get(n)) {
          pending.delete(n);
          syncS = since(t0);
        }
      }
      if (pending.size === 0) break;
      if (since(t0) * 1000 > SYNC_LIMIT_MS) {
        await probe.stop();
        throw new Error(`${pending.size} of ${MIRRORS} mirrors were not in sync after ${SYNC_LIMIT_MS / 1000} s (${[...pending].slice(0, 5).map((n) => `mirror-${n}`).join(', ')} ...)`);
      }
      await sleep(POLL_MS);
    }
    const probed = await probe.stop();
    say(`all ${MIRRORS} mirrors in sync after ${syncS.toFixed(1)} s; /version p99 ${probed.p99.toFixed(1)} ms`);

    print({
      migrationS, cloneS, replayS, replayed: reads.length, concurrency, dstIssues, dstComments, dstLabels, tracker, syncS, probe: probed, setup,
    }, src);
    done = true;
  } finally {
    calls.destroy();
    await Promise.all([src.destroy(), dst.destroy()]);
    fs.rmSync(work, { recursive: true, force: true });
    fs.rmSync(home, { recursive: true, force: true });
    if (done && !KEEP) {
      fs.rmSync(src.dataDir, { recursive: true, force: true });
      fs.rmSync(dst.dataDir, { recursive: true, force: true });
    } else {
      say(`kept: src ${src.dataDir}, dst ${dst.dataDir}`);
    }
  }
}

function print(r: Result, src: TestServer): void {
  const s1 = (x: number) => `${x.toFixed(1)} s`;
  const met = (b: boolean) => (b ? 'met' : 'NOT met');
  const baseline = r.cloneS + r.replayS;
  const ratio = r.migrationS / baseline;
  const db = src.env.FORGE__DATABASE__DB_TYPE ?? 'sqlite3';
  process.stdout.write(`\nbench/mirrors (${db}, one worker each): bench/big of ${COMMITS.toLocaleString('en-US')} commits with `
    + `${ISSUES.toLocaleString('en-US')} issues and ${COMMENTS.toLocaleString('en-US')} comments migrated from a second forge on this machine `
    + `(issues, comments, labels, milestones, pull requests, releases); then ${MIRRORS} pull mirrors synced after one new commit upstream each.\n\n`);
  process.stdout.write('| measure | baseline | result | target | met |\n|---|---:|---:|---|---|\n');
  process.stdout.write(`| migration time | ${s1(baseline)} (git clone --mirror ${s1(r.cloneS)} + the migration's ${r.replayed.toLocaleString('en-US')} API reads `
    + `${s1(r.replayS)}, ${r.concurrency} at once as the migration read them, kept alive) | ${s1(r.migrationS)} (${ratio.toFixed(2)}x) | ≤ ${MIGRATION_RATIO}x | ${met(ratio <= MIGRATION_RATIO)} |\n`);
  process.stdout.write(`| time until all ${MIRRORS} mirrors are in sync | — | ${s1(r.syncS)} | < ${SYNC_SECONDS} s | ${met(r.syncS < SYNC_SECONDS)} |\n`);
  process.stdout.write(`| \`/api/v1/version\` p99 while they sync | — | ${r.probe.p99.toFixed(1)} ms (p50 ${r.probe.p50.toFixed(1)} ms, ${r.probe.samples} requests at `
    + `${PROBE_RATE}/s over ${r.probe.seconds.toFixed(1)} s, ${r.probe.errors} errors) | < ${P99_MS} ms | ${met(r.probe.p99 < P99_MS && r.probe.errors === 0)} |\n`);
  process.stdout.write(`\nMigrated: ${r.dstIssues.toLocaleString('en-US')} issues (${r.tracker.open.toLocaleString('en-US')} open), `
    + `${r.dstComments.toLocaleString('en-US')} comments and ${r.dstLabels.toLocaleString('en-US')} issue labels, as on the source. `
    + `Set-up: ${Object.entries(r.setup).map(([k, v]) => `${k} ${s1(v)}`).join('; ')}.\n`);
}
