/**
 * bench/packages: the Go module and R package registries under upload load, and the two formats'
 * own clients against them; then the Linux formats (packages-linux.ts). BENCH_PACKAGES=go-r or
 * linux runs one part.
 * - Made up front, outside every clock: BENCH_GO_MODULES (100) Go modules × BENCH_GO_VERSIONS (10)
 *   versions as module zips (stored, as `zip -0` makes them: go.mod and one Go file under
 *   `{module}@{version}/`), and BENCH_R_PACKAGES (1000) R packages × BENCH_R_VERSIONS (1) versions
 *   as source tarballs (DESCRIPTION, NAMESPACE, one R file under `{name}/`).
 * - The uploads: BENCH_CLIENTS (16) clients, each a loop PUTting the next file (Go and R mixed, the
 *   versions of a package in order) over kept-alive connections with Basic auth; uploads per second
 *   over the whole phase. The baseline is the same clients PUTting the same bodies into a node
 *   http server that only writes each body to a file. `GET /api/v1/version` is evenly paced
 *   (BENCH_PROBE_RATE, 50/s) from the first upload until PACKAGES lists every package.
 * - From the answer of the last upload, `PACKAGES` is read again and again until it lists every R
 *   package at its newest version.
 * - A static file server (node http, files from a directory tree in the registries' URL layout)
 *   is given the very bytes the forge serves (fetched once, and checked against the uploads). Then
 *   `go mod download` of BENCH_DOWNLOADS (50) modules (a go.mod requiring each one's newest
 *   version; fresh GOPATH, module cache and build cache each time) and R's
 *   `available.packages(type = "source")` (a fresh Rscript each time) are timed against both
 *   servers, taken in turn for BENCH_ROUNDS (3) rounds after one untimed run against each; medians.
 * Targets (the issue's): PACKAGES lists them all under 2 s after the last upload; /version p99
 * under 50 ms throughout; each client's time within 1.2 times the static server's.
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { execFileSync } from 'node:child_process';
import type { TestServer } from '../test/helpers/server';
import { zipArchive } from '../test/helpers/zip';
import { tarBytes } from '../test/helpers/packages';
import { median } from './util';
import { compare, fetchOk, get, registryBench, timed, uploadPhase, writeTree, type Upload as RegistryUpload, type UploadPhase } from './registry';
import { runLinux } from './packages-linux';

const GO_MODULES = Number(process.env.BENCH_GO_MODULES ?? '100');
const GO_VERSIONS = Number(process.env.BENCH_GO_VERSIONS ?? '10');
const R_PACKAGES = Number(process.env.BENCH_R_PACKAGES ?? '1000');
const R_VERSIONS = Number(process.env.BENCH_R_VERSIONS ?? '1');
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? '16');
const DOWNLOADS = Math.min(GO_MODULES, Number(process.env.BENCH_DOWNLOADS ?? '50'));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? '3');
const PROBE_RATE = Number(process.env.BENCH_PROBE_RATE ?? '50');
const KEEP = !!process.env.BENCH_KEEP;
/** Targets of the issue. */
const PACKAGES_SECONDS = 2;
const P99_MS = 50;
const CLIENT_RATIO = 1.2;
/** How long PACKAGES may lag before the run fails. */
const PACKAGES_LIMIT_MS = 60_000;
/** Every file's time stamp in the archives (2025-01-01). */
const MTIME = new Date(Date.UTC(2025, 0, 1));

const say = (m: string) => process.stderr.write(`[packages] ${m}\n`);
const since = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e9;
const pad = (i: number, n: number) => String(i).padStart(String(n).length, '0');

// ---------------------------------------------------------------------------------------------
// The files

/** A deterministic generator of numbers in [0, 1). */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const WORDS = ['module', 'version', 'request', 'answer', 'index', 'registry', 'package', 'client', 'server', 'upload', 'archive', 'checksum',
  'proxy', 'source', 'build', 'cache', 'list', 'latest', 'stable', 'release', 'import', 'export', 'value', 'function', 'return', 'error'];

/** `lines` comment lines of words, each starting with `lead`. */
function filler(r: () => number, lead: string, lines: number): string {
  let out = '';
  for (let i = 0; i < lines; i++) {
    const n = 6 + Math.floor(r() * 8);
    out += `${lead}${Array.from({ length: n }, () => WORDS[Math.floor(r() * WORDS.length)]).join(' ')}.\n`;
  }
  return out;
}

/** A zip of stored (uncompressed) entries, as `zip -0 -D` writes them: no directory entries, Unix mode 0644. */
function storedZip(files: [string, Buffer][]): Buffer {
  return zipArchive(files.map(([name, data]) => ({ name, data, method: 0, crc: zlib.crc32(data), size: data.length })), MTIME);
}

/** A tar.gz of plain files. */
async function tarGz(files: [string, string][]): Promise<Buffer> {
  return zlib.gzipSync(await tarBytes(files));
}

/** One upload of this bench. */
interface Upload extends RegistryUpload { kind: 'go' | 'cran' }

const moduleOf = (i: number) => `example.com/m${pad(i, GO_MODULES)}`;
const goVersion = (j: number) => `v1.0.${j}`;
const rName = (i: number) => `pkg${pad(i, R_PACKAGES)}`;
const rVersion = (j: number) => `1.0.${j}`;

function goModule(i: number, j: number): Upload {
  const module = moduleOf(i);
  const version = goVersion(j);
  const pkg = module.split('/').pop()!;
  const r = prng(i * 1000 + j + 1);
  const goMod = `module ${module}\n\ngo 1.19\n`;
  const source = `// Package ${pkg} is module ${i} of bench/packages, at ${version}.\npackage ${pkg}\n\n`
    + `// Version is this module's version.\nconst Version = "${version}"\n\n${filler(r, '// ', 60)}`
    + `\n// Hello answers the module and its version.\nfunc Hello() string { return "${module} " + Version }\n`;
  const prefix = `${module}@${version}/`;
  return { kind: 'go', name: module, version, file: `${version}.zip`, body: storedZip([[`${prefix}go.mod`, Buffer.from(goMod)], [`${prefix}${pkg}.go`, Buffer.from(source)]]) };
}

async function rPackage(i: number, j: number): Promise<Upload> {
  const name = rName(i);
  const version = rVersion(j);
  const r = prng(7_000_000 + i * 1000 + j);
  const description = [`Package: ${name}`, 'Type: Package', `Title: Bench Package ${i}`, `Version: ${version}`, 'Authors@R: person("Bench", "Bench", email = "bench@example.com", role = c("aut", "cre"))',
    'Author: Bench Bench [aut, cre]', 'Maintainer: Bench Bench <bench@example.com>', `Description: Package ${i} of bench/packages, at version ${version}.`,
    'License: MIT + file LICENSE', 'Depends: R (>= 3.5.0)', 'Imports: utils', 'Encoding: UTF-8', 'NeedsCompilation: no', `Packaged: ${MTIME.toISOString()}; bench`, ''].join('\n');
  const code = `${filler(r, '# ', 40)}\nhello_${name.replace(/\./g, '_')} <- function() {\n  paste("${name}", "${version}")\n}\n`;
  const body = await tarGz([[`${name}/DESCRIPTION`, description], [`${name}/NAMESPACE`, `export(hello_${name.replace(/\./g, '_')})\n`],
    [`${name}/LICENSE`, 'YEAR: 2025\nCOPYRIGHT HOLDER: Bench\n'], [`${name}/R/${name}.R`, code]]);
  return { kind: 'cran', name, version, file: `${name}_${version}.tar.gz`, body };
}

/** Every upload, Go and R evenly mixed, each registry's versions in order (all packages' first version, then their second, ...). */
async function makeUploads(): Promise<Upload[]> {
  const go: Upload[] = [];
  for (let j = 0; j < GO_VERSIONS; j++) for (let i = 1; i <= GO_MODULES; i++) go.push(goModule(i, j));
  const r: Upload[] = [];
  for (let j = 0; j < R_VERSIONS; j++) for (let i = 1; i <= R_PACKAGES; i++) r.push(await rPackage(i, j));
  const place = (xs: Upload[]) => xs.map((u, k) => ({ u, at: (k + 0.5) / xs.length }));
  return [...place(go), ...place(r)].sort((a, b) => a.at - b.at).map((x) => x.u);
}

/** `go mod download` of `mods` through the proxy at `proxy` in a fresh HOME (GOPATH, module cache, build cache); answers its seconds. */
async function goDownload(proxy: string, mods: { path: string; version: string }[], scratch: string): Promise<number> {
  const home = fs.mkdtempSync(path.join(scratch, 'go-'));
  try {
    const client = path.join(home, 'client');
    fs.mkdirSync(client);
    fs.writeFileSync(path.join(client, 'go.mod'), `module bench.example/client\n\ngo 1.19\n\nrequire (\n${mods.map((m) => `\t${m.path} ${m.version}\n`).join('')})\n`);
    const modCache = path.join(home, 'go', 'pkg', 'mod');
    const { seconds } = await timed('go', ['mod', 'download'], client, {
      PATH: process.env.PATH!, HOME: home, GOPATH: path.join(home, 'go'), GOMODCACHE: modCache, GOCACHE: path.join(home, 'cache'),
      GOPROXY: proxy, GOSUMDB: 'off', GOFLAGS: '-mod=mod', GOTOOLCHAIN: 'local', GO111MODULE: 'on', CGO_ENABLED: '0',
    });
    // why: the go command exits 0 only when every module came, but it is checked: each zip in the cache and unpacked.
    for (const m of mods) {
      if (!fs.existsSync(path.join(modCache, 'cache', 'download', m.path, '@v', `${m.version}.zip`)) || !fs.existsSync(path.join(modCache, `${m.path}@${m.version}`, 'go.mod'))) {
        throw new Error(`go mod download via ${proxy} left no ${m.path}@${m.version}`);
      }
    }
    return seconds;
  } finally {
    // why: the module cache is read-only as the go command leaves it.
    execFileSync('chmod', ['-R', 'u+w', home]);
    fs.rmSync(home, { recursive: true, force: true });
  }
}

/** `available.packages()` of the repository at `repos` in a fresh Rscript with its own HOME and TMPDIR; answers its seconds. */
async function rAvailable(repos: string, scratch: string): Promise<number> {
  const home = fs.mkdtempSync(path.join(scratch, 'r-'));
  try {
    const { seconds, stdout } = await timed('Rscript', ['--vanilla', '-e', `a <- available.packages(repos = "${repos}", type = "source"); cat(nrow(a), sum(a[, "Version"] == "${rVersion(R_VERSIONS - 1)}"), "\\n")`],
      home, { PATH: process.env.PATH!, HOME: home, TMPDIR: home, R_LIBS_USER: home, LANG: 'C' });
    const [n, newest] = stdout.trim().split(/\s+/).map(Number);
    if (n !== R_PACKAGES || newest !== R_PACKAGES) throw new Error(`available.packages() of ${repos} answered ${stdout.trim()} (want ${R_PACKAGES} packages at ${rVersion(R_VERSIONS - 1)})`);
    return seconds;
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------

/** Does this PACKAGES list every R package at its newest version? Answers how many it lists so. */
function listedAtNewest(text: string): number {
  const newest = rVersion(R_VERSIONS - 1);
  const seen = new Map<string, string>();
  for (const stanza of text.split(/\n\s*\n/)) {
    const name = /^Package: (.+)$/m.exec(stanza)?.[1];
    const version = /^Version: (.+)$/m.exec(stanza)?.[1];
    if (name && version) seen.set(name, version);
  }
  let n = 0;
  for (let i = 1; i <= R_PACKAGES; i++) if (seen.get(rName(i)) === newest) n++;
  return n;
}

interface Result extends UploadPhase {
  uploads: number; packagesForgeMs: number; packagesStaticMs: number; packagesBytes: number;
  reads: Record<'forge' | 'static', { info: number; zip: number }>;
  go: { forge: number; static: number }; r: { forge: number; static: number }; setup: Record<string, number>;
}

/** The Go and R part. */
async function runGoAndR(): Promise<void> {
  if (GO_MODULES < 1 || GO_VERSIONS < 1 || R_PACKAGES < 1 || R_VERSIONS < 1 || CLIENTS < 1 || ROUNDS < 1) throw new Error('every BENCH_ count must be at least 1');
  await registryBench('packages', KEEP, say, async (b) => {
    const { registry, root, work, files } = b;
    let t = process.hrtime.bigint();
    const uploads = await makeUploads();
    const mb = uploads.reduce((s, u) => s + u.body.length, 0) / 1e6;
    b.setup[`${uploads.length} archives made (${mb.toFixed(1)} MB)`] = since(t);

    // the uploads (after the baseline's), /version paced meanwhile, then PACKAGES until it lists every package
    const phase = await uploadPhase(b, uploads, (u) => (u.kind === 'go' ? `${registry}/go/upload` : `${registry}/cran/src`), {
      clients: CLIENTS, probeRate: PROBE_RATE, limitMs: PACKAGES_LIMIT_MS, say,
      complete: async () => {
        const r = await get(`${registry}/cran/src/contrib/PACKAGES`);
        const listed = r.status === 200 ? listedAtNewest(r.body.toString('utf8')) : 0;
        return listed === R_PACKAGES ? null : `PACKAGES lists ${listed} of ${R_PACKAGES} packages at their newest version`;
      },
    });
    // the static tree: the bytes the forge serves, checked against what was uploaded
    t = process.hrtime.bigint();
    const newestGo = goVersion(GO_VERSIONS - 1);
    const mods = Array.from({ length: DOWNLOADS }, (_, k) => ({ path: moduleOf(1 + Math.floor((k * GO_MODULES) / DOWNLOADS)), version: newestGo }));
    const byKey = new Map(uploads.map((u) => [`${u.kind} ${u.name} ${u.version}`, u]));
    for (const m of mods) {
      const v = `${registry}/go/${m.path}/@v`;
      const list = await fetchOk(`${v}/list`);
      const want = Array.from({ length: GO_VERSIONS }, (_, j) => goVersion(j));
      if (list.toString().trim().split('\n').sort().join() !== want.sort().join()) throw new Error(`${m.path}/@v/list answered ${JSON.stringify(list.toString())}`);
      writeTree(root, `go/${m.path}/@v/list`, list);
      for (const version of want) {
        for (const ext of ['info', 'mod', 'zip']) writeTree(root, `go/${m.path}/@v/${version}.${ext}`, await fetchOk(`${v}/${version}.${ext}`));
        const zip = fs.readFileSync(path.join(root, `go/${m.path}/@v/${version}.zip`));
        if (!zip.equals(byKey.get(`go ${m.path} ${version}`)!.body)) throw new Error(`${m.path}@${version}.zip is not the uploaded zip`);
      }
    }
    const contrib = `${registry}/cran/src/contrib`;
    const packages = await fetchOk(`${contrib}/PACKAGES`);
    const packagesGz = await fetchOk(`${contrib}/PACKAGES.gz`);
    if (!zlib.gunzipSync(packagesGz).equals(packages)) throw new Error('PACKAGES.gz is not PACKAGES gzip\'d');
    writeTree(root, 'cran/src/contrib/PACKAGES', packages);
    writeTree(root, 'cran/src/contrib/PACKAGES.gz', packagesGz);
    for (let i = 1; i <= R_PACKAGES; i++) {
      const u = byKey.get(`cran ${rName(i)} ${rVersion(R_VERSIONS - 1)}`)!;
      const tarball = await fetchOk(`${contrib}/${u.file}`);
      if (!tarball.equals(u.body)) throw new Error(`${u.file} is not the uploaded tarball`);
      writeTree(root, `cran/src/contrib/${u.file}`, tarball);
    }
    b.setup[`static tree (${mods.length} modules × ${GO_VERSIONS} versions, PACKAGES and ${R_PACKAGES} tarballs) fetched and checked`] = since(t);

    // single GETs from each, for scale: PACKAGES, and a module's .info and .zip as the go command asks for them
    const getMs = async (url: string, n = 7) => {
      const xs: number[] = [];
      for (let k = 0; k < n; k++) {
        const t1 = process.hrtime.bigint();
        await fetchOk(url);
        xs.push(since(t1) * 1000);
      }
      return median(xs);
    };
    const packagesForgeMs = await getMs(`${contrib}/PACKAGES`);
    const packagesStaticMs = await getMs(`${files.base}/cran/src/contrib/PACKAGES`);
    const reads = { forge: { info: 0, zip: 0 }, static: { info: 0, zip: 0 } };
    for (const ext of ['info', 'zip'] as const) {
      const rel = `${mods[0].path}/@v/${newestGo}.${ext}`;
      reads.forge[ext] = await getMs(`${registry}/go/${rel}`, 51);
      reads.static[ext] = await getMs(`${files.base}/go/${rel}`, 51);
    }

    // the clients, against both
    say(`go mod download of ${mods.length} modules, ${ROUNDS} rounds ...`);
    const go = await compare('go mod download', { forge: `${registry}/go`, static: `${files.base}/go` }, (b) => goDownload(b, mods, work), ROUNDS, say);
    say(`available.packages() of ${R_PACKAGES} packages, ${ROUNDS} rounds ...`);
    const r = await compare('available.packages()', { forge: `${registry}/cran`, static: `${files.base}/cran` }, (b) => rAvailable(b, work), ROUNDS, say);

    print({
      ...phase, uploads: uploads.length, packagesForgeMs, packagesStaticMs, packagesBytes: packages.length, reads, go, r, setup: b.setup,
    }, b.server);
  });
}

/** `BENCH_PACKAGES`: `go-r`, `linux` (packages-linux.ts), or both (the default), one after the other. */
export async function run(): Promise<void> {
  const part = process.env.BENCH_PACKAGES ?? 'all';
  if (!['all', 'go-r', 'linux'].includes(part)) throw new Error('BENCH_PACKAGES is go-r, linux or all');
  if (part !== 'linux') await runGoAndR();
  if (part !== 'go-r') await runLinux();
}

function print(r: Result, server: TestServer): void {
  const s2 = (x: number) => `${x.toFixed(2)} s`;
  const ms = (x: number) => `${x.toFixed(1)} ms`;
  const ms2 = (x: number) => `${x.toFixed(2)} ms`;
  const met = (b: boolean) => (b ? 'met' : 'NOT met');
  const db = server.env.FORGE__DATABASE__DB_TYPE ?? 'sqlite3';
  process.stdout.write(`\nbench/packages (${db}, one worker): ${GO_MODULES} Go modules × ${GO_VERSIONS} versions and ${R_PACKAGES} R packages × ${R_VERSIONS} versions `
    + `(${r.uploads.toLocaleString('en-US')} uploads, mixed) from ${CLIENTS} concurrent clients; then \`go mod download\` of ${DOWNLOADS} modules and R's `
    + `\`available.packages()\` against the forge and against a static file server holding the same files (node http, from disk), `
    + `medians of ${ROUNDS} rounds taken in turn after one untimed run each.\n\n`);
  process.stdout.write('| measure | baseline | result | target | met |\n|---|---:|---:|---|---|\n');
  process.stdout.write(`| uploads per second | ${r.base.perSecond.toFixed(0)}/s (the same PUTs written to files by a bare node server) | `
    + `${r.forge.perSecond.toFixed(0)}/s (${s2(r.forge.seconds)}; ${(r.forge.perSecond / r.base.perSecond).toFixed(2)}x) | — | — |\n`);
  process.stdout.write(`| one upload's time, p50 / p99 | ${ms(r.base.p50)} / ${ms(r.base.p99)} | ${ms(r.forge.p50)} / ${ms(r.forge.p99)} | — | — |\n`);
  process.stdout.write(`| \`PACKAGES\` lists all ${R_PACKAGES} R packages at their newest version, after the last upload | ${ms(r.packagesStaticMs)} (one GET of the same `
    + `${(r.packagesBytes / 1024).toFixed(0)} KB from the static server) | ${(r.completeS * 1000).toFixed(0)} ms (${r.polls} GET${r.polls === 1 ? '' : 's'}; `
    + `a GET of it takes ${ms(r.packagesForgeMs)} once idle) | < ${PACKAGES_SECONDS} s | ${met(r.completeS < PACKAGES_SECONDS)} |\n`);
  process.stdout.write(`| \`/api/v1/version\` p99 throughout (uploads and the wait for PACKAGES) | — | ${ms(r.probe.p99)} (p50 ${ms(r.probe.p50)}, ${r.probe.samples} requests at `
    + `${PROBE_RATE}/s over ${r.probe.seconds.toFixed(1)} s, ${r.probe.errors} errors) | < ${P99_MS} ms | ${met(r.probe.p99 < P99_MS && r.probe.errors === 0)} |\n`);
  const client = (label: string, c: { forge: number; static: number }) => {
    const ratio = c.forge / c.static;
    process.stdout.write(`| ${label} | ${s2(c.static)} (static server) | ${s2(c.forge)} (${ratio.toFixed(2)}x) | ≤ ${CLIENT_RATIO}x | ${met(ratio <= CLIENT_RATIO)} |\n`);
  };
  client(`\`go mod download\` of ${DOWNLOADS} modules (fresh caches)`, r.go);
  process.stdout.write(`| one GET of a module's \`.info\` / \`.zip\`, median of 51, idle | ${ms2(r.reads.static.info)} / ${ms2(r.reads.static.zip)} (static server) `
    + `| ${ms2(r.reads.forge.info)} / ${ms2(r.reads.forge.zip)} | — | — |\n`);
  client(`\`available.packages()\` of ${R_PACKAGES} R packages (a fresh Rscript)`, r.r);
  process.stdout.write(`\nSet-up: ${Object.entries(r.setup).map(([k, v]) => `${k} ${v.toFixed(1)} s`).join('; ')}.\n`);
}
