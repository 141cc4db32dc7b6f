/**
 * The benchmarks' HTTP client: node's own, with kept-alive connections. Not fetch: its web
 * streams cost the client about 5 ms per 2 MB archive, which would be counted as the forge's time.
 */
import http from 'node:http';
import { percentile } from './util';

/** Kept-alive connections shared by every timedGet of this process. */
export const agent = new http.Agent({ keepAlive: true });

/** Milliseconds of one GET (body read fully and dropped, as `git archive -o /dev/null` does). */
export function timedGet(url: string, token: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    http.get(url, { agent, headers: { Authorization: `token ${token}` } }, (res) => {
      res.resume();
      res.once('error', reject);
      res.once('end', () => (res.statusCode === 200 ? resolve(Number(process.hrtime.bigint() - t0) / 1e6) : reject(new Error(`${url}: ${res.statusCode}`))));
    }).once('error', reject);
  });
}

/** What a paced run measured: requests answered per second, latency percentiles in ms, failures. */
export interface PacedResult { rps: number; p50: number; p99: number; errors: number }

/**
 * GET `url` at `rate` per second, each request sent when its turn comes (evenly spaced) and its
 * latency counted from that turn, until `total` were sent (or `stop`): a slow answer delays no
 * later request and hides nothing (no coordinated omission). why: a closed-loop client that waits
 * for answers, or one that sends each second's quota in a burst, measures its own queue.
 */
function pacer(url: string, headers: Record<string, string>, rate: number, total = Infinity) {
  const pool = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const latencies: number[] = [];
  const pending: Promise<void>[] = [];
  let errors = 0;
  let sent = 0;
  const start = process.hrtime.bigint();
  const nowMs = () => Number(process.hrtime.bigint() - start) / 1e6;
  const one = (dueMs: number) => new Promise<void>((resolve) => {
    http.get(url, { agent: pool, headers }, (res) => {
      res.resume();
      res.once('end', () => {
        if (res.statusCode === 200) latencies.push(nowMs() - dueMs);
        else errors++;
        resolve();
      });
    }).once('error', () => { errors++; resolve(); });
  });
  let sentAll: () => void = () => {};
  const allSent = new Promise<void>((resolve) => { sentAll = resolve; });
  const timer = setInterval(() => {
    const due = Math.min(total, Math.floor((nowMs() * rate) / 1000) + 1);
    for (; sent < due; sent++) pending.push(one((sent * 1000) / rate));
    if (sent >= total) { clearInterval(timer); sentAll(); }
  }, 1);
  /** Stop sending, wait for the answers; the latencies, the failures and the seconds it ran. */
  const finish = async () => {
    clearInterval(timer);
    const seconds = nowMs() / 1000;
    await Promise.all(pending);
    pool.destroy();
    return { latencies, errors, seconds, elapsed: nowMs() / 1000 };
  };
  return { allSent, finish };
}

/** GET `url` at a fixed rate for `seconds` (see pacer). */
export async function pacedGets(url: string, headers: Record<string, string>, rate: number, seconds: number): Promise<PacedResult> {
  const p = pacer(url, headers, rate, Math.round(rate * seconds));
  await p.allSent;
  const { latencies, errors, elapsed } = await p.finish();
  latencies.sort((a, b) => a - b);
  const at = (q: number) => Math.round((latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN) * 10) / 10;
  return { rps: latencies.length / elapsed, p50: at(0.5), p99: at(0.99), errors };
}

/** What an evenly paced prober measured. */
export interface Probe { p50: number; p99: number; samples: number; errors: number; seconds: number }

/**
 * GET `url` at `rate` per second until stopped (see pacer). why not pacedGets: it runs for a
 * number of seconds fixed in advance, and the sync window is known only when it has ended.
 */
export function pacedUntilStopped(url: string, rate: number): { stop: () => Promise<Probe> } {
  const p = pacer(url, {}, rate);
  return {
    stop: async () => {
      const { latencies, errors, seconds } = await p.finish();
      return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), samples: latencies.length, errors, seconds };
    },
  };
}

/** What a timed request answered: milliseconds to the last byte, status and body. */
export interface TimedAnswer { ms: number; status: number; text: string }

/** One request with a session cookie on the keep-alive agent, timed to its last byte. */
export function sessionRequest(url: string, cookie: string, method: string, body?: string, headers: Record<string, string> = {}): Promise<TimedAnswer> {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const req = http.request(url, { method, agent, headers: { Cookie: cookie, ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.once('error', reject);
      res.once('end', () => resolve({ ms: Number(process.hrtime.bigint() - t0) / 1e6, status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.once('error', reject);
    req.end(body);
  });
}
