/**
 * The Debian registry with apt 2.6 in a private root: packages built by dpkg-deb, uploaded over
 * HTTP, then `apt-get update` against the signed indexes (no warning), `apt-get download` and
 * `apt-get install --simulate`; a tampered InRelease refused. Around it: Packages, Release and
 * by-hash with exact sizes and hashes, a reader of the generation before a rebuild still served,
 * deletes by apt's route and by the API taking the package out of the index, conditional and
 * ranged reads, and the refusals, each leaving no row, blob or temporary file.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { execFileSync } from 'node:child_process';
import { expect } from 'chai';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { aptRoot, basicAuth, debPackage, packageRows, packageTempFiles } from '../helpers/packages';

describe('packages: Debian with apt', function () {
  this.timeout(180_000);
  let w: World;
  let alice: TestUser;
  let bob: TestUser;
  let tmp: string;
  let keyFile: string;
  const debs = new Map<string, Buffer>();

  const registry = (owner = 'alice') => `${w.server.url}api/packages/${owner}/debian`;
  const get = (p: string, headers: Record<string, string> = {}) => fetch(`${registry()}/${p}`, { headers });
  const upload = (dist: string, component: string, body: Buffer, u: TestUser | null = alice) => fetch(`${registry()}/pool/${dist}/${component}/upload`, {
    method: 'PUT', body, headers: u ? { Authorization: basicAuth(u) } : {},
  });
  const rows = () => packageRows(w.server);

  /** A `.deb` of `name` `version` for `arch` (kept by name, so a second upload sends the same bytes). */
  function deb(name: string, version: string, arch: string, extra = ''): Buffer {
    const k = `${name}_${version}_${arch}`;
    if (!debs.has(k)) {
      debs.set(k, fs.readFileSync(debPackage(tmp, `Package: ${name}\nVersion: ${version}\nArchitecture: ${arch}\nMaintainer: Ann Packer <ann@example.com>\n${extra}Description: ${name} for tests\n A second line.\n`)));
    }
    return debs.get(k)!;
  }

  /** A Release's files: path to size and sha256. */
  function releaseFiles(release: string): Map<string, { size: number; sha256: string }> {
    const out = new Map<string, { size: number; sha256: string }>();
    const section = release.split('SHA256:\n')[1].split(/\n(?! )/)[0];
    for (const line of section.split('\n')) {
      const [sha256, size, file] = line.trim().split(/\s+/);
      out.set(file, { size: Number(size), sha256 });
    }
    return out;
  }
  const sha256 = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');
  const bytes = async (p: string) => Buffer.from(await (await get(p)).arrayBuffer());

  before(async () => {
    w = await startWorld();
    [alice, bob] = [await w.user('alice'), await w.user('bob')];
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'forge-debian-'));
    keyFile = path.join(tmp, 'alice.asc');
    fs.writeFileSync(keyFile, await (await get('repository.key')).text());
  });
  after(async () => {
    await w?.stop();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('takes uploads to a distribution and component, and answers once Packages lists them', async () => {
    for (const [dist, comp, body] of [
      ['bookworm', 'main', deb('hello-forge', '1.0-1', 'amd64', 'Depends: forge-doc (>= 1.0)\n')], ['bookworm', 'main', deb('forge-doc', '1.0', 'all')],
      ['bookworm', 'main', deb('hello-forge', '1.1-1', 'amd64', 'Depends: forge-doc (>= 1.0)\n')], ['bookworm', 'contrib', deb('extra-tool', '2:0.5', 'amd64')],
      ['trixie', 'main', deb('hello-forge', '1.0-1', 'amd64', 'Depends: forge-doc (>= 1.0)\n')],
    ] as const) {
      const r = await upload(dist, comp, body);
      expect(r.status, await r.text()).to.equal(201);
    }
    const packages = await (await get('dists/bookworm/main/binary-amd64/Packages')).text();
    // why: every version is listed, oldest first, each stanza its control text and then its file.
    expect(packages.match(/^Package: .*$/gm)).to.deep.equal(['Package: hello-forge', 'Package: hello-forge']);
    expect(packages.match(/^Version: .*$/gm)).to.deep.equal(['Version: 1.0-1', 'Version: 1.1-1']);
    expect(packages).to.include('Filename: pool/bookworm/main/hello-forge_1.0-1_amd64.deb\n');
    expect(packages).to.include(`SHA256: ${sha256(deb('hello-forge', '1.1-1', 'amd64'))}\n`);
    expect(packages).to.not.match(/\n\n$/);
    // why: Architecture: all goes to binary-all only, as Gitea does.
    expect(await (await get('dists/bookworm/main/binary-all/Packages')).text()).to.match(/^Package: forge-doc\n/);
    expect(await (await get('dists/bookworm/contrib/amd64/Packages')).text()).to.include('Version: 2:0.5\n');
    expect((await get('pool/bookworm/contrib/extra-tool_2:0.5_amd64.deb')).status).to.equal(200);
  });

  it('signs a Release whose every listed file has exactly the size and hashes served, also by hash', async () => {
    const release = await (await get('dists/bookworm/Release')).text();
    expect(release).to.match(/^Origin: .+\nLabel: .+\nSuite: bookworm\nCodename: bookworm\nComponents: contrib main\nArchitectures: all amd64\nDate: .+ UTC\nAcquire-By-Hash: yes\nMD5Sum:\n/);
    const files = releaseFiles(release);
    expect([...files.keys()].sort()).to.deep.equal(['contrib/binary-amd64/Packages', 'contrib/binary-amd64/Packages.gz', 'contrib/binary-amd64/Packages.xz',
      'main/binary-all/Packages', 'main/binary-all/Packages.gz', 'main/binary-all/Packages.xz',
      'main/binary-amd64/Packages', 'main/binary-amd64/Packages.gz', 'main/binary-amd64/Packages.xz']);
    for (const [file, want] of files) {
      const body = await bytes(`dists/bookworm/${file}`);
      expect({ size: body.length, sha256: sha256(body) }, file).to.deep.equal(want);
      expect(sha256(await bytes(`dists/bookworm/${path.dirname(file)}/by-hash/SHA256/${want.sha256}`))).to.equal(want.sha256);
    }
    const plain = await bytes('dists/bookworm/main/binary-amd64/Packages');
    expect(zlib.gunzipSync(await bytes('dists/bookworm/main/binary-amd64/Packages.gz'))).to.deep.equal(plain);
    expect(execFileSync('xz', ['-dc'], { input: await bytes('dists/bookworm/main/binary-amd64/Packages.xz') })).to.deep.equal(plain);
    expect(await (await get(`dists/bookworm/by-hash/SHA256/${sha256(Buffer.from(release))}`)).text()).to.equal(release);
    // gpgv accepts both signatures with the served key, and only with it.
    const keyring = path.join(tmp, 'alice.gpg');
    execFileSync('gpg', ['--batch', '--yes', '--dearmor', '-o', keyring, keyFile], { env: { PATH: process.env.PATH!, GNUPGHOME: fs.mkdtempSync(path.join(tmp, 'g-')) } });
    fs.writeFileSync(path.join(tmp, 'Release'), release);
    fs.writeFileSync(path.join(tmp, 'Release.gpg'), await bytes('dists/bookworm/Release.gpg'));
    fs.writeFileSync(path.join(tmp, 'InRelease'), await bytes('dists/bookworm/InRelease'));
    execFileSync('gpgv', ['--keyring', keyring, path.join(tmp, 'Release.gpg'), path.join(tmp, 'Release')], { stdio: 'ignore' });
    const signed = execFileSync('gpgv', ['--keyring', keyring, '--output', '-', path.join(tmp, 'InRelease')], { stdio: ['ignore', 'pipe', 'ignore'] }).toString();
    expect(signed).to.equal(release);
    expect(await (await get('dists/bookworm/InRelease')).text()).to.match(/^-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA256\n\nOrigin: [^\r]+\n-----BEGIN PGP SIGNATURE-----\n/);
  });

  it('lets apt update without a warning, download a package and resolve an install with its dependency', async () => {
    const apt = aptRoot(fs.mkdtempSync(path.join(tmp, 'apt-')), `deb [signed-by=${keyFile}] ${registry()} bookworm main contrib`);
    const update = await apt(['update']);
    expect(update.code, update.out + update.err).to.equal(0);
    expect(`${update.out}\n${update.err}`).to.not.match(/^(W|E|Err):/m);
    const dir = fs.mkdtempSync(path.join(tmp, 'dl-'));
    const dl = await apt(['download', 'hello-forge'], dir);
    expect(dl.code, dl.err).to.equal(0);
    expect(fs.readFileSync(path.join(dir, 'hello-forge_1.1-1_amd64.deb'))).to.deep.equal(deb('hello-forge', '1.1-1', 'amd64'));
    const sim = await apt(['install', '--simulate', '--yes', 'hello-forge=1.0-1']);
    expect(sim.code, sim.out + sim.err).to.equal(0);
    expect(sim.out).to.match(/^Inst forge-doc \(1\.0 /m).and.to.match(/^Inst hello-forge \(1\.0-1 /m);
  });

  it('makes apt refuse an InRelease whose text no longer matches its signature', async () => {
    const inRelease = await bytes('dists/bookworm/InRelease');
    const blob = path.join(w.server.dataDir, 'packages', sha256(inRelease).slice(0, 2), sha256(inRelease).slice(2, 4), sha256(inRelease));
    fs.writeFileSync(blob, inRelease.toString().replace('Components: contrib main', 'Components: contrib main evil'));
    try {
      const apt = aptRoot(fs.mkdtempSync(path.join(tmp, 'apt-')), `deb [signed-by=${keyFile}] ${registry()} bookworm main`);
      const update = await apt(['update']);
      expect(`${update.out}\n${update.err}`).to.match(/BADSIG|signatures were invalid|is not signed/);
      const sim = await apt(['install', '--simulate', 'hello-forge']);
      expect(sim.code).to.not.equal(0);
    } finally {
      fs.writeFileSync(blob, inRelease);
    }
  });

  it('keeps the files a Release listed reachable by hash after a rebuild replaced it', async () => {
    const before = releaseFiles(await (await get('dists/bookworm/Release')).text()).get('main/binary-amd64/Packages.xz')!;
    const old = await bytes('dists/bookworm/main/binary-amd64/Packages.xz');
    expect((await upload('bookworm', 'main', deb('hello-forge', '1.2-1', 'amd64'))).status).to.equal(201);
    const after = releaseFiles(await (await get('dists/bookworm/Release')).text()).get('main/binary-amd64/Packages.xz')!;
    expect(after.sha256).to.not.equal(before.sha256);
    expect(await bytes(`dists/bookworm/main/binary-amd64/by-hash/SHA256/${before.sha256}`)).to.deep.equal(old);
    expect(sha256(await bytes(`dists/bookworm/main/binary-amd64/by-hash/SHA256/${after.sha256}`))).to.equal(after.sha256);
    expect((await get(`dists/bookworm/main/binary-amd64/by-hash/SHA256/${'0'.repeat(64)}`)).status).to.equal(404);
  });

  it('takes a burst of uploads at once, the same bytes to two distributions among them, and lists them all', async () => {
    const same = deb('burst-same', '1.0', 'amd64');
    const many = Array.from({ length: 10 }, (_, i) => deb(`burst-${i}`, '1.0', 'amd64'));
    const answers = await Promise.all([upload('burst', 'main', same), upload('burst2', 'main', same), ...many.map((b) => upload('burst', 'main', b))]);
    expect(answers.map((r) => r.status)).to.deep.equal(Array(12).fill(201));
    const packages = await (await get('dists/burst/main/binary-amd64/Packages')).text();
    expect(packages.match(/^Package: .*$/gm)!.sort()).to.deep.equal(['burst-same', ...many.map((_, i) => `burst-${i}`)].map((n) => `Package: ${n}`).sort());
    expect(await (await get('dists/burst2/main/binary-amd64/Packages')).text()).to.include('Package: burst-same\n');
    const files = releaseFiles(await (await get('dists/burst/Release')).text());
    expect(files.get('main/binary-amd64/Packages')).to.deep.equal({ size: Buffer.byteLength(packages), sha256: sha256(Buffer.from(packages)) });
  });

  it('serves indexes with ETag, Last-Modified, HEAD, ranges and conditional reads', async () => {
    const full = await get('dists/bookworm/InRelease');
    const body = Buffer.from(await full.arrayBuffer());
    const etag = full.headers.get('etag')!;
    expect(etag).to.equal(`"${sha256(body)}"`);
    expect(full.headers.get('last-modified')).to.be.a('string');
    const head = await fetch(`${registry()}/dists/bookworm/InRelease`, { method: 'HEAD' });
    expect([head.status, head.headers.get('content-length')]).to.deep.equal([200, String(body.length)]);
    const part = await get('dists/bookworm/InRelease', { Range: 'bytes=10-19' });
    expect(part.status).to.equal(206);
    expect(Buffer.from(await part.arrayBuffer())).to.deep.equal(body.subarray(10, 20));
    expect((await get('dists/bookworm/InRelease', { 'If-None-Match': etag })).status).to.equal(304);
    expect((await get('dists/bookworm/InRelease', { 'If-Modified-Since': full.headers.get('last-modified')! })).status).to.equal(304);
    expect((await get('dists/bookworm/InRelease', { 'If-None-Match': '"other"' })).status).to.equal(200);
  });

  it('refuses what it must with Gitea\'s answers, changing nothing', async () => {
    const before = await rows();
    const good = deb('refused-pkg', '1.0', 'amd64');
    expect((await upload('bookworm', 'main', good, null)).status).to.equal(401);
    expect((await upload('bookworm', 'main', good, bob)).status).to.equal(401);
    const badDist = await upload('book|worm', 'main', good);
    expect([badDist.status, await badDist.text()]).to.deep.equal([400, 'invalid distribution or component']);
    const notDeb = await upload('bookworm', 'main', Buffer.from('not an ar archive'));
    expect(notDeb.status).to.equal(400);
    const badVersion = await upload('bookworm', 'main', fs.readFileSync(debPackage(tmp, 'Package: bad-version\nVersion: 1.0_x\nArchitecture: amd64\nDescription: x\n', 'gzip', true)));
    expect([badVersion.status, await badVersion.text()]).to.deep.equal([400, 'package version is invalid']);
    const dup = await upload('bookworm', 'main', deb('forge-doc', '1.0', 'all'));
    expect([dup.status, await dup.text()]).to.deep.equal([409, 'package file already exists']);
    expect(await rows()).to.equal(before);
    expect(packageTempFiles(w.server)).to.deep.equal([]);
    expect((await fetch(`${registry()}/pool/bookworm/main/forge-doc/1.0/all`, { method: 'DELETE', headers: { Authorization: basicAuth(bob) } })).status).to.equal(401);
    expect((await fetch(`${registry()}/pool/bookworm/main/forge-doc/9.9/all`, { method: 'DELETE', headers: { Authorization: basicAuth(alice) } })).status).to.equal(404);
    expect(await rows()).to.equal(before);
    expect((await get('dists/nowhere/Release')).status).to.equal(404);
    expect((await get('pool/bookworm/main/forge-doc_1.0_amd64.deb')).status).to.equal(404);
  });

  it('takes a deleted file out of Packages, by apt\'s route and by the API, and drops an emptied index', async () => {
    const del = await fetch(`${registry()}/pool/bookworm/main/forge-doc/1.0/all`, { method: 'DELETE', headers: { Authorization: basicAuth(alice) } });
    expect(del.status).to.equal(204);
    expect((await get('dists/bookworm/main/binary-all/Packages')).status).to.equal(404);
    expect(await (await get('dists/bookworm/Release')).text()).to.include('Architectures: amd64\n');
    expect((await get('pool/bookworm/main/forge-doc_1.0_all.deb')).status).to.equal(404);
    // The API deletes the whole version: its files leave every distribution's index (Gitea 1.24 forgets to rebuild here).
    const api = await w.raw('DELETE', '/packages/alice/debian/hello-forge/1.0-1', undefined, { token: alice.token });
    expect(api.status).to.equal(204);
    expect(await (await get('dists/bookworm/main/binary-amd64/Packages')).text()).to.not.include('Version: 1.0-1\n');
    expect((await get('dists/trixie/main/binary-amd64/Packages')).status).to.equal(404);
    expect((await get('dists/trixie/InRelease')).status).to.equal(404);
  });

  it('shows a version\'s distributions, components and architectures and apt\'s set-up on its page', async () => {
    const page = await (await fetch(`${w.server.url}alice/-/packages/debian/hello-forge/1.1-1`)).text();
    expect(page).to.include('Repository Info').and.to.include('bookworm').and.to.include('amd64');
    expect(page).to.include(`signed-by=/etc/apt/keyrings/gitea-alice.asc] ${registry()} $distribution $component`);
    expect(page).to.include('sudo apt install hello-forge=1.1-1');
  });
});
