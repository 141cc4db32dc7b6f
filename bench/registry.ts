/**
 * What the registry benchmarks share: kept-alive GETs and PUTs, uploads from concurrent clients,
 * a static file server to compare the forge with, and timing a client program against both.
 */
import fs from 'node:fs';
import path from 'node:path';
import http from 'node:http';
import { spawn } from 'node:child_process';
import { median, percentile } from './util';

/** One upload: which registry, the package and version, its file name and bytes. */
export interface Upload { kind: string; name: string; version: string; file: string; body: Buffer }

const since = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e9;

/** Kept-alive connections for the bench's own reads (mirroring, polls). */
export const calls = new http.Agent({ keepAlive: true, maxSockets: 8 });

/** GET `url`; answers the status and the body. */
export function get(url: string): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http.get(url, { agent: calls }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.once('error', reject);
      res.once('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
    }).once('error', reject);
  });
}

/** GET `url`, which must answer 200; answers the body. */
export async function fetchOk(url: string): Promise<Buffer> {
  const r = await get(url);
  if (r.status !== 200) throw new Error(`GET ${url}: ${r.status} ${r.body.toString('utf8', 0, 300)}`);
  return r.body;
}

/** PUT `body` to `url`; answers the status and the body. */
export function put(url: string, body: Buffer, agent: http.Agent, auth: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'PUT', agent, headers: { Authorization: auth, 'Content-Type': 'application/octet-stream', 'Content-Length': String(body.length) } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => { text += d; });
      res.once('error', reject);
      res.once('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.once('error', reject);
    req.end(body);
  });
}

/** What an upload phase measured. */
export interface Uploaded { seconds: number; perSecond: number; p50: number; p99: number; lastAt: bigint }

/** Upload every file from `clients` clients, each taking the next file when its last one answered; every answer must be `want`. */
export async function uploadAll<U extends Upload>(uploads: U[], urlOf: (u: U) => string, auth: string, want: number, clients: number): Promise<Uploaded> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: clients });
  const latencies: number[] = [];
  let next = 0;
  let lastAt = 0n;
  const t0 = process.hrtime.bigint();
  try {
    await Promise.all(Array.from({ length: Math.min(clients, uploads.length) }, async () => {
      while (next < uploads.length) {
        const u = uploads[next++];
        const t = process.hrtime.bigint();
        const r = await put(urlOf(u), u.body, agent, auth);
        if (r.status !== want) throw new Error(`PUT ${u.kind} ${u.name} ${u.version}: ${r.status} ${r.text.slice(0, 300)}`);
        lastAt = process.hrtime.bigint();
        latencies.push(Number(lastAt - t) / 1e6);
      }
    }));
  } finally {
    agent.destroy();
  }
  const seconds = Number(lastAt - t0) / 1e9;
  return { seconds, perSecond: uploads.length / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99), lastAt };
}

/**
 * A node http server over the directory `root`: GET answers a file's bytes (404 when there is none),
 * PUT writes the body into `root/put/` and answers 201 (the uploads' baseline).
 */
export async function staticServer(root: string): Promise<{ base: string; close: () => Promise<void> }> {
  fs.mkdirSync(path.join(root, 'put'), { recursive: true });
  let puts = 0;
  const server = http.createServer((req, res) => {
    const fail = (status: number) => { if (!res.headersSent) res.writeHead(status); res.end(); };
    if (req.method === 'PUT') {
      const out = fs.createWriteStream(path.join(root, 'put', `upload-${++puts}`));
      req.pipe(out);
      out.once('error', () => fail(500));
      out.once('finish', () => { res.writeHead(201); res.end(); });
      return;
    }
    let file: string;
    try {
      file = path.join(root, decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname));
    } catch { fail(400); return; }
    if (!file.startsWith(`${root}/`)) { fail(404); return; }
    fs.stat(file, (err, st) => {
      if (err || !st.isFile()) { fail(404); return; }
      res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': String(st.size) });
      if (req.method === 'HEAD') { res.end(); return; }
      const s = fs.createReadStream(file);
      s.once('error', () => res.destroy());
      s.pipe(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    base: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

/** Write `bytes` at `root/rel`. */
export function writeTree(root: string, rel: string, bytes: Buffer): void {
  const file = path.join(root, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, bytes);
}

/** Run a program; resolves with the elapsed seconds and its output, rejects on failure. */
export function timed(cmd: string, args: string[], cwd: string, env: Record<string, string>): Promise<{ seconds: number; stdout: string }> {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const p = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    p.stderr.on('data', (d: Buffer) => { err += d.toString(); });
    p.once('error', reject);
    p.once('exit', (code) => {
      const seconds = since(t0);
      if (code === 0) resolve({ seconds, stdout: out });
      else reject(new Error(`${cmd} ${args.join(' ')} exited ${code}: ${err.slice(-2000)}`));
    });
  });
}

/** `run` once untimed against each base, then `rounds` rounds, the two in turn (the first alternating); answers the medians. */
export async function compare(label: string, bases: { forge: string; static: string }, run: (base: string) => Promise<number>, rounds: number, say: (m: string) => void): Promise<{ forge: number; static: number; runs: Record<'forge' | 'static', number[]> }> {
  await run(bases.static);
  await run(bases.forge);
  const runs = { forge: [] as number[], static: [] as number[] };
  for (let k = 0; k < rounds; k++) {
    const order: ('forge' | 'static')[] = k % 2 === 0 ? ['forge', 'static'] : ['static', 'forge'];
    for (const which of order) runs[which].push(await run(bases[which]));
    say(`${label} round ${k + 1}: forge ${runs.forge[k].toFixed(2)} s, static ${runs.static[k].toFixed(2)} s`);
  }
  return { forge: median(runs.forge), static: median(runs.static), runs };
}

