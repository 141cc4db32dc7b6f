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
 * GET `url` at a fixed rate for `seconds`, each request sent when its turn comes (evenly spaced),
 * and its latency counted from that turn: a slow answer delays no later request and hides nothing
 * (no coordinated omission). why: a closed-loop client that waits for answers, or one that sends
 * each second's quota in a burst, measures its own queue.
 */
export async function pacedGets(url: string, headers: Record<string, string>, rate: number, seconds: number): Promise<PacedResult> {
  const pool = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const total = Math.round(rate * seconds);
  const latencies: number[] = [];
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
  const pending: Promise<void>[] = [];
  await new Promise<void>((done) => {
    const timer = setInterval(() => {
      const due = Math.min(total, Math.floor((nowMs() * rate) / 1000) + 1);
      for (; sent < due; sent++) pending.push(one((sent * 1000) / rate));
      if (sent >= total) { clearInterval(timer); done(); }
    }, 1);
  });
  await Promise.all(pending);
  const elapsed = nowMs() / 1000;
  pool.destroy();
  latencies.sort((a, b) => a - b);
  const at = (q: number) => Math.round((latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN) * 10) / 10;
  return { rps: latencies.length / elapsed, p50: at(0.5), p99: at(0.99), errors };
}

/** What an evenly paced prober measured. */
export interface Probe { p50: number; p99: number; samples: number; errors: number; seconds: number }

/**
 * GET `url` at `rate` per second until stopped, each request sent when its turn comes and its
 * latency counted from that turn, as pacedGets does. why not pacedGets: it runs for a
 * number of seconds fixed in advance, and the sync window is known only when it has ended.
 */
export function pacedUntilStopped(url: string, rate: number): { stop: () => Promise<Probe> } {
  const pool = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const latencies: number[] = [];
  const pending: Promise<void>[] = [];
  let errors = 0;
  let sent = 0;
  const start = process.hrtime.bigint();
  const nowMs = () => Number(process.hrtime.bigint() - start) / 1e6;
  const one = (dueMs: number) => new Promise<void>((resolve) => {
    http.get(url, { agent: pool }, (res) => {
      res.resume();
      res.once('end', () => {
        if (res.statusCode === 200) latencies.push(nowMs() - dueMs);
        else errors++;
        resolve();
      });
    }).once('error', () => { errors++; resolve(); });
  });
  const timer = setInterval(() => {
    const due = Math.floor((nowMs() * rate) / 1000) + 1;
    for (; sent < due; sent++) pending.push(one((sent * 1000) / rate));
  }, 1);
  return {
    stop: async () => {
      clearInterval(timer);
      const seconds = nowMs() / 1000;
      await Promise.all(pending);
      pool.destroy();
      return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), samples: latencies.length, errors, seconds };
    },
  };
}
