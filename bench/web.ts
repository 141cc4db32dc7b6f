/**
 * bench/web: server time of the browser UI's heaviest pages, one worker on the embedded default.
 * A repository bench/web holds a README of about 6 KB (headings, lists, a table, code, links,
 * references) and a 5,000-line TypeScript file; each scenario is requested BENCH_WARMUP times, then
 * BENCH_RUNS times in turn, and prints the median and p99 of the whole request (loopback, body read)
 * against the targets (p50 < 50 ms, p99 < 150 ms).
 *
 * The issue list of the 100,000-issue repository, an issue with 200 comments and a pull request's
 * files page with 1,000 files are printed as "not built" until those pages exist.
 */
import http from 'node:http';
import { agent } from './http';
import { benchServer, median, percentile } from './util';

const RUNS = Number(process.env.BENCH_RUNS ?? '200');
const WARMUP = Number(process.env.BENCH_WARMUP ?? '20');
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

function get(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    http.get(url, { agent }, (res) => {
      res.resume();
      res.once('error', reject);
      res.once('end', () => (res.statusCode === 200 ? resolve(Number(process.hrtime.bigint() - t0) / 1e6) : reject(new Error(`${url}: ${res.statusCode}`))));
    }).once('error', reject);
  });
}

async function put(api: string, token: string, path: string, content: string): Promise<void> {
  const res = await fetch(`${api}/repos/bench/web/contents/${path}`, {
    method: 'POST', headers: { Authorization: `token ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ content: Buffer.from(content).toString('base64'), message: `add ${path}` }),
  });
  if (res.status !== 201) throw new Error(`${path}: ${res.status} ${await res.text()}`);
}

/** Run the scenarios and print the table. */
export async function run(): Promise<void> {
  const { server, token } = await benchServer();
  try {
    const made = await fetch(`${server.api}/user/repos`, { method: 'POST', headers: { Authorization: `token ${token}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'web' }) });
    if (made.status !== 201) throw new Error(`create: ${made.status}`);
    await put(server.api, token, 'README.md', readme());
    await put(server.api, token, 'src/big.ts', bigSource());
    const scenarios: [string, string][] = [
      ['repository home with a README', `${server.url}bench/web`],
      ['file view, 5,000 lines highlighted', `${server.url}bench/web/src/branch/main/src/big.ts`],
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
    }
    for (const name of ['issue list, 100,000-issue repository', 'issue page with 200 comments', 'pull request files page, 1,000 files']) rows.push(`| ${name} | | | | not built |`);
    process.stdout.write(`\nbench web: ${RUNS} requests per page after ${WARMUP} warm-up, one worker; targets p50 < ${P50_MS} ms, p99 < ${P99_MS} ms\n\n`);
    process.stdout.write('| page | first request (ms) | p50 (ms) | p99 (ms) | target |\n|---|---:|---:|---:|---|\n');
    process.stdout.write(`${rows.join('\n')}\n`);
  } finally {
    await server.destroy();
  }
}
