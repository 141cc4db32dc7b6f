/**
 * bench/issues: the issue tracker at scale, on the embedded default (SQLite) and, with
 * BENCH_DB=sqlite3,postgres, also on PostgreSQL (with Redis, in cluster mode, as a PostgreSQL
 * installation runs). For each database:
 * - user `alice` (not an administrator) and her private repository alice/big, made through the CLI
 *   and the API; then, the server stopped, a bulk seeder writing SQL directly in big transactions:
 *   100,000 issues in alice/big (numbers 1..N, created over three years, older ones more often
 *   closed) with 500,000 comments spread over them, plus one issue with 10,000 comments; 12 labels
 *   (`bug` on about 10% of the issues); the keyword index (`issue_fts`/`comment_fts`), the word
 *   `segfault` in about 1% of the issues and 0.1% of the comments; 999 more repositories of alice
 *   (copies of alice/big's row and units, as repository creation writes them) with 10 issues each;
 *   every counter (repo_issue_counter, label counts, num_comments, users.num_repos) matching the
 *   rows; then the indexes, ANALYZE (PostgreSQL: VACUUM ANALYZE), and the server started again;
 * - median and p99 (with 15 samples, the slowest) of 15 sequential requests, after warm-up rounds, of:
 *   open issues page 1 and page 1,000, one label, a keyword (`q`), `/repos/issues/search` as alice
 *   (1,000 repositories), the timeline page 1 and page 100 of the 10,000-comment issue;
 * - create-issue throughput, 64 connections POSTing for BENCH_DURATION seconds (autocannon), and the
 *   numbering after it: count = highest number = the counter's max_index.
 * - the page of an issue with 250 comments of 16 KiB each (issue 35, bench/issue-page.ts): first and
 *   warm page time, and /api/v1/version's p99 while the page is requested (target under 50 ms); on a
 *   fresh server of its own;
 * - the push's answer (bench/push-answer.ts): `git push` p50 now and, with BENCH_BEFORE_CHECKOUT, on a
 *   checkout built before the push's rows were written on its answer path (target within 10%);
 * - references in a push (bench/push-refs.ts): 100 commits pushed to a repository with 10,000
 *   issues, timed until the outbox is idle, without references, each referencing an issue, each
 *   closing one (target: references at most 1.3 times the push without).
 * `npm run bench -- issues [tracker] [page] [push] [refs]` runs the parts named (all without a name).
 * BENCH_KEEP=1 keeps the seeded data directory (and PostgreSQL database) for EXPLAIN.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import autocannon from 'autocannon';
import sqlite3 from 'sqlite3';
import { Client } from 'pg';
import { newServer, type TestServer } from '../test/helpers/server';
import { agent, timedGet } from './http';
import { median } from './util';
import { benchIssuePage, printIssuePage } from './issue-page';
import { pushAnswerRows } from './push-answer';
import { benchPushRefs, pushRefsRows } from './push-refs';

const RUNS = Number(process.env.BENCH_RUNS ?? '15');
/** Rounds over every read scenario before any is measured (BENCH_WARMUP). */
const WARMUP = Number(process.env.BENCH_WARMUP ?? '10');
const ISSUES = Number(process.env.BENCH_ISSUES ?? '100000');
const COMMENTS = Number(process.env.BENCH_COMMENTS ?? '500000');
const HOT_COMMENTS = Number(process.env.BENCH_HOT_COMMENTS ?? '10000');
const REPOS = Number(process.env.BENCH_REPOS ?? '1000');
const SMALL_REPO_ISSUES = 10;
const CREATE_SECONDS = Number(process.env.BENCH_DURATION ?? '10');
const CONNECTIONS = 64;
const WORKERS = Number(process.env.BENCH_WORKERS ?? '1');
const KEEP = !!process.env.BENCH_KEEP;
/** Targets of the issue. */
const P50_MS = 15;
const P99_MS = 50;
const DEEP_RATIO = 1.5;
const CREATE_RATE = 500;
const SEED_SECONDS = 120;

const KEYWORD = 'segfault';
const LABEL = 'bug';
const DEEP_PAGE = 1000;
const TIMELINE_DEEP = 100;
/** The issue with HOT_COMMENTS comments: a recent one, kept open. */
export const HOT_INDEX = Math.max(1, Math.round(ISSUES * 0.9));
const DAY = 86_400;

// ---------------------------------------------------------------------------------------------
// Text: a deterministic generator of issue-tracker prose (titles, bodies, comments).

/** A small fast PRNG (mulberry32), so every run seeds the same data (exported for bench/mirrors). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SUBJECTS = ['Crash', 'Error', 'Timeout', 'Wrong result', 'Slow response', 'Panic', 'Broken link', 'Missing translation', 'Regression',
  'Memory leak', 'Race condition', 'Typo', 'Feature request', 'Proposal', 'Question', 'Flaky test', 'Deadlock', 'Bad redirect', 'Layout glitch',
  'Unexpected 500', 'Support', 'Improve', 'Allow', 'Add option for', 'Document'];
const PREPS = ['in', 'when', 'after', 'on', 'with', 'while', 'during', 'for', 'from', 'under'];
const NOUNS = ['repository', 'branch', 'commit', 'push', 'pull request', 'issue', 'comment', 'label', 'milestone', 'release', 'tag', 'webhook',
  'token', 'settings page', 'dashboard', 'login', 'signup', 'avatar', 'mirror', 'fork', 'wiki', 'archive', 'diff', 'blame', 'search', 'editor',
  'notification', 'email', 'organization', 'team', 'collaborator', 'deploy key', 'SSH key', 'GPG signature', 'LFS upload', 'migration',
  'database', 'cache', 'queue', 'cron task', 'API', 'timeline', 'reaction', 'attachment', 'markdown', 'code review', 'status check',
  'runner', 'package', 'container registry', 'language stats', 'heatmap', 'feed', 'RSS', 'sidebar', 'dropdown', 'mobile view', 'dark theme'];
const WORDS = ('the the the a a a to to of of in in and and is is it it for for when with on after not from this that be by an as at '
  + 'I we you they should would could can does did was were has have had been will just also but or if then so because still again '
  + 'error page user users repository repositories branch branches commit commits push pull request requests issue issues comment comments '
  + 'label labels milestone release tag webhook api token tokens server client browser firefox chrome safari config configuration setting '
  + 'settings option options value values default field fields form button link links list lists table row rows column columns query '
  + 'queries index indexes database postgres sqlite mysql redis cache queue worker workers job jobs task tasks cron log logs message '
  + 'messages response status code header headers body json yaml markdown render rendering preview template templates theme css html '
  + 'javascript typescript go golang binary docker container image kubernetes helm chart proxy nginx apache reverse certificate tls ssl '
  + 'http https ssh git lfs hook hooks upload download file files folder directory path paths size limit timeout memory cpu disk slow '
  + 'fast faster slower broken works working fails failed failing crash crashes hangs stuck wrong missing empty null undefined invalid '
  + 'expected actual behaviour behavior reproduce steps version upgrade upgraded downgrade install installed build building compile test '
  + 'tests testing ci pipeline action actions runner merge merged conflict rebase squash diff patch review reviewer approve approved '
  + 'reject closed open reopen duplicate related see also maybe probably think agree thanks please help fix fixed fixes workaround '
  + 'solution problem bug feature enhancement improvement documentation docs readme wiki example screenshot attached logs trace stack '
  + 'panic goroutine thread lock mutex race condition deadlock permission permissions access denied forbidden unauthorized admin owner '
  + 'member team organization public private internal visibility mirror fork star watch notification notifications email mail smtp '
  + 'avatar profile account password login logout session cookie csrf oauth ldap sso saml two factor totp webauthn key keys gpg signature '
  + 'verified unverified locale translation language english german french chinese japanese mobile desktop layout sidebar dropdown modal')
  .split(' ');
const FENCE = '```';

const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];

function sentence(r: () => number, min: number, max: number, keyword: boolean): string {
  const n = min + Math.floor(r() * (max - min + 1));
  const w: string[] = [];
  for (let i = 0; i < n; i++) w.push(pick(r, WORDS));
  if (keyword) w.splice(Math.floor(r() * (n + 1)), 0, KEYWORD);
  w[0] = w[0][0].toUpperCase() + w[0].slice(1);
  return `${w.join(' ')}.`;
}

/** An issue title (exported for bench/mirrors). */
export function title(r: () => number, keyword: boolean): string {
  const t = `${pick(r, SUBJECTS)} ${pick(r, PREPS)} ${pick(r, NOUNS)}${r() < 0.5 ? ` ${pick(r, PREPS)} ${pick(r, NOUNS)}` : ''}`;
  return keyword ? `${t} (${KEYWORD})` : t;
}

/** An issue body: a few paragraphs, sometimes a code block; the keyword once when asked (exported for bench/mirrors). */
export function issueBody(r: () => number, keyword: boolean): string {
  const paragraphs = 1 + Math.floor(r() * 3);
  const at = keyword ? Math.floor(r() * paragraphs) : -1;
  const out: string[] = [];
  for (let p = 0; p < paragraphs; p++) {
    const s = 1 + Math.floor(r() * 3);
    const kw = p === at ? Math.floor(r() * s) : -1;
    out.push(Array.from({ length: s }, (_, i) => sentence(r, 6, 16, i === kw)).join(' '));
  }
  if (r() < 0.2) out.push(`${FENCE}\n${pick(r, WORDS)}: ${pick(r, WORDS)} ${Math.floor(r() * 1000)}\n${FENCE}`);
  return out.join('\n\n');
}

/** A comment body (exported for bench/mirrors). */
export function commentBody(r: () => number, keyword: boolean): string {
  const s = 1 + Math.floor(r() * 3);
  const kw = keyword ? Math.floor(r() * s) : -1;
  return Array.from({ length: s }, (_, i) => sentence(r, 4, 14, i === kw)).join(' ');
}

/** The seeded labels and the share of issues carrying each (exported for bench/mirrors). */
export const LABELS: { name: string; color: string; description: string; share: number }[] = [
  { name: LABEL, color: '#ee0701', description: 'Something is not working', share: 0.10 },
  { name: 'enhancement', color: '#84b6eb', description: 'New feature or request', share: 0.08 },
  { name: 'documentation', color: '#0075ca', description: 'Improvements or additions to documentation', share: 0.03 },
  { name: 'question', color: '#cc317c', description: 'Further information is requested', share: 0.02 },
  { name: 'duplicate', color: '#cccccc', description: 'This issue or pull request already exists', share: 0.01 },
  { name: 'help wanted', color: '#128a0c', description: 'Extra attention is needed', share: 0.02 },
  { name: 'good first issue', color: '#7057ff', description: 'Good for newcomers', share: 0.015 },
  { name: 'wontfix', color: '#ffffff', description: 'This will not be worked on', share: 0.01 },
  { name: 'performance', color: '#fbca04', description: 'Speed or memory use', share: 0.02 },
  { name: 'security', color: '#b60205', description: 'A vulnerability or hardening', share: 0.005 },
  { name: 'ui', color: '#c5def5', description: 'The web interface', share: 0.04 },
  { name: 'api', color: '#bfdadc', description: 'The REST API', share: 0.04 },
];

// ---------------------------------------------------------------------------------------------
// Direct database access for the seeder: SQLite (one connection, sqlite3) or PostgreSQL (pg).

type Val = number | string | boolean;
/** A column to bulk-insert: its name and, for PostgreSQL's unnest, its element type. */
type Col = [name: string, pgType: 'int' | 'bigint' | 'text' | 'boolean'];
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Row = Record<string, any>;

/** A bulk writer of one database (exported for bench/push-refs). */
export interface Bulk {
  readonly pg: boolean;
  /** One statement; placeholders $1, $2... (a placeholder may repeat). */
  run(sql: string, params?: Val[]): Promise<void>;
  rows(sql: string, params?: Val[]): Promise<Row[]>;
  /** Insert rows in batches: multi-row prepared INSERTs on SQLite, INSERT ... SELECT unnest(arrays) on PostgreSQL. */
  insert(table: string, cols: Col[], rows: Val[][]): Promise<void>;
  close(): Promise<void>;
}

const quote = (c: string) => `"${c}"`;

class SqliteBulk implements Bulk {
  readonly pg = false;
  private readonly stmts = new Map<string, sqlite3.Statement>();
  private constructor(private readonly conn: sqlite3.Database) {}

  static async open(file: string): Promise<SqliteBulk> {
    const conn = await new Promise<sqlite3.Database>((resolve, reject) => {
      const c = new sqlite3.Database(file, (err) => (err ? reject(err) : resolve(c)));
    });
    conn.configure('busyTimeout', 30_000);
    return new SqliteBulk(conn);
  }

  private convert(sql: string, params: Val[]): { q: string; args: Val[] } {
    const args: Val[] = [];
    const q = sql.replace(/\$(\d+)/g, (_, n: string) => { args.push(params[Number(n) - 1]); return '?'; });
    return { q, args: args.map((v) => (typeof v === 'boolean' ? Number(v) : v)) };
  }

  run(sql: string, params: Val[] = []): Promise<void> {
    const { q, args } = this.convert(sql, params);
    return new Promise((resolve, reject) => this.conn.run(q, args, (err) => (err ? reject(err) : resolve())));
  }

  rows(sql: string, params: Val[] = []): Promise<Row[]> {
    const { q, args } = this.convert(sql, params);
    return new Promise((resolve, reject) => this.conn.all(q, args, (err, rows) => (err ? reject(err) : resolve(rows as Row[]))));
  }

  async insert(table: string, cols: Col[], rows: Val[][]): Promise<void> {
    // why: one prepared statement of many rows (well under SQLite's 32,766 variables) costs one call into the driver per batch, not per row.
    const per = Math.min(500, Math.floor(30_000 / cols.length));
    for (let i = 0; i < rows.length; i += per) {
      const chunk = rows.slice(i, i + per);
      const key = `${table}:${chunk.length}`;
      let stmt = this.stmts.get(key);
      if (!stmt) {
        const one = `(${cols.map(() => '?').join(', ')})`;
        stmt = this.conn.prepare(`INSERT INTO ${table} (${cols.map(([c]) => quote(c)).join(', ')}) VALUES ${Array(chunk.length).fill(one).join(', ')}`);
        this.stmts.set(key, stmt);
      }
      const args: Val[] = [];
      for (const r of chunk) for (const v of r) args.push(typeof v === 'boolean' ? Number(v) : v);
      await new Promise<void>((resolve, reject) => stmt!.run(args, (err) => (err ? reject(err) : resolve())));
    }
  }

  async close(): Promise<void> {
    for (const s of this.stmts.values()) await new Promise<void>((resolve) => s.finalize(() => resolve()));
    this.stmts.clear();
    await new Promise<void>((resolve) => this.conn.close(() => resolve()));
  }
}

class PgBulk implements Bulk {
  readonly pg = true;
  private constructor(private readonly c: Client) {}

  static async open(env: Record<string, string>): Promise<PgBulk> {
    const [host, port] = env.FORGE__DATABASE__HOST.split(':');
    const c = new Client({ host, port: Number(port), user: env.FORGE__DATABASE__USER, password: env.FORGE__DATABASE__PASSWD, database: env.FORGE__DATABASE__NAME });
    await c.connect();
    return new PgBulk(c);
  }

  async run(sql: string, params: Val[] = []): Promise<void> { await this.c.query(sql, params); }
  async rows(sql: string, params: Val[] = []): Promise<Row[]> { return (await this.c.query(sql, params)).rows as Row[]; }

  async insert(table: string, cols: Col[], rows: Val[][]): Promise<void> {
    // why: one array per column makes a batch of any size one statement with a handful of parameters.
    const sql = `INSERT INTO ${table} (${cols.map(([c]) => quote(c)).join(', ')}) SELECT * FROM unnest(${cols.map(([, t], i) => `$${i + 1}::${t}[]`).join(', ')})`;
    for (let i = 0; i < rows.length; i += 20_000) {
      const chunk = rows.slice(i, i + 20_000);
      await this.c.query(sql, cols.map((_, k) => chunk.map((r) => r[k])));
    }
  }

  async close(): Promise<void> { await this.c.end(); }
}

/** A bulk writer on a server's database (the server stopped, or only read while it runs). */
export function openBulk(s: TestServer): Promise<Bulk> {
  return s.env.FORGE__DATABASE__DB_TYPE === 'postgres' ? PgBulk.open(s.env) : SqliteBulk.open(path.join(s.dataDir, 'forge.db'));
}

async function columnsOf(db: Bulk, table: string): Promise<string[]> {
  if (db.pg) {
    return (await db.rows('SELECT column_name AS name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position', [table]))
      .map((r) => String(r.name));
  }
  return (await db.rows(`PRAGMA table_info(${table})`)).map((r) => String(r.name));
}

/**
 * Drop the secondary indexes of `tables` and return the statements that make them again, exactly as
 * the migrations made them. why: building an index once over the loaded rows is several times
 * faster than keeping it up to date row by row.
 */
export async function dropIndexes(db: Bulk, tables: string[]): Promise<string[]> {
  const list = tables.map((t) => `'${t}'`).join(', ');
  const found = db.pg
    ? await db.rows(`SELECT indexname AS name, indexdef AS sql FROM pg_indexes WHERE schemaname = current_schema() AND tablename IN (${list})
        AND indexname NOT IN (SELECT conname FROM pg_constraint)`)
    : await db.rows(`SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN (${list})`);
  for (const r of found) await db.run(`DROP INDEX ${quote(String(r.name))}`);
  return found.map((r) => String(r.sql));
}

// ---------------------------------------------------------------------------------------------
// The seeder.

interface World { aliceId: number; posterIds: number[]; bigId: number }
interface Seeded { seconds: number; openIssues: number; closedIssues: number; comments: number; labelled: number; keywordIssues: number; keywordComments: number; smallRepos: number }

/** The issue columns the seeders write. */
export const ISSUE_COLS: Col[] = [['id', 'int'], ['repo_id', 'int'], ['index', 'bigint'], ['poster_id', 'int'], ['name', 'text'], ['content', 'text'],
  ['milestone_id', 'int'], ['priority', 'int'], ['is_closed', 'boolean'], ['is_pull', 'boolean'], ['num_comments', 'int'], ['ref', 'text'],
  ['deadline_unix', 'bigint'], ['is_locked', 'boolean'], ['content_version', 'int'], ['closed_unix', 'bigint'], ['created_unix', 'bigint'], ['updated_unix', 'bigint']];
/** The comment columns the seeders write. */
export const COMMENT_COLS: Col[] = [['id', 'int'], ['type', 'int'], ['poster_id', 'int'], ['issue_id', 'int'], ['content', 'text'], ['created_unix', 'bigint'], ['updated_unix', 'bigint']];
/** The label columns the seeders write. */
export const LABEL_COLS: Col[] = [['id', 'int'], ['repo_id', 'int'], ['org_id', 'int'], ['name', 'text'], ['exclusive', 'boolean'], ['description', 'text'], ['color', 'text'],
  ['num_issues', 'int'], ['num_closed_issues', 'int'], ['archived_unix', 'bigint'], ['created_unix', 'bigint'], ['updated_unix', 'bigint']];
/** The issue_label columns the seeders write. */
export const ISSUE_LABEL_COLS: Col[] = [['id', 'int'], ['issue_id', 'int'], ['label_id', 'int']];
/** The repo_issue_counter columns. */
export const COUNTER_COLS: Col[] = [['repo_id', 'int'], ['max_index', 'bigint'], ['num_issues', 'int'], ['num_closed_issues', 'int'], ['num_pulls', 'int'],
  ['num_closed_pulls', 'int'], ['num_milestones', 'int'], ['num_closed_milestones', 'int']];

const nextId = async (db: Bulk, table: string) => Number((await db.rows(`SELECT COALESCE(MAX(id), 0) AS m FROM ${table}`))[0].m) + 1;

/** Write the world described at the top of this file, with the server stopped. */
async function seed(db: Bulk, w: World): Promise<Seeded> {
  const t0 = process.hrtime.bigint();
  const r = prng(20261126);
  const end = Math.floor(Date.now() / 1000) - 3600;
  const start = end - 3 * 365 * DAY;
  const out: Seeded = { seconds: 0, openIssues: 0, closedIssues: 0, comments: 0, labelled: 0, keywordIssues: 0, keywordComments: 0, smallRepos: REPOS - 1 };

  if (!db.pg) {
    for (const p of ['PRAGMA journal_mode = WAL', 'PRAGMA synchronous = OFF', 'PRAGMA cache_size = -262144', 'PRAGMA temp_store = MEMORY']) await db.run(p);
  } else {
    await db.run("SET maintenance_work_mem = '512MB'");
    await db.run('SET synchronous_commit = off');
  }
  const tables = ['issue', 'comment', 'issue_label', ...(db.pg ? ['issue_fts', 'comment_fts'] : [])];
  const indexes = await dropIndexes(db, tables);

  await db.run('BEGIN');
  // The other repositories of alice: copies of alice/big's row and its units, as repository creation writes them.
  const repoCols = (await columnsOf(db, 'repository')).filter((c) => !['id', 'name', 'lower_name'].includes(c)).map(quote).join(', ');
  for (let k = 1; k < REPOS; k++) {
    const name = `repo-${String(k).padStart(4, '0')}`;
    await db.run(`INSERT INTO repository (name, lower_name, ${repoCols}) SELECT $1, $1, ${repoCols} FROM repository WHERE id = $2`, [name, w.bigId]);
  }
  const unitCols = (await columnsOf(db, 'repo_unit')).filter((c) => !['id', 'repo_id'].includes(c)).map(quote);
  await db.run(`INSERT INTO repo_unit (repo_id, ${unitCols.join(', ')}) SELECT r.id, ${unitCols.map((c) => `u.${c}`).join(', ')}
    FROM repository r JOIN repo_unit u ON u.repo_id = $2 WHERE r.owner_id = $1 AND r.id <> $2 ORDER BY r.id, u.id`, [w.aliceId, w.bigId]);
  await db.run('UPDATE users SET num_repos = num_repos + $1 WHERE id = $2', [REPOS - 1, w.aliceId]);
  const smallIds = (await db.rows('SELECT id FROM repository WHERE owner_id = $1 AND id <> $2 ORDER BY id', [w.aliceId, w.bigId])).map((x) => Number(x.id));

  let issueId = await nextId(db, 'issue');
  let commentId = await nextId(db, 'comment');
  let issueLabelId = await nextId(db, 'issue_label');
  const labelBase = await nextId(db, 'label');
  const labelCounts = LABELS.map(() => ({ all: 0, closed: 0 }));
  const counters: Val[][] = [];

  // Comments per issue of alice/big: COMMENTS thrown at random issues, plus the hot one's.
  const perIssue = new Uint32Array(ISSUES + 1);
  for (let k = 0; k < COMMENTS; k++) {
    let i = 1 + Math.floor(r() * ISSUES);
    if (i === HOT_INDEX) i = i === ISSUES ? 1 : i + 1;
    perIssue[i]++;
  }
  perIssue[HOT_INDEX] = HOT_COMMENTS;

  /** One issue with its comments and labels; returns whether it is closed. */
  const oneIssue = (repoId: number, index: number, created: number, nComments: number, pClosed: number, labelled: boolean,
    issues: Val[][], comments: Val[][], links: Val[][], forceOpen: boolean): boolean => {
    const id = issueId++;
    const kw = r() < 0.01;
    if (kw) out.keywordIssues++;
    // comments: each in its own slot of a span after the issue opened (the hot issue's up to now)
    const span = forceOpen ? end - created : Math.min(end - created, Math.floor(r() * r() * 60 * DAY) + 600);
    let last = created;
    for (let j = 0; j < nComments; j++) {
      const at = Math.min(end, created + Math.floor((span * (j + r())) / nComments));
      const ckw = r() < 0.001;
      if (ckw) out.keywordComments++;
      comments.push([commentId++, 0, pick(r, w.posterIds), id, commentBody(r, ckw), at, at]);
      last = at;
    }
    out.comments += nComments;
    const closed = !forceOpen && r() < pClosed;
    const closedUnix = closed ? Math.min(end, last + 60 + Math.floor(r() * 7 * DAY)) : 0;
    issues.push([id, repoId, index, pick(r, w.posterIds), title(r, kw), issueBody(r, kw), 0, 0, closed, false, nComments, '', 0, false, 0,
      closedUnix, created, closed ? closedUnix : last]);
    if (labelled) {
      let any = false;
      LABELS.forEach((l, k) => {
        if (r() >= l.share) return;
        links.push([issueLabelId++, id, labelBase + k]);
        labelCounts[k].all++;
        if (closed) labelCounts[k].closed++;
        any = true;
      });
      if (any) out.labelled++;
    }
    return closed;
  };

  const flush = async (issues: Val[][], comments: Val[][], links: Val[][]) => {
    await db.insert('issue', ISSUE_COLS, issues.splice(0));
    await db.insert('comment', COMMENT_COLS, comments.splice(0));
    await db.insert('issue_label', ISSUE_LABEL_COLS, links.splice(0));
  };

  // alice/big: numbers 1..ISSUES, created evenly over three years (the last day left to the create benchmark's issues)
  const issues: Val[][] = [];
  const comments: Val[][] = [];
  const links: Val[][] = [];
  let bigClosed = 0;
  for (let i = 1; i <= ISSUES; i++) {
    const created = start + Math.floor(((i - 1) * (end - start - DAY)) / ISSUES);
    // why: older issues are more often closed (5% of the newest, half of the oldest), as on a real tracker.
    const pClosed = 0.05 + 0.45 * (1 - i / ISSUES);
    if (oneIssue(w.bigId, i, created, perIssue[i], pClosed, true, issues, comments, links, i === HOT_INDEX)) bigClosed++;
    if (issues.length >= 5000 || comments.length >= 50_000) await flush(issues, comments, links);
  }
  await flush(issues, comments, links);
  counters.push([w.bigId, ISSUES, ISSUES, bigClosed, 0, 0, 0, 0]);
  out.closedIssues += bigClosed;
  out.openIssues += ISSUES - bigClosed;

  // the other repositories: SMALL_REPO_ISSUES issues each at random times, 0-3 comments each
  for (const repoId of smallIds) {
    const times = Array.from({ length: SMALL_REPO_ISSUES }, () => start + Math.floor(r() * (end - start - DAY))).sort((a, b) => a - b);
    let closed = 0;
    times.forEach((created, k) => {
      if (oneIssue(repoId, k + 1, created, Math.floor(r() * 4), 0.3, false, issues, comments, links, false)) closed++;
    });
    counters.push([repoId, SMALL_REPO_ISSUES, SMALL_REPO_ISSUES, closed, 0, 0, 0, 0]);
    out.closedIssues += closed;
    out.openIssues += SMALL_REPO_ISSUES - closed;
    if (issues.length >= 5000) await flush(issues, comments, links);
  }
  await flush(issues, comments, links);

  const created = start - DAY;
  await db.insert('label', LABEL_COLS, LABELS.map((l, k) => [labelBase + k, w.bigId, 0, l.name, false, l.description, l.color,
    labelCounts[k].all, labelCounts[k].closed, 0, created, created]));
  await db.insert('repo_issue_counter', COUNTER_COLS, counters);
  await db.run('COMMIT');

  // the keyword index: one document per issue (title, newline, body) and per plain comment, as the app writes them
  if (db.pg) {
    await db.run(`INSERT INTO issue_fts (id, repo_id, is_pull, is_closed, created_unix, doc)
      SELECT id, repo_id, is_pull, is_closed, created_unix, to_tsvector('simple', name || chr(10) || content) FROM issue`);
    await db.run(`INSERT INTO comment_fts (id, issue_id, repo_id, is_pull, is_closed, created_unix, doc)
      SELECT c.id, c.issue_id, i.repo_id, i.is_pull, i.is_closed, i.created_unix, to_tsvector('simple', c.content)
      FROM comment c JOIN issue i ON i.id = c.issue_id WHERE c.type = 0 AND c.content <> ''`);
  } else {
    await db.run('BEGIN');
    await db.run('INSERT INTO issue_fts (rowid, body) SELECT id, name || char(10) || content FROM issue');
    await db.run("INSERT INTO comment_fts (rowid, body) SELECT id, content FROM comment WHERE type = 0 AND content <> ''");
    await db.run('COMMIT');
  }
  for (const sql of indexes) await db.run(sql);
  if (db.pg) {
    for (const t of ['issue', 'comment', 'label', 'issue_label', 'repository', 'repo_unit']) {
      await db.run(`SELECT setval(pg_get_serial_sequence('${t}', 'id'), (SELECT MAX(id) FROM ${t}))`);
    }
    await db.run('VACUUM ANALYZE');
  } else {
    await db.run('ANALYZE');
    await db.run('PRAGMA wal_checkpoint(TRUNCATE)');
  }
  out.seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  return out;
}

/** Check the seeded rows against the counters kept beside them; throws on a mismatch (exported for bench/mirrors). */
export async function checkCounters(db: Bulk, bigId: number): Promise<void> {
  const bad = await db.rows(`SELECT c.repo_id, c.max_index, c.num_issues, c.num_closed_issues, x.n, x.m, x.closed FROM repo_issue_counter c
    JOIN (SELECT repo_id, COUNT(*) AS n, MAX("index") AS m, SUM(CASE WHEN is_closed THEN 1 ELSE 0 END) AS closed FROM issue WHERE is_pull = $1 GROUP BY repo_id) x
    ON x.repo_id = c.repo_id WHERE c.max_index <> x.m OR c.num_issues <> x.n OR c.num_closed_issues <> x.closed`, [false]);
  if (bad.length) throw new Error(`repo_issue_counter does not match the issues: ${JSON.stringify(bad.slice(0, 3))}`);
  const labels = await db.rows(`SELECT l.id FROM label l LEFT JOIN (SELECT il.label_id, COUNT(*) AS n, SUM(CASE WHEN i.is_closed THEN 1 ELSE 0 END) AS closed
    FROM issue_label il JOIN issue i ON i.id = il.issue_id GROUP BY il.label_id) x ON x.label_id = l.id
    WHERE l.num_issues <> COALESCE(x.n, 0) OR l.num_closed_issues <> COALESCE(x.closed, 0)`);
  if (labels.length) throw new Error(`label counts do not match: ${JSON.stringify(labels)}`);
  const nc = await db.rows(`SELECT i.id FROM issue i LEFT JOIN (SELECT issue_id, COUNT(*) AS n FROM comment WHERE type = 0 GROUP BY issue_id) c ON c.issue_id = i.id
    WHERE i.repo_id = $1 AND i.num_comments <> COALESCE(c.n, 0)`, [bigId]);
  if (nc.length) throw new Error(`num_comments does not match for ${nc.length} issues`);
}

// ---------------------------------------------------------------------------------------------
// Measuring.

interface ReadRow { scenario: string; p50: number; p99: number; items: number; total: string; note: string }
interface DbResult {
  db: string; seeded: Seeded; setupSeconds: number; reads: ReadRow[];
  create: { rate: number; p50: number; p99: number; non2xx: number; errors: number; answered: number; made: number; seconds: number };
  numbering: { count: number; maxIndex: number; counter: number; numIssues: number };
}

/** One GET: its item count and X-Total-Count (the page is checked to be an answer, not an error). */
function probe(url: string, token: string): Promise<{ items: number; total: string }> {
  return new Promise((resolve, reject) => {
    http.get(url, { agent, headers: { Authorization: `token ${token}` } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => { body += d; });
      res.once('end', () => {
        if (res.statusCode !== 200) { reject(new Error(`${url}: ${res.statusCode} ${body}`)); return; }
        const parsed = JSON.parse(body) as unknown[] | null;
        resolve({ items: parsed?.length ?? 0, total: String(res.headers['x-total-count'] ?? '-') });
      });
    }).once('error', reject);
  });
}

/** Median and slowest (p99 of 15) of RUNS sequential GETs after two warm-ups. */
async function timeReads(url: string, token: string): Promise<{ p50: number; p99: number }> {
  await timedGet(url, token);
  await timedGet(url, token);
  const xs: number[] = [];
  for (let i = 0; i < RUNS; i++) xs.push(await timedGet(url, token));
  xs.sort((a, b) => a - b);
  return { p50: median(xs), p99: xs[Math.min(xs.length - 1, Math.ceil(0.99 * xs.length) - 1)] };
}

const round1 = (x: number) => Math.round(x * 10) / 10;

/** A started server holding the seeded world: alice's token, alice/big's id, what was seeded, the set-up time. */
export interface SeededServer { s: TestServer; token: string; bigId: number; seeded: Seeded; setupSeconds: number }

/**
 * Make a server (PostgreSQL with Redis for `postgres`), its users and alice/big through the CLI and
 * the API, seed the world described at the top of this file with the server stopped, and start it
 * again, steady (after the reconciler's first pass). Exported for bench/web, which reads the same
 * repository through the pages.
 */
export async function seededIssueServer(dbType: string, say: (m: string) => void): Promise<SeededServer> {
  const pg = dbType === 'postgres';
  if (pg) process.env.FORGE_TEST_DB = 'postgres';
  else delete process.env.FORGE_TEST_DB;
  const tSetup = process.hrtime.bigint();
  // why: PostgreSQL installations run as a cluster, with Redis for locks and the bus.
  const redis = pg ? (process.env.FORGE_TEST_REDIS ?? 'redis://127.0.0.1:56379/0') : undefined;
  const s = await newServer({ workers: WORKERS, env: { FORGE__LOG__LEVEL: 'error' }, clusterRedis: redis });
  try {
    const made = await s.cli(['admin', 'user', 'create', '--username', 'alice', '--password', 'alice-password', '--email', 'alice@example.com',
      '--must-change-password=false', '--access-token', '--access-token-scopes', 'all']);
    if (made.code !== 0) throw new Error(made.stderr);
    const token = made.stdout.trim().split('\n').pop()!;
    const posters = ['alice'];
    for (let k = 1; k <= 7; k++) {
      const u = await s.cli(['admin', 'user', 'create', '--username', `dev${k}`, '--password', `dev${k}-password`, '--email', `dev${k}@example.com`, '--must-change-password=false']);
      if (u.code !== 0) throw new Error(u.stderr);
      posters.push(`dev${k}`);
    }
    await s.start();
    const res = await fetch(`${s.api}/user/repos`, { method: 'POST', headers: { Authorization: `token ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'big', private: true }) });
    if (res.status !== 201) throw new Error(`cannot create alice/big: ${res.status} ${await res.text()}`);
    const bigId = ((await res.json()) as { id: number }).id;
    await s.stop();

    say(`seeding ${ISSUES} issues, ${COMMENTS} + ${HOT_COMMENTS} comments, ${REPOS} repositories ...`);
    const db = await openBulk(s);
    let seeded: Seeded;
    try {
      const users = await db.rows(`SELECT id, lower_name FROM users WHERE lower_name IN (${posters.map((p) => `'${p}'`).join(', ')})`);
      const idOf = new Map(users.map((u) => [String(u.lower_name), Number(u.id)]));
      seeded = await seed(db, { aliceId: idOf.get('alice')!, posterIds: posters.map((p) => idOf.get(p)!), bigId });
      await checkCounters(db, bigId);
    } finally {
      await db.close();
    }
    say(`seeded in ${seeded.seconds.toFixed(1)} s: ${seeded.openIssues} open and ${seeded.closedIssues} closed issues, ${seeded.comments} comments, `
      + `${seeded.labelled} labelled, '${KEYWORD}' in ${seeded.keywordIssues} issues and ${seeded.keywordComments} comments`);
    await s.start();
    // why: after a start the reconciler checks every repository once; reads are measured after it, in the steady state.
    await outputLine(s, 'reconciler: ', 120_000);
    return { s, token, bigId, seeded, setupSeconds: Number(process.hrtime.bigint() - tSetup) / 1e9 };
  } catch (err) {
    await s.destroy();
    throw err;
  }
}

async function benchDb(dbType: string): Promise<DbResult> {
  const pg = dbType === 'postgres';
  const label = pg ? 'PostgreSQL' : 'SQLite';
  const say = (m: string) => process.stdout.write(`[issues/${label}] ${m}\n`);
  const { s, token, bigId, seeded, setupSeconds } = await seededIssueServer(dbType, say);
  let ok = false;
  try {
    const base = `${s.api}/repos/alice/big`;
    const reads: [string, string, string][] = [
      ['open issues, page 1', `${base}/issues?state=open&page=1`, 'default sort (newest), 30 per page'],
      [`open issues, page ${DEEP_PAGE.toLocaleString('en-US')}`, `${base}/issues?state=open&page=${DEEP_PAGE}`, `offset ${(DEEP_PAGE - 1) * 30}`],
      [`open issues, labels=${LABEL}`, `${base}/issues?state=open&labels=${LABEL}&page=1`, `label on ~${LABELS[0].share * 100}% of issues`],
      [`open issues, q=${KEYWORD}`, `${base}/issues?state=open&q=${KEYWORD}&page=1`, 'word in ~1% of issues, 0.1% of comments'],
      [`/repos/issues/search (${REPOS.toLocaleString('en-US')} repos)`, `${s.api}/repos/issues/search?page=1`, 'as alice (not admin), her repositories private'],
      ['timeline page 1', `${base}/issues/${HOT_INDEX}/timeline?page=1`, `issue with ${HOT_COMMENTS.toLocaleString('en-US')} comments`],
      [`timeline page ${TIMELINE_DEEP}`, `${base}/issues/${HOT_INDEX}/timeline?page=${TIMELINE_DEEP}`, `offset ${(TIMELINE_DEEP - 1) * 30}`],
    ];
    // why: the server was just restarted; its first requests run unoptimized code (JIT) and fill the
    // per-process caches. A forge serving these lists is warm, so every read goes round WARMUP times first.
    for (let i = 0; i < WARMUP; i++) for (const [, url] of reads) await timedGet(url, token);
    const rows: ReadRow[] = [];
    for (const [scenario, url, note] of reads) {
      const { items, total } = await probe(url, token);
      const t = await timeReads(url, token);
      rows.push({ scenario, p50: round1(t.p50), p99: round1(t.p99), items, total, note });
      say(`${scenario}: p50 ${t.p50.toFixed(1)} ms, p99 ${t.p99.toFixed(1)} ms (${items} items of ${total})`);
    }

    // create throughput: 64 connections POSTing issues into alice/big
    const counts = async () => {
      const d = await openBulk(s);
      try {
        // one statement, so the rows and the counter are read in one snapshot
        const [a] = await d.rows(`SELECT (SELECT COUNT(*) FROM issue WHERE repo_id = $1) AS n, (SELECT MAX("index") FROM issue WHERE repo_id = $1) AS m,
          max_index, num_issues FROM repo_issue_counter WHERE repo_id = $1`, [bigId]);
        return { count: Number(a.n), maxIndex: Number(a.m), counter: Number(a.max_index), numIssues: Number(a.num_issues) };
      } finally {
        await d.close();
      }
    };
    /**
     * The counts once the server is idle. why: when autocannon stops, requests it sent are still
     * being served; they commit after it returns.
     */
    const settled = async () => {
      let last = await counts();
      for (let i = 0; i < 60; i++) {
        await new Promise((res) => setTimeout(res, 500));
        const now = await counts();
        if (JSON.stringify(now) === JSON.stringify(last)) return now;
        last = now;
      }
      return last;
    };
    // why: not autocannon's idReplacement, whose Content-Length assumes a 27-character id and sends no request here.
    let n = 0;
    const opts = {
      url: `${base}/issues`, connections: CONNECTIONS,
      headers: { Authorization: `token ${token}`, 'Content-Type': 'application/json' },
      requests: [{
        method: 'POST' as const,
        setupRequest: (req: autocannon.Request) => ({ ...req, body: JSON.stringify({
          title: `Crash when saving settings under load #${++n}`, body: `Seen while benchmarking (request ${n}): the settings page fails after a save.`,
        }) }),
      }],
    };
    await autocannon({ ...opts, duration: 2 });
    const before = await settled();
    const r = await autocannon({ ...opts, duration: CREATE_SECONDS });
    const elapsed = (new Date(r.finish).getTime() - new Date(r.start).getTime()) / 1000;
    const after = await settled();
    // the rate: issues answered 201 within the run; the rows made also count the requests still in flight when it ended
    const create = { rate: r['2xx'] / elapsed, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors + r.timeouts, answered: r['2xx'], made: after.count - before.count, seconds: elapsed };
    say(`create: ${Math.round(create.rate)} issues/s (${r['2xx']} answered 201 in ${elapsed.toFixed(1)} s; ${create.made} rows), p50 ${create.p50} ms, p99 ${create.p99} ms, `
      + `non-2xx ${r.non2xx}, errors ${create.errors}`);
    const numbering = after;
    ok = true;
    return { db: dbType, seeded, setupSeconds, reads: rows, create, numbering };
  } finally {
    agent.destroy();
    if (KEEP) {
      await s.stop();
      process.stdout.write(`[issues/${label}] kept: ${s.dataDir}${pg ? ` and database ${s.env.FORGE__DATABASE__NAME}` : ''}\n`);
    } else {
      await s.destroy();
      if (ok) fs.rmSync(s.dataDir, { recursive: true, force: true });
    }
  }
}

/** Wait until the server has printed `text` (fails after `ms`). */
function outputLine(s: TestServer, text: string, ms: number): Promise<void> {
  if (s.output.includes(text)) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const done = (err?: Error) => { clearTimeout(timer); s.proc!.stdout!.off('data', check); if (err) reject(err); else resolve(); };
    const check = () => { if (s.output.includes(text)) done(); };
    const timer = setTimeout(() => done(new Error(`the server did not print '${text}' within ${ms / 1000} s`)), ms);
    s.proc!.stdout!.on('data', check);
  });
}

function printTable(r: DbResult): void {
  const pad = (v: string | number, n: number) => String(v).padEnd(n);
  const name = r.db === 'postgres' ? 'PostgreSQL (cluster mode, Redis)' : 'SQLite (embedded)';
  const sd = r.seeded;
  process.stdout.write(`\nbench/issues, ${name}, ${WORKERS} worker${WORKERS > 1 ? 's' : ''}: alice/big with ${ISSUES.toLocaleString('en-US')} issues, `
    + `${COMMENTS.toLocaleString('en-US')} comments and one issue with ${HOT_COMMENTS.toLocaleString('en-US')}; ${(REPOS - 1).toLocaleString('en-US')} more repositories of alice `
    + `with ${SMALL_REPO_ISSUES} issues each (${sd.openIssues.toLocaleString('en-US')} open, ${sd.closedIssues.toLocaleString('en-US')} closed in all). `
    + `Reads: median and p99 (the slowest) of ${RUNS} sequential requests, after ${WARMUP} warm-up rounds over all reads and 2 more requests each.\n\n`);
  process.stdout.write(`| ${pad('scenario', 40)} | ${pad('p50 ms', 7)} | ${pad('p99 ms', 7)} | ${pad('items/total', 12)} | ${pad('target', 26)} | note\n`);
  process.stdout.write(`|${'-'.repeat(42)}|${'-'.repeat(9)}|${'-'.repeat(9)}|${'-'.repeat(14)}|${'-'.repeat(28)}|------\n`);
  for (const x of r.reads) {
    const met = x.p50 < P50_MS && x.p99 < P99_MS;
    process.stdout.write(`| ${pad(x.scenario, 40)} | ${pad(x.p50.toFixed(1), 7)} | ${pad(x.p99.toFixed(1), 7)} | ${pad(`${x.items}/${x.total}`, 12)} | `
      + `${pad(`${met ? 'met' : 'NOT met'} p50<${P50_MS}, p99<${P99_MS}`, 26)} | ${x.note}\n`);
  }
  const p1 = r.reads[0];
  const deep = r.reads[1];
  const ratio = deep.p50 / p1.p50;
  process.stdout.write(`| ${pad(`page ${DEEP_PAGE.toLocaleString('en-US')} / page 1 (p50)`, 40)} | ${pad(ratio.toFixed(2), 7)} | ${pad((deep.p99 / p1.p99).toFixed(2), 7)} | ${pad('', 12)} | `
    + `${pad(`${ratio <= DEEP_RATIO ? 'met' : 'NOT met'} ≤${DEEP_RATIO}x`, 26)} | ratio of medians (p99 column: ratio of p99s)\n`);
  const c = r.create;
  process.stdout.write(`| ${pad(`create issue, ${CONNECTIONS} connections`, 40)} | ${pad(c.p50, 7)} | ${pad(c.p99, 7)} | ${pad('', 12)} | `
    + `${pad(`${c.rate >= CREATE_RATE && c.non2xx === 0 && c.errors === 0 ? 'met' : 'NOT met'} ≥${CREATE_RATE}/s`, 26)} | ${Math.round(c.rate)} issues/s `
    + `(${c.answered} answered 201 in ${c.seconds.toFixed(1)} s, ${c.made} rows with those in flight at the end), non-2xx ${c.non2xx}, errors ${c.errors}; latency ms\n`);
  const n = r.numbering;
  const gapless = n.count === n.maxIndex && n.maxIndex === n.counter && n.numIssues === n.count;
  process.stdout.write(`| ${pad('numbering after the create run', 40)} | ${pad('', 7)} | ${pad('', 7)} | ${pad('', 12)} | `
    + `${pad(`${gapless ? 'met' : 'NOT met'} gapless`, 26)} | issues ${n.count}, highest number ${n.maxIndex}, counter max_index ${n.counter}, num_issues ${n.numIssues}\n`);
  process.stdout.write(`| ${pad('seeding (bulk SQL, indexes, ANALYZE)', 40)} | ${pad('', 7)} | ${pad('', 7)} | ${pad('', 12)} | `
    + `${pad(`${sd.seconds < SEED_SECONDS ? 'met' : 'NOT met'} <${SEED_SECONDS} s`, 26)} | ${sd.seconds.toFixed(1)} s; `
    + `whole setup (server, users, repos, seed, restart) ${r.setupSeconds.toFixed(1)} s\n`);
}

/**
 * Run the scenario and print its tables. `npm run bench -- issues page` runs only the issue page row
 * (issue 35), without the seeded world.
 */
export async function run(): Promise<void> {
  // why: the client shares the 2 cores with the server; when the scheduler parks it, its own delay counts as server latency.
  try { os.setPriority(-10); } catch { /* not permitted: measure as is */ }
  const parts = ['tracker', 'page', 'push', 'refs'];
  const named = process.argv.slice(3);
  const unknown = named.filter((n) => !parts.includes(n));
  if (unknown.length) throw new Error(`unknown part '${unknown[0]}': name some of ${parts.join(', ')}, or none for all`);
  const wanted = (part: string) => named.length === 0 || named.includes(part);
  const dbNames = process.env.BENCH_DB ? process.env.BENCH_DB.split(',') : ['sqlite3'];
  const dbs = !wanted('tracker') ? [] : dbNames;
  const results: DbResult[] = [];
  for (const dbType of dbs) results.push(await benchDb(dbType));
  const page = wanted('page') ? await benchIssuePage((m) => process.stdout.write(`[issues/page] ${m}\n`)) : null;
  const push = wanted('push') ? await pushAnswerRows() : null;
  // why: on a server of its own, after the others are gone, so they never share the cores.
  const refs = [];
  for (const dbType of wanted('refs') ? dbNames : []) refs.push({ dbType, r: await benchPushRefs(dbType, WORKERS, (m) => process.stdout.write(`[issues/refs/${dbType}] ${m}\n`)) });
  for (const r of results) printTable(r);
  if (page) printIssuePage(page);
  if (push) process.stdout.write(`\n${push.join('\n')}\n`);
  const pad = (v: string | number, n: number) => String(v).padEnd(n);
  for (const { dbType, r } of refs) {
    process.stdout.write(`\nbench/issues, references in a push (${dbType === 'postgres' ? 'PostgreSQL' : 'SQLite'}, ${WORKERS} worker${WORKERS > 1 ? 's' : ''}):\n\n`);
    process.stdout.write(`| ${pad('scenario', 40)} | ${pad('ms', 7)} | ${pad('', 7)} | ${pad('', 12)} | ${pad('target', 26)} | note\n`);
    process.stdout.write(`|${'-'.repeat(42)}|${'-'.repeat(9)}|${'-'.repeat(9)}|${'-'.repeat(14)}|${'-'.repeat(28)}|------\n`);
    process.stdout.write(pushRefsRows(r, pad));
  }
}
