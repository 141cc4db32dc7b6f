/**
 * The R package registry with R itself (Debian's r-base-core): packages made with `R CMD build`,
 * uploaded over HTTP, listed by `available.packages()`, installed with `install.packages(type =
 * "source")` and loaded; an older version fetched from `Archive/`; a binary for a platform and R
 * version in its own tree. The refusals (anonymous and outsider uploads, the same file twice, bad
 * names, hostile tarballs) each leave no row, blob or temporary file.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { tarGzOfZeros } from '../helpers/bombs';
import { basicAuth, packageRows, packageTempFiles } from '../helpers/packages';

const run = promisify(execFile);

describe('packages: R (CRAN) with R', function () {
  this.timeout(180_000);
  let w: World;
  let alice: TestUser;
  let bob: TestUser;
  let pat: TestUser; // a private user
  let tmp: string;
  const built = new Map<string, Buffer>();

  const basic = basicAuth;
  const repos = (owner: string) => `${w.server.url}api/packages/${owner}/cran`;
  const put = (owner: string, where: string, body: Buffer, u?: TestUser) => fetch(`${repos(owner)}/${where}`, {
    method: 'PUT', body, headers: u ? { Authorization: basic(u) } : {},
  });
  const rows = () => packageRows(w.server);
  const tmpFiles = () => packageTempFiles(w.server);
  const rscript = async (code: string) => (await run('Rscript', ['--vanilla', '-e', code], { env: { PATH: process.env.PATH!, HOME: tmp, R_LIBS_USER: '' } })).stdout.trim();

  /** `R CMD build` of a package `name` at `version` whose hello() answers `says`. */
  async function rPackage(name: string, version: string, says: string): Promise<Buffer> {
    const key = `${name}_${version}`;
    if (built.has(key)) return built.get(key)!;
    const root = fs.mkdtempSync(path.join(tmp, 'pkg-'));
    const dir = path.join(root, name);
    fs.mkdirSync(path.join(dir, 'R'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'DESCRIPTION'), [
      `Package: ${name}`, `Version: ${version}`, 'Title: A Test Package', 'Description: Says hello.', 'Author: A. Tester [aut, cre]',
      'Maintainer: A. Tester <a@example.com>', 'License: MIT', 'Depends: R (>= 3.5)', '',
    ].join('\n'));
    fs.writeFileSync(path.join(dir, 'R', 'hello.R'), `hello <- function() ${JSON.stringify(says)}\n`);
    fs.writeFileSync(path.join(dir, 'NAMESPACE'), 'export(hello)\n');
    await run('R', ['CMD', 'build', '--no-build-vignettes', '--no-manual', name], { cwd: root, env: { PATH: process.env.PATH!, HOME: tmp } });
    const file = fs.readFileSync(path.join(root, `${key}.tar.gz`));
    built.set(key, file);
    return file;
  }

  before(async () => {
    w = await startWorld();
    [alice, bob, pat] = [await w.user('alice'), await w.user('bob'), await w.user('pat', { visibility: 'private' })];
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'forge-cran-'));
  });
  after(async () => {
    await w?.stop();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('takes source packages, and install.packages installs and loads one', async () => {
    for (const [name, version, says] of [['hellor', '0.1.0', 'hi'], ['hellor', '0.2.0', 'hi again'], ['worldr', '1.0-1', 'world']]) {
      const r = await put('alice', 'src', await rPackage(name, version, says), alice);
      expect(r.status, await r.text()).to.equal(201);
    }
    const lib = fs.mkdtempSync(path.join(tmp, 'lib-'));
    const out = await rscript(`install.packages("hellor", repos = "${repos('alice')}", type = "source", lib = "${lib}", quiet = TRUE); library(hellor, lib.loc = "${lib}"); cat(hello())`);
    expect(out).to.equal('hi again');
  });

  it('lists each package at its newest version in PACKAGES (also gzip\'d) for available.packages()', async () => {
    const listed = await rscript(`a <- available.packages(repos = "${repos('alice')}", type = "source"); cat(paste(a[, "Package"], a[, "Version"]), sep = "\\n")`);
    expect(listed.split('\n')).to.deep.equal(['hellor 0.2.0', 'worldr 1.0-1']);
    const text = await (await fetch(`${repos('alice')}/src/contrib/PACKAGES`)).text();
    expect(text).to.match(/^Package: hellor\nVersion: 0\.2\.0\nLicense: MIT\nDepends: R \(>= 3\.5\)\nNeedsCompilation: no\nMD5sum: [0-9a-f]{32}\n\nPackage: worldr\n/);
    const gz = await fetch(`${repos('alice')}/src/contrib/PACKAGES.gz`);
    expect(gz.headers.get('content-type')).to.equal('application/x-gzip');
    expect((await fetch(`${repos('alice')}/src/contrib/PACKAGES.rds`)).status).to.equal(404);
    expect((await fetch(`${repos('pat')}/src/contrib/PACKAGES`, { headers: { Authorization: basic(pat) } })).status).to.equal(404);
  });

  it('serves an older version from Archive/, which R installs from its address', async () => {
    const url = `${repos('alice')}/src/contrib/Archive/hellor/hellor_0.1.0.tar.gz`;
    const served = Buffer.from(await (await fetch(url)).arrayBuffer());
    expect(served.equals(await rPackage('hellor', '0.1.0', 'hi'))).to.equal(true);
    const lib = fs.mkdtempSync(path.join(tmp, 'lib-'));
    const file = path.join(tmp, 'hellor_0.1.0.tar.gz');
    fs.writeFileSync(file, served);
    expect(await rscript(`install.packages("${file}", repos = NULL, type = "source", lib = "${lib}", quiet = TRUE); library(hellor, lib.loc = "${lib}"); cat(hello())`)).to.equal('hi');
  });

  it('keeps a binary for a platform and R version in its own tree, beside the source', async () => {
    const root = fs.mkdtempSync(path.join(tmp, 'bin-'));
    fs.mkdirSync(path.join(root, 'hellor'));
    fs.writeFileSync(path.join(root, 'hellor', 'DESCRIPTION'), 'Package: hellor\nVersion: 0.2.0\nLicense: MIT\nBuilt: R 4.2.2; ; 2026-11-29; windows\n');
    await run('zip', ['-q', '-r', 'hellor.zip', 'hellor'], { cwd: root });
    const zip = fs.readFileSync(path.join(root, 'hellor.zip'));
    expect((await put('alice', 'bin?platform=windows&rversion=4.2', zip, alice)).status).to.equal(201);
    const index = await (await fetch(`${repos('alice')}/bin/windows/contrib/4.2/PACKAGES`)).text();
    expect(index).to.match(/^Package: hellor\nVersion: 0\.2\.0\n/);
    const served = Buffer.from(await (await fetch(`${repos('alice')}/bin/windows/contrib/4.2/hellor_0.2.0.zip`)).arrayBuffer());
    expect(served.equals(zip)).to.equal(true);
    expect((await fetch(`${repos('alice')}/bin/windows/contrib/4.3/PACKAGES`)).status).to.equal(404);
    expect((await put('alice', 'bin?platform=windows', zip, alice)).status).to.equal(400);
  });

  it('refuses anonymous, outsiders\' and repeated uploads, and keeps a private owner\'s packages to itself, changing nothing', async () => {
    const pkg = await rPackage('hellor', '0.1.0', 'hi');
    const before = await rows();
    const anon = await put('alice', 'src', pkg);
    expect([anon.status, anon.headers.get('www-authenticate')]).to.deep.equal([401, 'Basic realm="Gitea Package API"']);
    expect((await put('alice', 'src', pkg, bob)).status).to.equal(401);
    const again = await put('alice', 'src', pkg, alice);
    expect([again.status, await again.text()]).to.deep.equal([409, 'package file already exists']);
    expect(await rows()).to.equal(before);
    expect((await put('pat', 'src', await rPackage('worldr', '1.0-1', 'world'), pat)).status).to.equal(201);
    expect((await fetch(`${repos('pat')}/src/contrib/PACKAGES`)).status).to.equal(401);
    expect((await fetch(`${repos('pat')}/src/contrib/PACKAGES`, { headers: { Authorization: basic(bob) } })).status).to.equal(401);
    expect(await (await fetch(`${repos('pat')}/src/contrib/PACKAGES`, { headers: { Authorization: basic(pat) } })).text()).to.match(/^Package: worldr/);
    expect(tmpFiles()).to.deep.equal([]);
  });

  it('refuses tarballs that are no package or are hostile (climbing paths, links, 10 GB of zeros), changing nothing', async () => {
    const before = await rows();
    const refused = async (body: Buffer, text: string | RegExp) => {
      const r = await put('alice', 'src', body, alice);
      expect(r.status).to.equal(400);
      const t = await r.text();
      if (typeof text === 'string') expect(t).to.equal(text);
      else expect(t).to.match(text);
    };
    const tarball = async (files: Record<string, string>, extra: string[] = []) => {
      const root = fs.mkdtempSync(path.join(tmp, 'tar-'));
      for (const [name, body] of Object.entries(files)) {
        fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
        fs.writeFileSync(path.join(root, name), body);
      }
      await run('tar', ['-czf', 'out.tar.gz', ...extra, ...Object.keys(files)], { cwd: root });
      return fs.readFileSync(path.join(root, 'out.tar.gz'));
    };
    await refused(await tarball({ 'x/README': 'no description' }), 'DESCRIPTION file is missing');
    await refused(await tarball({ 'x/DESCRIPTION': 'Package: 9lives\nVersion: 1.0\n' }), 'package name is invalid');
    await refused(await tarball({ 'x/DESCRIPTION': 'Package: ok\nVersion: one\n' }), 'package version is invalid');
    await refused(await tarball({ 'x/DESCRIPTION': 'Package: ok\nVersion: 1.0\n', 'x/../../escape': 'x' }, ['-P']), /the archive has an unsafe entry: "x\/\.\.\/\.\.\/escape"/);
    const linkRoot = fs.mkdtempSync(path.join(tmp, 'link-'));
    fs.mkdirSync(path.join(linkRoot, 'x'));
    fs.writeFileSync(path.join(linkRoot, 'x', 'DESCRIPTION'), 'Package: ok\nVersion: 1.0\n');
    fs.symlinkSync('/etc/passwd', path.join(linkRoot, 'x', 'passwd'));
    await run('tar', ['-czf', 'out.tar.gz', 'x'], { cwd: linkRoot });
    await refused(fs.readFileSync(path.join(linkRoot, 'out.tar.gz')), /the archive has an entry that is not a plain file/);
    const bomb = tarGzOfZeros([['x/zeros1', 5 * 2 ** 30], ['x/zeros2', 5 * 2 ** 30], ['x/DESCRIPTION', 0]]);
    expect(bomb.length).to.be.lessThan(20 * 2 ** 20);
    await refused(bomb, /the archive (unpacks to more than|is compressed more than)/);
    expect(await rows()).to.equal(before);
    expect(tmpFiles()).to.deep.equal([]);
  });
});
