/**
 * The RPM registry with dnf 4.14 and rpm 4.18: packages built by rpmbuild, uploaded to the root
 * group and to `el9/stable`, signed on upload; dnf in its own install root reads the group with
 * gpgcheck and repo_gpgcheck against the served key, makes its cache and downloads a package that
 * `rpm -K` then checks. Around it: the `.repo` file, repodata with exact sizes and sums, deletes
 * rebuilding it, and the refusals (a header with absurd counts among them), each leaving no row,
 * blob or temporary file.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { basicAuth, packageRows, packageTempFiles, rpmPackage } from '../helpers/packages';

const run = promisify(execFile);

describe('packages: RPM with dnf and rpm', function () {
  this.timeout(240_000);
  let w: World;
  let alice: TestUser;
  let bob: TestUser;
  let tmp: string;
  const built = new Map<string, Buffer>();

  const registry = () => `${w.server.url}api/packages/alice/rpm`;
  const get = (p: string, init: RequestInit = {}) => fetch(`${registry()}${p}`, init);
  const upload = (group: string, body: Buffer, query = '', u: TestUser | null = alice) => fetch(`${registry()}${group ? `/${group}` : ''}/upload${query}`, {
    method: 'PUT', body, headers: u ? { Authorization: basicAuth(u) } : {},
  });
  const rows = () => packageRows(w.server);
  const sha256 = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');
  const bytes = async (p: string) => Buffer.from(await (await get(p)).arrayBuffer());

  function rpm(name: string, version: string, extra: { requires?: string; arch?: string } = {}): Buffer {
    const k = `${name}-${version}-${extra.arch ?? 'noarch'}`;
    if (!built.has(k)) built.set(k, rpmPackage(tmp, { name, version, ...extra }));
    return built.get(k)!;
  }

  /** dnf in a fresh install root, with the group's repository from its path, both signature checks on. */
  async function dnf(group: string, args: string[]): Promise<{ code: number; out: string }> {
    const root = fs.mkdtempSync(path.join(tmp, 'root-'));
    const base = `${registry()}${group ? `/${group}` : ''}`;
    const opts = [
      '-y', '-q', `--installroot=${root}`, '--releasever=12', '--setopt=reposdir=/nonexistent', `--setopt=cachedir=${root}/cache`, '--setopt=install_weak_deps=0',
      `--repofrompath=forge,${base}`, '--setopt=forge.gpgcheck=1', '--setopt=forge.repo_gpgcheck=1', `--setopt=forge.gpgkey=${registry()}/repository.key`,
    ];
    try {
      const { stdout, stderr } = await run('dnf', [...opts, ...args], { env: { PATH: process.env.PATH!, LANG: 'C.UTF-8' }, cwd: root });
      return { code: 0, out: stdout + stderr };
    } catch (err) {
      const e = err as { code: number; stdout: string; stderr: string };
      return { code: e.code, out: e.stdout + e.stderr };
    }
  }

  before(async () => {
    w = await startWorld();
    [alice, bob] = [await w.user('alice'), await w.user('bob')];
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'forge-rpm-'));
  });
  after(async () => {
    await w?.stop();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('writes the .repo files dnf and zypper add', async () => {
    const root = await (await get('.repo')).text();
    const url = w.server.url;
    expect(root).to.equal(`[gitea-alice]\nname=alice - Forge\nbaseurl=${url}api/packages/alice/rpm\nenabled=1\ngpgcheck=1\ngpgkey=${url}api/packages/alice/rpm/repository.key`);
    expect(await (await get('/el9/stable.repo')).text()).to.match(/^\[gitea-alice-el9-stable\]\nname=alice - Forge - el9 - stable\nbaseurl=.*\/api\/packages\/alice\/rpm\/el9\/stable\n/);
  });

  it('takes uploads to groups, signs them when asked, and lists them in signed repodata with exact sums', async () => {
    for (const [group, body, query] of [
      ['el9/stable', rpm('hello-rpm', '1.0', { requires: 'hello-data >= 1.0' }), '?sign=true'], ['el9/stable', rpm('hello-data', '1.0'), '?sign=true'],
      ['', rpm('hello-rpm', '1.0', { requires: 'hello-data >= 1.0' }), ''],
    ] as const) {
      const r = await upload(group, body, query);
      expect(r.status, await r.text()).to.equal(201);
    }
    const repomd = await (await get('/el9/stable/repodata/repomd.xml')).text();
    const data = [...repomd.matchAll(/<data type="(\w+)"><checksum type="sha256">(\w+)<\/checksum><open-checksum type="sha256">(\w+)<\/open-checksum><location href="([^"]+)"><\/location><timestamp>\d+<\/timestamp><size>(\d+)<\/size><open-size>(\d+)<\/open-size><\/data>/g)];
    expect(data.map((d) => d[1])).to.deep.equal(['primary', 'filelists', 'other']);
    for (const [, , sum, openSum, href, size, openSize] of data) {
      const gz = await bytes(`/el9/stable/${href}`);
      const xml = zlib.gunzipSync(gz);
      expect([sha256(gz), gz.length, sha256(xml), xml.length]).to.deep.equal([sum, Number(size), openSum, Number(openSize)]);
    }
    const primary = zlib.gunzipSync(await bytes('/el9/stable/repodata/primary.xml.gz')).toString();
    expect(primary).to.include('packages="2"').and.to.include('<location href="package/hello-rpm/1.0-1/noarch/hello-rpm-1.0-1.noarch.rpm"></location>');
    expect(primary).to.include('<rpm:entry name="hello-data" flags="GE" epoch="0" ver="1.0"></rpm:entry>').and.to.not.include('rpmlib(');
    // The signed file is what is served and summed.
    const served = await bytes('/el9/stable/package/hello-rpm/1.0-1/noarch');
    expect(served).to.not.deep.equal(rpm('hello-rpm', '1.0', { requires: 'hello-data >= 1.0' }));
    expect(primary).to.include(`<checksum type="sha256" pkgid="YES">${sha256(served)}</checksum>`);
    // The root group lists its own packages only.
    expect(zlib.gunzipSync(await bytes('/repodata/primary.xml.gz')).toString()).to.include('packages="1"');
    const key = path.join(tmp, 'key.gpg');
    execFileSync('gpg', ['--batch', '--yes', '--dearmor', '-o', key], { input: await bytes('/repository.key'), env: { PATH: process.env.PATH!, GNUPGHOME: fs.mkdtempSync(path.join(tmp, 'g-')) } });
    fs.writeFileSync(path.join(tmp, 'repomd.xml'), repomd);
    fs.writeFileSync(path.join(tmp, 'repomd.xml.asc'), await bytes('/el9/stable/repodata/repomd.xml.asc'));
    execFileSync('gpgv', ['--keyring', key, path.join(tmp, 'repomd.xml.asc'), path.join(tmp, 'repomd.xml')], { stdio: 'ignore' });
  });

  it('lets dnf make its cache and download with both signature checks, and rpm -K the download', async () => {
    const dest = fs.mkdtempSync(path.join(tmp, 'dl-'));
    const cache = await dnf('el9/stable', ['makecache']);
    expect(cache.code, cache.out).to.equal(0);
    const dl = await dnf('el9/stable', ['install', '--downloadonly', `--destdir=${dest}`, 'hello-rpm']);
    expect(dl.code, dl.out).to.equal(0);
    expect(fs.readdirSync(dest).sort()).to.deep.equal(['hello-data-1.0-1.noarch.rpm', 'hello-rpm-1.0-1.noarch.rpm']);
    const db = fs.mkdtempSync(path.join(tmp, 'rpmdb-'));
    fs.writeFileSync(path.join(tmp, 'rpm.asc'), await bytes('/repository.key'));
    execFileSync('rpmkeys', ['--dbpath', db, '--import', path.join(tmp, 'rpm.asc')]);
    const checked = execFileSync('rpmkeys', ['--dbpath', db, '-K', path.join(dest, 'hello-rpm-1.0-1.noarch.rpm')]).toString();
    expect(checked).to.match(/digests signatures OK/);
    // The root group's package was not signed: dnf's gpgcheck refuses it.
    const unsigned = await dnf('', ['install', '--downloadonly', `--destdir=${fs.mkdtempSync(path.join(tmp, 'dl-'))}`, 'hello-rpm']);
    expect(unsigned.code).to.not.equal(0);
  });

  it('serves repodata with ETag, HEAD, ranges and conditional reads', async () => {
    const full = await get('/el9/stable/repodata/repomd.xml');
    const body = Buffer.from(await full.arrayBuffer());
    const head = await get('/el9/stable/repodata/repomd.xml', { method: 'HEAD' });
    expect([head.status, head.headers.get('content-length'), head.headers.get('etag')]).to.deep.equal([200, String(body.length), `"${sha256(body)}"`]);
    const part = await get('/el9/stable/repodata/repomd.xml', { headers: { Range: 'bytes=0-37' } });
    expect([part.status, await part.text()]).to.deep.equal([206, '<?xml version="1.0" encoding="UTF-8"?>']);
    expect((await get('/el9/stable/repodata/repomd.xml', { headers: { 'If-Modified-Since': full.headers.get('last-modified')! } })).status).to.equal(304);
    expect((await get('/el9/stable/repodata/dummy.xml')).status).to.equal(404);
  });

  it('refuses what it must, changing nothing', async () => {
    const before = await rows();
    const good = rpm('refused-rpm', '1.0');
    expect((await upload('el9', good, '', null)).status).to.equal(401);
    expect((await upload('el9', good, '', bob)).status).to.equal(401);
    const badGroup = await upload('el9/repodata', good);
    expect([badGroup.status, await badGroup.text()]).to.deep.equal([400, 'invalid group']);
    expect((await upload('el9', Buffer.from('not an rpm at all, not even close to one'))).status).to.equal(400);
    // A signature header claiming 2^31 entries is refused from its first 16 bytes.
    const absurd = Buffer.from(good);
    absurd.writeUInt32BE(0x7fffffff, 96 + 8);
    const r1 = await upload('el9', absurd);
    expect([r1.status, await r1.text()]).to.deep.equal([400, 'package has invalid structure: a header has 2147483647 entries (at most 32)']);
    // A main header whose bytes no longer match the digest of the signature header.
    const tampered = Buffer.from(good);
    tampered[tampered.length - 400] ^= 0xff;
    const main = tampered.indexOf(Buffer.from([0x8e, 0xad, 0xe8, 0x01]), 200);
    tampered[main + 16 + 16 * tampered.readUInt32BE(main + 8) + 3] ^= 0x01;
    expect((await upload('el9', tampered)).status).to.equal(400);
    expect((await upload('el9', good.subarray(0, good.length - 100))).status).to.equal(400);
    const dup = await upload('el9/stable', rpm('hello-data', '1.0'), '?sign=true');
    expect([dup.status, await dup.text()]).to.deep.equal([409, 'package file already exists']);
    expect((await fetch(`${registry()}/el9/stable/package/hello-rpm/1.0-1/noarch`, { method: 'DELETE', headers: { Authorization: basicAuth(bob) } })).status).to.equal(401);
    expect((await fetch(`${registry()}/el9/package/hello-rpm/1.0-1/noarch`, { method: 'DELETE', headers: { Authorization: basicAuth(alice) } })).status).to.equal(404);
    expect(await rows()).to.equal(before);
    expect(packageTempFiles(w.server)).to.deep.equal([]);
  });

  it('rebuilds repodata after deletes by dnf\'s route and by the API, and drops it when a group is empty', async () => {
    const del = await fetch(`${registry()}/el9/stable/package/hello-data/1.0-1/noarch`, { method: 'DELETE', headers: { Authorization: basicAuth(alice) } });
    expect(del.status).to.equal(204);
    expect(zlib.gunzipSync(await bytes('/el9/stable/repodata/primary.xml.gz')).toString()).to.include('packages="1"').and.to.not.include('hello-data-1.0');
    const api = await w.raw('DELETE', '/packages/alice/rpm/hello-rpm/1.0-1', undefined, { token: alice.token });
    expect(api.status).to.equal(204);
    expect((await get('/el9/stable/repodata/repomd.xml')).status).to.equal(404);
    expect((await get('/repodata/repomd.xml')).status).to.equal(404);
  });
});
