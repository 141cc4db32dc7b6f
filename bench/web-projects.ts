/**
 * bench/web's project board part (`npm run bench -- web projects`, or BENCH_WEB=projects): a board
 * of 10 columns and 2,000 cards (issues with a label each, 200 per column) on a forge of its own,
 * one worker, signed in: the board page's first request and its warm p50 and p99 (target p50 under
 * 50 ms), a card's move as the page script sends it (`POST .../{column}/move` with the whole target
 * column's order, the card first) p50 and p99 (target p99 under 20 ms), and the statements a page
 * load sends to the database (the JSON access line's count), beside a board of 3 cards: the same
 * number, none per card.
 */
import http from 'node:http';
import { agent, sessionRequest, type TimedAnswer } from './http';
import { median, percentile } from './util';
import type { TestServer } from '../test/helpers/server';

const CARDS = Number(process.env.BENCH_PROJECT_CARDS ?? '2000');
const COLUMNS = 10;
const RUNS = Number(process.env.BENCH_WEB_RUNS ?? '200');
const WARMUP = Number(process.env.BENCH_WEB_WARMUP ?? '20');
const MOVES = Number(process.env.BENCH_PROJECT_MOVES ?? '200');
const PAGE_P50_MS = 50;
const MOVE_P99_MS = 20;

interface Ctx { server: TestServer; token: string; cookie: string; csrf: string; say: (m: string) => void }

/** One request with the session: milliseconds, status, body. */
function request(c: Ctx, method: string, path: string, body?: string, headers: Record<string, string> = {}): Promise<TimedAnswer> {
  return sessionRequest(`${c.server.url}${path}`, c.cookie, method, body, headers);
}

const origin = (c: Ctx) => new URL(c.server.url).origin;

/** A form POST as the page sends it; the redirect's target. */
async function form(c: Ctx, path: string, fields: Record<string, string>): Promise<string> {
  const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
    const req = http.request(`${c.server.url}${path}`, {
      method: 'POST', agent, headers: { Cookie: c.cookie, Origin: origin(c), 'Content-Type': 'application/x-www-form-urlencoded' },
    }, resolve);
    req.once('error', reject);
    req.end(new URLSearchParams({ _csrf: c.csrf, ...fields }).toString());
  });
  res.resume();
  if (res.statusCode !== 303) throw new Error(`${path}: ${res.statusCode}`);
  return String(res.headers.location);
}

async function api(c: Ctx, method: string, p: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${c.server.api}${p}`, { method, headers: { Authorization: `token ${c.token}`, 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${await res.text()}`);
  return res.json() as Promise<Record<string, unknown>>;
}

/** Run `fn` on 0..n-1, `width` at a time. */
async function inParallel(n: number, width: number, fn: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => { while (next < n) await fn(next++); }));
}

/** The columns of a board page, with their card ids in order. */
function columnsOf(html: string): { id: number; cards: number[] }[] {
  return html.split('<section class="project-column').slice(1).map((part) => ({
    id: Number(/data-column="(\d+)"/.exec(part)![1]), cards: [...part.matchAll(/ id="card-(\d+)"/g)].map((m) => Number(m[1])),
  }));
}

/** The statements a warm load of `path` sends: the fewest of three, from their JSON access lines. */
async function queriesOf(c: Ctx, path: string): Promise<number> {
  let n = Infinity;
  for (let i = 0; i < 3; i++) {
    const id = `bench-queries-${Date.now()}-${i}`;
    await request(c, 'GET', path, undefined, { 'X-Request-Id': id });
    for (let k = 0; k < 100; k++) {
      const line = c.server.output.split('\n').find((l) => l.startsWith('{') && l.includes(`"request_id":"${id}"`));
      if (line) { n = Math.min(n, (JSON.parse(line) as { queries: number }).queries); break; }
      await new Promise((r) => setTimeout(r, 20));
    }
  }
  return n;
}

/** A new repository project of `title` with the basic kanban columns and `extra` more; its path and its columns. */
async function newBoard(c: Ctx, title: string, extra: number): Promise<{ path: string; columns: number[] }> {
  const at = await form(c, 'alice/plan/projects/new', { title, template_type: '1' });
  const path = new URL(at, c.server.url).pathname.slice(1);
  for (let i = 0; i < extra; i++) await form(c, path, { title: `Stage ${i + 1}`, color: '#0969da' });
  return { path, columns: columnsOf((await request(c, 'GET', path)).text).map((x) => x.id) };
}

/**
 * Seed and measure; the table's rows. `server` runs with `[log] LEVEL = info` and `FORMAT = json`
 * (the statement counts come from its access lines).
 */
export async function projectsPart(server: TestServer, token: string, cookie: string, say: (m: string) => void): Promise<string[]> {
  const c: Ctx = { server, token, cookie, csrf: '', say };
  await api(c, 'POST', '/user/repos', { name: 'plan', auto_init: true });
  c.csrf = /name="_csrf" value="([^"]+)"/.exec((await request(c, 'GET', 'alice/plan/projects/new')).text)![1];
  const labels = await Promise.all(['bug', 'feature', 'docs'].map(async (name, k) => Number((await api(c, 'POST', '/repos/alice/plan/labels', { name, color: ['#d73a4a', '#a2eeef', '#0075ca'][k] })).id)));
  const big = await newBoard(c, 'Big board', COLUMNS - 4);
  const small = await newBoard(c, 'Small board', 0);
  say(`seeding ${CARDS} issues and their cards on ${big.columns.length} columns ...`);
  const numbers: number[] = new Array(CARDS + 3);
  await inParallel(CARDS + 3, 8, async (i) => {
    numbers[i] = Number((await api(c, 'POST', '/repos/alice/plan/issues', { title: `Task ${i}: something to plan`, labels: [labels[i % 3]] })).number);
  });
  await inParallel(CARDS + 3, 8, async (i) => {
    const target = i < CARDS ? `${big.path.split('/').pop()}:${big.columns[i % big.columns.length]}` : `${small.path.split('/').pop()}:0`;
    await form(c, `alice/plan/issues/${numbers[i]}/projects`, { target });
  });

  say('the board page ...');
  const first = await request(c, 'GET', big.path);
  if (first.status !== 200) throw new Error(`board: ${first.status}`);
  const cards = columnsOf(first.text).reduce((n, col) => n + col.cards.length, 0);
  if (cards !== CARDS) throw new Error(`the board shows ${cards} cards, not ${CARDS}`);
  for (let i = 0; i < WARMUP; i++) await request(c, 'GET', big.path);
  const pages: number[] = [];
  for (let i = 0; i < RUNS; i++) pages.push((await request(c, 'GET', big.path)).ms);

  say('moves ...');
  const cols = columnsOf((await request(c, 'GET', big.path)).text);
  const moves: number[] = [];
  for (let i = 0; i < MOVES; i++) {
    // why: the card on top of one column goes on top of the next, as a drag sends it: the whole target column's order.
    const from = cols[i % cols.length];
    const to = cols[(i + 1) % cols.length];
    const card = from.cards.shift()!;
    to.cards.unshift(card);
    const body = JSON.stringify({ issues: to.cards.map((id, sorting) => ({ issueID: id, sorting })) });
    const res = await request(c, 'POST', `${big.path}/${to.id}/move`, body, { 'Content-Type': 'application/json', 'X-Csrf-Token': c.csrf, Origin: origin(c) });
    if (res.status !== 200) throw new Error(`move: ${res.status} ${res.text}`);
    moves.push(res.ms);
  }

  // the server's own time and statements of each move, from its access lines
  const moveLines = c.server.output.split('\n').filter((l) => l.startsWith('{') && l.includes('"method":"POST"') && l.includes(`"uri":"/${big.path}/`) && l.includes('/move"'))
    .map((l) => JSON.parse(l) as { duration_ms: number; queries: number });
  const serverMoves = moveLines.map((m) => m.duration_ms);
  const pageLines = c.server.output.split('\n').filter((l) => l.startsWith('{') && l.includes('"method":"GET"') && l.includes(`"uri":"/${big.path}"`))
    .map((l) => (JSON.parse(l) as { duration_ms: number }).duration_ms);
  const serverPages = pageLines.slice(-RUNS);
  const moveQueries = moveLines.length ? Math.max(...moveLines.map((m) => m.queries)) : 0;
  const [qBig, qSmall] = [await queriesOf(c, big.path), await queriesOf(c, small.path)];
  const [p50, p99, m50, m99] = [median(pages), percentile(pages, 99), median(moves), percentile(moves, 99)];
  say(`board p50 ${p50.toFixed(1)} ms, move p99 ${m99.toFixed(1)} ms, statements ${qBig} (3 cards: ${qSmall})`);
  const kb = (Buffer.byteLength(first.text) / 1024).toFixed(0);
  return [
    `| board page, ${COLUMNS} columns and ${CARDS} cards: first request | ${first.ms.toFixed(1)} ms | - | - | ${kb} KiB |`,
    `| board page, warm p50 (p99) | ${p50.toFixed(1)} ms (${p99.toFixed(1)} ms) | < ${PAGE_P50_MS} ms | ${p50 < PAGE_P50_MS ? 'met' : 'NOT met'} | ${RUNS} requests |`,
    `| the same pages, server time p50 (p99) | ${median(serverPages).toFixed(1)} ms (${percentile(serverPages, 99).toFixed(1)} ms) | - | - | access lines |`,
    `| a card's move (POST, the target column's ${Math.round(CARDS / COLUMNS)} cards), p50 (p99) | ${m50.toFixed(1)} ms (${m99.toFixed(1)} ms) | p99 < ${MOVE_P99_MS} ms | ${m99 < MOVE_P99_MS ? 'met' : 'NOT met'} | ${MOVES} moves |`,
    `| the same moves, server time p50 (p99); statements per move (at most) | ${median(serverMoves).toFixed(1)} ms (${percentile(serverMoves, 99).toFixed(1)} ms); ${moveQueries} | - | - | access lines |`,
    `| statements per board page load | ${qBig} (a board of 3 cards: ${qSmall}) | fixed | ${qBig === qSmall ? 'met' : 'NOT met'} | warm |`,
  ];
}
