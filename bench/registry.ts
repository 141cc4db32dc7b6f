/**
 * What the registry benchmarks share: a forge and a static file server to compare it with, started
 * and stopped; kept-alive GETs and PUTs; uploads from concurrent clients with `/version` probed
 * meanwhile; and timing a client program against both servers.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import { spawn } from 'node:child_process';
import type { TestServer } from '../test/helpers/server';
import { benchServer, median, percentile } from './util';
import { pacedUntilStopped, type Probe } from './http';

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


/** What a registry bench's body is given: the forge (one worker), its registry base and credentials, the static server and its root, a scratch directory, and the set-up timings to print. */
export interface RegistryBench {
  server: TestServer; registry: string; auth: string; files: { base: string; close: () => Promise<void> }; root: string; work: string; setup: Record<string, number>;
}

/**
 * Run a registry bench: a forge and a static file server started (timed as set-up), `body` run with
 * them, and both stopped whatever happens; the forge's data directory is kept when `keep` is set or
 * the run failed.
 */
export async function registryBench(label: string, keep: boolean, say: (m: string) => void, body: (b: RegistryBench) => Promise<void>): Promise<void> {
  const setup: Record<string, number> = {};
  const work = fs.mkdtempSync(path.join(os.tmpdir(), `bench-${label}-`));
  const root = path.join(work, 'static');
  let server: TestServer | null = null;
  let files: RegistryBench['files'] | null = null;
  let done = false;
  try {
    const t = process.hrtime.bigint();
    const made = await benchServer();
    server = made.server;
    files = await staticServer(root);
    setup['forge and static server started'] = since(t);
    await body({ server, registry: `${server.url}api/packages/bench`, auth: `Basic ${Buffer.from(`bench:${made.token}`).toString('base64')}`, files, root, work, setup });
    done = true;
  } finally {
    calls.destroy();
    if (files) await files.close();
    if (server) await server.destroy();
    fs.rmSync(work, { recursive: true, force: true });
    if (server && done && !keep) fs.rmSync(server.dataDir, { recursive: true, force: true });
    else if (server) say(`kept: ${server.dataDir}`);
  }
}

/** What an upload phase measured: the baseline's uploads, the forge's, `/version` meanwhile, and how long after the last upload the forge listed them all. */
export interface UploadPhase { base: Uploaded; forge: Uploaded; probe: Probe; completeS: number; polls: number }

/**
 * Upload every file from `clients` clients to the static server (the baseline), then to the forge
 * with `/version` paced at `probeRate` until `complete()` (asked every 10 ms from the last upload's
 * answer) says the forge lists them all; more than `limitMs` fails the run.
 */
export async function uploadPhase<U extends Upload>(
  b: RegistryBench, uploads: U[], urlOf: (u: U) => string, o: { clients: number; probeRate: number; limitMs: number; say: (m: string) => void; complete: () => Promise<string | null> },
): Promise<UploadPhase> {
  o.say(`baseline: ${uploads.length} PUTs into files from ${o.clients} clients ...`);
  const base = await uploadAll(uploads, () => `${b.files.base}/put`, b.auth, 201, o.clients);
  fs.rmSync(path.join(b.root, 'put'), { recursive: true, force: true });
  o.say(`uploading ${uploads.length} packages to the forge from ${o.clients} clients ...`);
  const probe = pacedUntilStopped(`${b.server.api}/version`, o.probeRate);
  let forge: Uploaded;
  let polls = 0;
  let completeS = NaN;
  let probed: Probe;
  try {
    forge = await uploadAll(uploads, urlOf, b.auth, 201, o.clients);
    for (;;) {
      // why: complete() answers what is still missing, or null.
      const missing = await o.complete();
      polls++;
      if (missing === null) { completeS = since(forge.lastAt); break; }
      if (since(forge.lastAt) * 1000 > o.limitMs) throw new Error(`${o.limitMs / 1000} s after the last upload: ${missing}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  } finally {
    probed = await probe.stop();
  }
  o.say(`forge: ${forge.perSecond.toFixed(1)} uploads/s; all listed ${(completeS * 1000).toFixed(0)} ms after the last upload; /version p99 ${probed.p99.toFixed(1)} ms`);
  return { base, forge, probe: probed, completeS, polls };
}
