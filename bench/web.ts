/**
 * bench/web: server time of the browser UI's heaviest pages, one worker on the embedded default,
 * read by alice signed in through the sign-in form:
 * - the issue benchmark's world (bench/issues: 100,000 issues in alice/big, seeded by bulk SQL),
 *   here with one issue of 200 comments (BENCH_HOT_COMMENTS) and 20,000 other comments: its open
 *   issue list and that issue's page;
 * - alice/web, a README of about 6 KB (headings, lists, a table, code, links, references) and a
 *   5,000-line TypeScript file: the repository's home and the file highlighted;
 * - alice/pr, a pull request changing 1,000 files in 50 commits (bench/pulls' topic branch): its
 *   files page.
 * Each page is requested once (printed), BENCH_WARMUP times, then BENCH_RUNS times; the median and
 * p99 of the whole request (loopback, body read) against p50 < 50 ms and p99 < 150 ms.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import { agent } from './http';
import { benchHome, gitEnv, median, percentile, timedGit } from './util';
import { fastImport, topicStream } from './pulls';

const RUNS = Number(process.env.BENCH_WEB_RUNS ?? '200');
const WARMUP = Number(process.env.BENCH_WEB_WARMUP ?? '20');
const P50_MS = 50;
const P99_MS = 150;

/** A README with what real ones have. */
function readme(): string {
  const section = (i: number) => `## Section ${i}\n\nSome **bold** and _emphasis_, \`inline code\`, a [link](docs/page-${i}.md), an issue #${i} and :tada:.\n\n`
    + `- item one\n- item two with [a reference](https://example.com/${i})\n- [ ] a task\n\n`
    + '| column | value |\n|---|---|\n| a | 1 |\n| b | 2 |\n\n```ts\nconst x: number = 1;\n```\n\n';
  return `# Bench project\n\nThe project used by the web benchmark.\n\n${Array.from({ length: 20 }, (_, i) => section(i + 1)).join('')}`;
}

/** A 5,000-line TypeScript file. */
function bigSource(): string {
  const out: string[] = [];
  for (let i = 0; out.length < 5000; i++) {
    out.push(`/** Function number ${i}: adds, compares and logs. */`, `export function f${i}(a: number, b: string): string {`,
      `  const value = a * ${i} + b.length; // a comment with "quotes"`, `  if (value > ${i * 3}) return \`big \${value}\`;`,
      '  return String(value);', '}', '');
  }
  return `${out.slice(0, 5000).join('\n')}\n`;
}

/** A commit on main with the 400 files the pull request's topic branch changes. */
function mainStream(): string {
  let s = '';
  const msg = 'base\n';
  s += `commit refs/heads/main\ncommitter Bench <bench@example.com> 1799990000 +0000\ndata ${msg.length}\n${msg}`;
  for (let i = 0; i < 400; i++) {
    const body = `${Array.from({ length: 40 }, (_, k) => `line ${k} of dir${i % 50}/file${i}.txt`).join('\n')}\n`;
    s += `M 100644 inline dir${i % 50}/file${i}.txt\ndata ${Buffer.byteLength(body)}\n${body}\n`;
  }
  return s;
}

/** Sign in through the form as a browser does; the session cookie. */
async function signIn(root: string, name: string, password: string): Promise<string> {
  const form = await fetch(`${root}user/login`);
  const cookie = form.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())![1];
  const res = await fetch(`${root}user/login`, {
    method: 'POST', redirect: 'manual', body: new URLSearchParams({ _csrf: csrf, user_name: name, password }),
    headers: { Cookie: cookie, Origin: new URL(root).origin, 'Content-Type': 'application/x-www-form-urlencoded' },
  });
  if (res.status !== 303) throw new Error(`sign-in: ${res.status}`);
  return res.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
}

let cookie = '';

function get(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    http.get(url, { agent, headers: { Cookie: cookie } }, (res) => {
      res.resume();
      res.once('error', reject);
      res.once('end', () => (res.statusCode === 200 ? resolve(Number(process.hrtime.bigint() - t0) / 1e6) : reject(new Error(`${url}: ${res.statusCode}`))));
    }).once('error', reject);
  });
}

async function put(api: string, token: string, file: string, content: string): Promise<void> {
  const res = await fetch(`${api}/repos/alice/web/contents/${file}`, {
    method: 'POST', headers: { Authorization: `token ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ content: Buffer.from(content).toString('base64'), message: `add ${file}` }),
  });
  if (res.status !== 201) throw new Error(`${file}: ${res.status} ${await res.text()}`);
}

async function apiCall(api: string, token: string, method: string, p: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${api}${p}`, { method, headers: { Authorization: `token ${token}`, 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, json: (await res.json().catch(() => ({}))) as Record<string, unknown> };
}

/** alice/pr with main (400 files) and topic (50 commits, 1,000 files changed), and its pull request; the request's number. */
async function pullWithThousandFiles(api: string, root: string, token: string): Promise<number> {
  const made = await apiCall(api, token, 'POST', '/user/repos', { name: 'pr' });
  if (made.status !== 201) throw new Error(`create alice/pr: ${made.status}`);
  const home = benchHome();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-web-pr-'));
  await timedGit(['init', '-q', '--bare', dir], gitEnv(home));
  await fastImport(dir, home, mainStream());
  await fastImport(dir, home, topicStream());
  const url = `http://alice:${token}@${new URL(root).host}/alice/pr.git`;
  await timedGit(['--git-dir', dir, 'push', '-q', url, 'main', 'topic'], gitEnv(home));
  fs.rmSync(dir, { recursive: true, force: true });
  // why: the push is processed after git's answer (the outbox); the branch list knows both once it is.
  const branches = async () => ((await apiCall(api, token, 'GET', '/repos/alice/pr/branches')).json as unknown as unknown[]).length;
  for (let i = 0; i < 600 && (await branches()) < 2; i++) await new Promise((r) => setTimeout(r, 100));
  const pull = await apiCall(api, token, 'POST', '/repos/alice/pr/pulls', { head: 'topic', base: 'main', title: 'A thousand files' });
  if (pull.status !== 201) throw new Error(`pull request: ${pull.status} ${JSON.stringify(pull.json)}`);
  const n = Number(pull.json.number);
  for (let i = 0; i < 600; i++) {
    if ((await apiCall(api, token, 'GET', `/repos/alice/pr/pulls/${n}`)).json.mergeable) return n;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the pull request was never checked');
}

/** Run the scenarios and print the table. */
export async function run(): Promise<void> {
  // why: the issue benchmark's world, with the one busy issue at 200 comments and fewer others (set before it loads).
  process.env.BENCH_HOT_COMMENTS ??= '200';
  process.env.BENCH_COMMENTS ??= '20000';
  process.env.BENCH_REPOS ??= '1';
  const issues = await import('./issues');
  const say = (m: string) => process.stdout.write(`[web] ${m}\n`);
  const { s: server, token } = await issues.seededIssueServer('sqlite3', say);
  try {
    const made = await apiCall(server.api, token, 'POST', '/user/repos', { name: 'web' });
    if (made.status !== 201) throw new Error(`create: ${made.status}`);
    await put(server.api, token, 'README.md', readme());
    await put(server.api, token, 'src/big.ts', bigSource());
    say('making a pull request of 1,000 files ...');
    const pull = await pullWithThousandFiles(server.api, server.url, token);
    cookie = await signIn(server.url, 'alice', 'alice-password');
    const scenarios: [string, string][] = [
      ['repository home with a README', `${server.url}alice/web`],
      ['file view, 5,000 lines highlighted', `${server.url}alice/web/src/branch/main/src/big.ts`],
      ['issue list, 100,000-issue repository', `${server.url}alice/big/issues`],
      [`issue page with ${process.env.BENCH_HOT_COMMENTS} comments`, `${server.url}alice/big/issues/${issues.HOT_INDEX}`],
      ['pull request files page, 1,000 files', `${server.url}alice/pr/pulls/${pull}/files`],
    ];
    const rows: string[] = [];
    for (const [name, url] of scenarios) {
      const first = await get(url);
      for (let i = 0; i < WARMUP; i++) await get(url);
      const times: number[] = [];
      for (let i = 0; i < RUNS; i++) times.push(await get(url));
      const p50 = median(times);
      const p99 = percentile(times, 99);
      rows.push(`| ${name} | ${first.toFixed(1)} | ${p50.toFixed(1)} | ${p99.toFixed(1)} | ${p50 < P50_MS && p99 < P99_MS ? 'met' : 'NOT met'} |`);
      say(`${name}: p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms`);
    }
    process.stdout.write(`\nbench web: ${RUNS} requests per page after ${WARMUP} warm-up, one worker, signed in; targets p50 < ${P50_MS} ms, p99 < ${P99_MS} ms\n\n`);
    process.stdout.write('| page | first request (ms) | p50 (ms) | p99 (ms) | target |\n|---|---:|---:|---:|---|\n');
    process.stdout.write(`${rows.join('\n')}\n`);
  } catch (err) {
    process.stderr.write(`${server.output.slice(-3000)}\n`);
    throw err;
  } finally {
    agent.destroy();
    await server.destroy();
  }
}
