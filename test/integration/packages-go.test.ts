/**
 * The Go module registry with the real go command (Debian's golang-go): modules zipped with `zip`,
 * uploaded over HTTP, then `go get` and `go run` of a program that imports them through
 * GOPROXY=<forge>/api/packages/{owner}/go with GOSUMDB=off; a private owner's with a .netrc (over an
 * HTTPS proxy: go sends credentials over https only).
 * The refusals (anonymous and outsider uploads, a second upload of a version, bad module paths and
 * versions, hostile zips) each leave no row, blob or temporary file.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { zipOfZeros } from '../helpers/bombs';
import { startTlsProxy } from '../helpers/tls-proxy';
import { basicAuth, goModuleZip, packageRows, packageTempFiles } from '../helpers/packages';

const run = promisify(execFile);

describe('packages: Go modules with the go command', function () {
  this.timeout(180_000);
  let w: World;
  let alice: TestUser;
  let bob: TestUser;
  let pat: TestUser; // a private user
  let tmp: string;

  const basic = basicAuth;
  const registry = (owner: string) => `${w.server.url}api/packages/${owner}/go`;
  const put = (owner: string, body: Buffer, u?: TestUser) => fetch(`${registry(owner)}/upload`, {
    method: 'PUT', body, headers: u ? { Authorization: basic(u) } : {},
  });
  const rows = () => packageRows(w.server);
  const tmpFiles = () => packageTempFiles(w.server);

  const moduleZip = (module: string, version: string, body: string) => goModuleZip(tmp, module, version, body);

  /**
   * Run the go command in a fresh module that imports `module`, with its own caches and HOME;
   * `o.proxy` replaces the registry's address, `o.netrc` is written to HOME, `o.certFile` trusted.
   */
  async function goRun(owner: string, module: string, version: string, o: { proxy?: string; netrc?: string; certFile?: string } = {}): Promise<string> {
    const home = fs.mkdtempSync(path.join(tmp, 'home-'));
    if (o.netrc) fs.writeFileSync(path.join(home, '.netrc'), o.netrc, { mode: 0o600 });
    const env: Record<string, string> = {
      PATH: process.env.PATH!, HOME: home, GOPATH: path.join(home, 'go'), GOCACHE: path.join(home, 'cache'), GOPROXY: o.proxy ?? registry(owner),
      GOSUMDB: 'off', GOFLAGS: '-mod=mod', GOTOOLCHAIN: 'local', CGO_ENABLED: '0', ...(o.certFile ? { SSL_CERT_FILE: o.certFile } : {}),
    };
    const app = path.join(home, 'app');
    fs.mkdirSync(app);
    const pkgName = path.basename(module.replace(/\/v\d+$/, ''));
    await run('go', ['mod', 'init', 'consumer'], { cwd: app, env });
    await run('go', ['get', `${module}@${version}`], { cwd: app, env });
    fs.writeFileSync(path.join(app, 'main.go'), `package main\n\nimport (\n\t"fmt"\n\t${JSON.stringify(module)}\n)\n\nfunc main() { fmt.Println(${pkgName}.Hello()) }\n`);
    return (await run('go', ['run', '.'], { cwd: app, env })).stdout.trim();
  }

  before(async () => {
    w = await startWorld();
    [alice, bob, pat] = [await w.user('alice'), await w.user('bob'), await w.user('pat', { visibility: 'private' })];
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'forge-go-'));
  });
  after(async () => {
    await w?.stop();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('takes an upload, and `go get` then `go run` a program that imports it', async () => {
    const r = await put('alice', await moduleZip('example.com/hello', 'v1.0.0', 'hi'), alice);
    expect(r.status, await r.text()).to.equal(201);
    expect(await goRun('alice', 'example.com/hello', 'v1.0.0')).to.equal('hi');
  });

  it('lists versions oldest first, answers .info, .mod and @latest, and serves the zip unchanged', async () => {
    const zip = await moduleZip('example.com/hello', 'v1.1.0', 'hello again');
    expect((await put('alice', zip, alice)).status).to.equal(201);
    const list = await fetch(`${registry('alice')}/example.com/hello/@v/list`);
    expect(await list.text()).to.equal('v1.0.0\nv1.1.0\n');
    const info = await (await fetch(`${registry('alice')}/example.com/hello/@v/v1.1.0.info`)).json() as { Version: string; Time: string };
    expect(info.Version).to.equal('v1.1.0');
    expect(Date.parse(info.Time)).to.be.greaterThan(0);
    expect((await (await fetch(`${registry('alice')}/example.com/hello/@latest`)).json() as { Version: string }).Version).to.equal('v1.1.0');
    expect(await (await fetch(`${registry('alice')}/example.com/hello/@v/v1.1.0.mod`)).text()).to.equal('module example.com/hello\n\ngo 1.19\n');
    const served = Buffer.from(await (await fetch(`${registry('alice')}/example.com/hello/@v/v1.1.0.zip`)).arrayBuffer());
    expect(served.equals(zip)).to.equal(true);
    expect(await goRun('alice', 'example.com/hello', 'latest')).to.equal('hello again');
    expect((await fetch(`${registry('alice')}/example.com/nothing/@v/list`)).status).to.equal(404);
    expect((await fetch(`${registry('alice')}/example.com/hello/@v/v9.9.9.info`)).status).to.equal(404);
    expect((await fetch(`${registry('alice')}/sumdb/sum.golang.org/supported`)).status).to.equal(404);
  });

  it('decodes the protocol\'s !-escaped capitals', async () => {
    expect((await put('alice', await moduleZip('example.com/Upper/tool', 'v0.1.0', 'caps'), alice)).status).to.equal(201);
    expect(await (await fetch(`${registry('alice')}/example.com/!upper/tool/@v/list`)).text()).to.equal('v0.1.0\n');
    expect(await goRun('alice', 'example.com/Upper/tool', 'v0.1.0')).to.equal('caps');
  });

  it('serves a private owner\'s modules to the go command with a .netrc, and to no one else', async () => {
    expect((await put('pat', await moduleZip('example.com/secret', 'v1.0.0', 'psst'), pat)).status).to.equal(201);
    const anon = await fetch(`${registry('pat')}/example.com/secret/@v/list`);
    expect(anon.status).to.equal(401);
    expect(anon.headers.get('www-authenticate')).to.equal('Basic realm="Gitea Package API"');
    const outsider = await fetch(`${registry('pat')}/example.com/secret/@v/list`, { headers: { Authorization: basic(bob) } });
    expect(outsider.status).to.equal(401);
    expect(await goRun('pat', 'example.com/secret', 'v1.0.0').then(() => 'fetched', () => 'refused')).to.equal('refused');
    // why: the go command sends .netrc credentials over https only, so the forge sits behind a TLS proxy here, as in production.
    const tls = await startTlsProxy(w.server.url);
    try {
      const proxy = `${tls.url}api/packages/pat/go`;
      expect(await goRun('pat', 'example.com/secret', 'v1.0.0', { proxy, certFile: tls.certFile }).then(() => 'fetched', () => 'refused')).to.equal('refused');
      expect(await goRun('pat', 'example.com/secret', 'v1.0.0', { proxy, certFile: tls.certFile, netrc: `machine 127.0.0.1 login pat password ${pat.token}\n` })).to.equal('psst');
    } finally {
      await tls.close();
    }
  });

  it('refuses anonymous and outsiders\' uploads with the Basic challenge, and a version twice with 409, changing nothing', async () => {
    const zip = await moduleZip('example.com/hello', 'v1.2.0', 'x');
    const before = await rows();
    const anon = await put('alice', zip);
    expect([anon.status, anon.headers.get('www-authenticate'), await anon.text()]).to.deep.equal([401, 'Basic realm="Gitea Package API"', 'user should have specific permission or be a site admin']);
    expect((await put('alice', zip, bob)).status).to.equal(401);
    const again = await put('alice', await moduleZip('example.com/hello', 'v1.0.0', 'changed'), alice);
    expect([again.status, await again.text()]).to.deep.equal([409, 'package version already exists']);
    expect(await rows()).to.equal(before);
    expect(tmpFiles()).to.deep.equal([]);
  });

  it('refuses bad module paths and versions, and zips that are not module zips, with 400', async () => {
    const before = await rows();
    const bad = async (zip: Buffer, text: RegExp) => {
      const r = await put('alice', zip, alice);
      expect(r.status).to.equal(400);
      expect(await r.text()).to.match(text);
    };
    await bad(await moduleZip('nodot/hello', 'v1.0.0', 'x'), /invalid module path/);
    await bad(await moduleZip('example.com/hello', 'v1.0', 'x'), /package version is invalid/);
    await bad(await moduleZip('example.com/hello', 'v2.0.0', 'x'), /package version is invalid/);
    await bad(await moduleZip('example.com/hello/v2', 'v1.0.0', 'x'), /package version is invalid/);
    await bad(Buffer.from('not a zip at all'), /invalid structure/);
    expect(await rows()).to.equal(before);
    expect(tmpFiles()).to.deep.equal([]);
  });

  it('refuses hostile zips (a path that climbs out, a link, 10 GB of zeros) early, changing nothing', async () => {
    const before = await rows();
    const root = fs.mkdtempSync(path.join(tmp, 'evil-'));
    const dir = path.join(root, 'example.com/evil@v1.0.0');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'go.mod'), 'module example.com/evil\n');
    fs.symlinkSync('/etc/passwd', path.join(dir, 'passwd'));
    await run('zip', ['-q', '-r', '-y', 'link.zip', 'example.com/evil@v1.0.0'], { cwd: root });
    const link = await put('alice', fs.readFileSync(path.join(root, 'link.zip')), alice);
    expect([link.status, await link.text()]).to.deep.equal([400, 'the archive has an entry that is not a plain file: "example.com/evil@v1.0.0/passwd"']);
    const climb = await put('alice', zipOfZeros([['example.com/evil@v1.0.0/../../x.go', 10]]), alice);
    expect([climb.status, await climb.text()]).to.deep.equal([400, 'the archive has an unsafe entry: "example.com/evil@v1.0.0/../../x.go"']);
    const bomb = zipOfZeros([1, 2, 3].map((i) => [`example.com/evil@v1.0.0/zeros${i}.bin`, 3.4 * 2 ** 30]));
    expect(bomb.length).to.be.lessThan(20 * 2 ** 20);
    const refused = await put('alice', bomb, alice);
    expect(refused.status).to.equal(400);
    expect(await refused.text()).to.match(/unpacks to more than/);
    expect(await rows()).to.equal(before);
    expect(tmpFiles()).to.deep.equal([]);
  });
});
