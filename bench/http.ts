/**
 * The benchmarks' HTTP client: node's own, with kept-alive connections. Not fetch: its web
 * streams cost the client about 5 ms per 2 MB archive, which would be counted as the forge's time.
 */
import http from 'node:http';

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
