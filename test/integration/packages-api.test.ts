/**
 * The package API (`/api/v1/packages/{owner}`) through gitea-js and plain requests, and what the
 * registries share: who may read and write (an organization's teams, a private owner, token scopes),
 * the quotas with Gitea's 403 texts (site administrators exempt), link and unlink to a repository,
 * the `package` webhook event on publish and delete, the cleanup of unused blobs, and the switch
 * that turns it all off. Every refusal is shown to change nothing.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { startWorld, expectError, type World, type TestUser } from '../helpers/world';
import { apiRepo } from '../helpers/refs';
import { count, sql } from '../helpers/db';
import { basicAuth, cranTarball, goModuleZip, packageRows } from '../helpers/packages';

describe('packages: the API, access, quotas, events', function () {
  this.timeout(120_000);
  let w: World;
  let alice: TestUser; // owns packages and the org
  let bob: TestUser; // an outsider
  let carol: TestUser; // a member of the org's read-only team
  let tmp: string;

  const basic = basicAuth;
  const putGo = (owner: string, body: Buffer, auth?: string) => fetch(`${w.server.url}api/packages/${owner}/go/upload`, { method: 'PUT', body, headers: auth ? { Authorization: auth } : {} });
  const putCran = (owner: string, body: Buffer, auth?: string) => fetch(`${w.server.url}api/packages/${owner}/cran/src`, { method: 'PUT', body, headers: auth ? { Authorization: auth } : {} });
  const rows = () => packageRows(w.server);
  const token = async (u: TestUser, scopes: string[]) => (await w.raw('POST', `/users/${u.name}/tokens`, { name: `t-${scopes.join('-')}-${Date.now()}`, scopes }, { basic: [u.name, u.password] })).body.sha1 as string;

  before(async () => {
    w = await startWorld({ env: { FORGE__PACKAGES__LIMIT_TOTAL_OWNER_COUNT: '5', FORGE__PACKAGES__LIMIT_TOTAL_OWNER_SIZE: '200 KiB', FORGE__PACKAGES__LIMIT_SIZE_CRAN: '100KB', FORGE__WEBHOOK__ALLOWED_HOST_LIST: 'loopback' } });
    [alice, bob, carol] = [await w.user('alice'), await w.user('bob'), await w.user('carol')];
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'forge-pkgapi-'));
    expect((await putGo('alice', await goModuleZip(tmp, 'example.com/lib', 'v1.0.0', 'one'), basic(alice))).status).to.equal(201);
    expect((await putGo('alice', await goModuleZip(tmp, 'example.com/lib', 'v1.1.0', 'two'), basic(alice))).status).to.equal(201);
    expect((await putCran('alice', await cranTarball(tmp, 'statr', '1.0.0'), basic(alice))).status).to.equal(201);
  });
  after(async () => {
    await w?.stop();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('lists, filters, gets and lists the files of versions through gitea-js, as Gitea shapes them', async () => {
    const api = alice.api;
    const all = (await api.packages.listPackages('alice')).data;
    expect(all.map((p) => `${p.type} ${p.name} ${p.version}`)).to.deep.equal(['cran statr 1.0.0', 'go example.com/lib v1.1.0', 'go example.com/lib v1.0.0']);
    expect(all[0]).to.include({ type: 'cran', name: 'statr', version: '1.0.0', html_url: `${w.server.rootUrl}alice/-/packages/cran/statr/1.0.0` });
    expect(all[0].owner!.login).to.equal('alice');
    expect(all[0].creator!.login).to.equal('alice');
    expect(all[0].repository).to.equal(null);
    expect((await api.packages.listPackages('alice', { type: 'go' })).data.map((p) => p.version)).to.deep.equal(['v1.1.0', 'v1.0.0']);
    expect((await api.packages.listPackages('alice', { q: 'STAT' })).data.map((p) => p.name)).to.deep.equal(['statr']);
    const page = await api.packages.listPackages('alice', { limit: 1, page: 2 });
    expect(page.headers.get('x-total-count')).to.equal('3');
    expect(page.data.map((p) => p.version)).to.deep.equal(['v1.1.0']);
    expect((await api.packages.getPackage('alice', 'cran', 'statr', '1.0.0')).data).to.include({ name: 'statr', version: '1.0.0' });
    const files = (await api.packages.listPackageFiles('alice', 'cran', 'statr', '1.0.0')).data;
    expect(files.map((f) => f.name)).to.deep.equal(['statr_1.0.0.tar.gz']);
    const tarball = Buffer.from(await (await fetch(`${w.server.url}api/packages/alice/cran/src/contrib/statr_1.0.0.tar.gz`)).arrayBuffer());
    expect(files[0]).to.include({ size: tarball.length, sha256: (await import('node:crypto')).createHash('sha256').update(tarball).digest('hex') });
    // why: a Go module's name has slashes; in a path segment they are escaped.
    const one = await w.raw('GET', `/packages/alice/go/${encodeURIComponent('example.com/lib')}/v1.0.0`, undefined, { token: alice.token });
    expect(one.body).to.include({ name: 'example.com/lib', version: 'v1.0.0' });
    expect(files[0].md5).to.match(/^[0-9a-f]{32}$/);
    expect(files[0].sha512).to.match(/^[0-9a-f]{128}$/);
    const versions = await w.raw('GET', `/packages/alice/go/${encodeURIComponent('example.com/lib')}`, undefined, { token: alice.token });
    expect(versions.body.map((p: { version: string }) => p.version)).to.deep.equal(['v1.1.0', 'v1.0.0']);
    const latest = await w.raw('GET', `/packages/alice/go/${encodeURIComponent('example.com/lib')}/-/latest`, undefined, { token: alice.token });
    expect(latest.body.version).to.equal('v1.1.0');
    expectError(await w.raw('GET', '/packages/alice/go/nothing/v1.0.0', undefined, { token: alice.token }), 404, 'package does not exist');
  });

  it('needs a signed-in caller with the package scope; an outsider reads a public owner, a private one is hidden', async () => {
    expectError(await w.raw('GET', '/packages/alice'), 401, 'token is required');
    const repoOnly = await token(alice, ['write:repository']);
    expect((await w.raw('GET', '/packages/alice', undefined, { token: repoOnly })).status).to.equal(403);
    expect((await w.raw('GET', '/packages/alice', undefined, { token: bob.token })).status).to.equal(200);
    const pat = await w.user('pat', { visibility: 'private' });
    expect((await putCran('pat', await cranTarball(tmp, 'hidden', '1.0'), basic(pat))).status).to.equal(201);
    expectError(await w.raw('GET', '/packages/pat', undefined, { token: bob.token }), 404, 'user redirect does not exist [name: pat]');
    expect((await fetch(`${w.server.url}api/packages/pat/cran/src/contrib/PACKAGES`, { headers: { Authorization: basic(bob) } })).status).to.equal(401);
    // why: a read scope reads the registries but does not write them.
    const readPkg = await token(alice, ['read:package']);
    const before = await rows();
    const refused = await putCran('alice', await cranTarball(tmp, 'nope', '1.0'), basic(alice, readPkg));
    expect([refused.status, refused.headers.get('www-authenticate')]).to.deep.equal([401, 'Basic realm="Gitea Package API"']);
    expect(await rows()).to.equal(before);
    expect((await fetch(`${w.server.url}api/packages/alice/cran/src/contrib/PACKAGES`, { headers: { Authorization: basic(alice, readPkg) } })).status).to.equal(200);
  });

  it('lets an organization\'s writers publish and its readers only read', async () => {
    const org = (await w.raw('POST', '/orgs', { username: 'acme', visibility: 'private' }, { token: alice.token })).body;
    const team = (await w.raw('POST', '/orgs/acme/teams', { name: 'readers', permission: 'read', units: ['repo.code', 'repo.packages'] }, { token: alice.token })).body;
    expect((await w.raw('PUT', `/teams/${team.id}/members/carol`, undefined, { token: alice.token })).status).to.equal(204);
    expect(org.username).to.equal('acme');
    expect((await putCran('acme', await cranTarball(tmp, 'orgpkg', '1.0'), basic(alice))).status).to.equal(201);
    const before = await rows();
    expect((await putCran('acme', await cranTarball(tmp, 'orgpkg', '2.0'), basic(carol))).status).to.equal(401);
    expect(await rows()).to.equal(before);
    expect((await fetch(`${w.server.url}api/packages/acme/cran/src/contrib/PACKAGES`, { headers: { Authorization: basic(carol) } })).status).to.equal(200);
    expect((await fetch(`${w.server.url}api/packages/acme/cran/src/contrib/PACKAGES`, { headers: { Authorization: basic(bob) } })).status).to.equal(401);
    expect((await w.raw('DELETE', '/packages/acme/cran/orgpkg/1.0', undefined, { token: carol.token })).status).to.equal(403);
    expect(await rows()).to.equal(before);
  });

  it('links a package to one of its owner\'s repositories and unlinks it, with Gitea\'s refusals', async () => {
    await apiRepo(w, alice, 'stats');
    await apiRepo(w, bob, 'other');
    const link = (name: string, repo: string, u = alice) => w.raw('POST', `/packages/alice/cran/${name}/-/link/${repo}`, undefined, { token: u.token });
    expectError(await link('statr', 'other'), 404, `repository does not exist [id: 0, uid: ${alice.id}, owner_name: , name: other]`);
    expectError(await link('nothing', 'stats'), 404, 'package does not exist');
    expect((await link('statr', 'stats', bob)).status).to.equal(403);
    expect((await link('statr', 'stats')).status).to.equal(201);
    expectError(await link('statr', 'stats'), 400, 'invalid argument');
    const got = (await alice.api.packages.getPackage('alice', 'cran', 'statr', '1.0.0')).data;
    expect(got.repository!.full_name).to.equal('alice/stats');
    expect((await w.raw('POST', '/packages/alice/cran/statr/-/unlink', undefined, { token: alice.token })).status).to.equal(204);
    expectError(await w.raw('POST', '/packages/alice/cran/statr/-/unlink', undefined, { token: alice.token }), 400, 'invalid argument');
    expect((await alice.api.packages.getPackage('alice', 'cran', 'statr', '1.0.0')).data.repository).to.equal(null);
  });

  it('sends the package event to the owner\'s hooks on publish and delete', async () => {
    const got: { event: string; body: { action: string; package: { name: string; version: string }; sender: { login: string }; repository: unknown } }[] = [];
    const receiver = http.createServer((req, res) => {
      let text = '';
      req.on('data', (d) => { text += d; });
      req.on('end', () => { got.push({ event: String(req.headers['x-gitea-event']), body: JSON.parse(text) }); res.end('ok'); });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`;
      const hook = await w.raw('POST', '/user/hooks', { type: 'gitea', config: { url, content_type: 'json' }, events: ['package'], active: true }, { token: bob.token });
      expect(hook.status, hook.text).to.equal(201);
      expect((await putGo('bob', await goModuleZip(tmp, 'example.com/bobs', 'v0.1.0', 'b'), basic(bob))).status).to.equal(201);
      expect((await w.raw('DELETE', `/packages/bob/go/${encodeURIComponent('example.com/bobs')}/v0.1.0`, undefined, { token: bob.token })).status).to.equal(204);
      const deadline = Date.now() + 15_000;
      while (got.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(got.map((g) => [g.event, g.body.action, g.body.package.name, g.body.package.version, g.body.sender.login, g.body.repository])).to.deep.equal([
        ['package', 'created', 'example.com/bobs', 'v0.1.0', 'bob', null], ['package', 'deleted', 'example.com/bobs', 'v0.1.0', 'bob', null],
      ]);
    } finally {
      receiver.close();
    }
  });

  it('refuses past the quotas with Gitea\'s 403 texts, changing nothing; a site administrator is exempt', async () => {
    const q = await w.user('quota');
    const up = async (name: string, version: string, pad = 0, u: TestUser = q) => putCran('quota', await cranTarball(tmp, name, version, pad), basic(u));
    expect((await up('aa', '1.0', 60_000)).status).to.equal(201);
    expect((await up('aa', '2.0', 60_000)).status).to.equal(201);
    let before = await rows();
    const typeSize = await up('big', '1.0', 120_000);
    expect([typeSize.status, await typeSize.text()]).to.deep.equal([403, 'maximum allowed package type size exceeded']);
    const total = await up('aa', '3.0', 90_000);
    expect([total.status, await total.text()]).to.deep.equal([403, 'maximum allowed package storage quota exceeded']);
    expect(await rows()).to.equal(before);
    for (const name of ['bb', 'cc', 'dd']) expect((await up(name, '1.0')).status).to.equal(201);
    before = await rows();
    const countOver = await up('ee', '1.0');
    expect([countOver.status, await countOver.text()]).to.deep.equal([403, 'maximum allowed package count exceeded']);
    expect(await rows()).to.equal(before);
    expect((await up('ee', '1.0', 120_000, w.admin)).status).to.equal(201);
    // Deleted versions free their places and bytes under the quotas (the administrator's count too).
    for (const [name, version] of [['aa', '1.0'], ['aa', '2.0'], ['bb', '1.0']]) expect((await q.api.packages.deletePackage('quota', 'cran', name, version)).status).to.equal(204);
    expect((await up('ff', '1.0')).status).to.equal(201);
  });

  it('deletes a version (204), and the cleanup removes the blob no file uses any more', async () => {
    const zip = await goModuleZip(tmp, 'example.com/temp', 'v1.0.0', 'gone soon');
    expect((await putGo('alice', zip, basic(alice))).status).to.equal(201);
    const sha = (await import('node:crypto')).createHash('sha256').update(zip).digest('hex');
    const blob = path.join(w.server.dataDir, 'packages', sha.slice(0, 2), sha.slice(2, 4), sha);
    expect(fs.existsSync(blob)).to.equal(true);
    const del = await w.raw('DELETE', `/packages/alice/go/${encodeURIComponent('example.com/temp')}/v1.0.0`, undefined, { token: alice.token });
    expect(del.status, del.text).to.equal(204);
    expect((await fetch(`${w.server.url}api/packages/alice/go/example.com/temp/@v/list`)).status).to.equal(404);
    expectError(await w.raw('DELETE', `/packages/alice/go/${encodeURIComponent('example.com/temp')}/v1.0.0`, undefined, { token: alice.token }), 404, 'package does not exist');
    // why: the cleanup takes blobs unused for [cron.cleanup_packages] OLDER_THAN; this one is made old enough by hand.
    await sql(w.server, `UPDATE package_blob SET created_unix = 1 WHERE hash_sha256 = '${sha}'`);
    expect((await w.raw('POST', '/admin/cron/cleanup_packages', undefined, { token: w.admin.token })).status).to.equal(204);
    const deadline = Date.now() + 10_000;
    while (fs.existsSync(blob) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(fs.existsSync(blob)).to.equal(false);
    expect(await count(w.server, `SELECT COUNT(*) AS n FROM package_blob WHERE hash_sha256 = '${sha}'`)).to.equal(0);
    expect(await count(w.server, "SELECT COUNT(*) AS n FROM package WHERE lower_name = 'example.com/temp'")).to.equal(0);
  });
});

describe('packages: switched off with [packages] ENABLED = false', () => {
  let w: World;
  let tmp: string;
  before(async () => {
    w = await startWorld({ env: { FORGE__PACKAGES__ENABLED: 'false' } });
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'forge-pkgoff-'));
  });
  after(async () => {
    await w?.stop();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('answers 404 on every registry route and stores nothing', async () => {
    const u = await w.user('dora');
    const auth = `Basic ${Buffer.from(`dora:${u.token}`).toString('base64')}`;
    const put = await fetch(`${w.server.url}api/packages/dora/cran/src`, { method: 'PUT', body: await cranTarball(tmp, 'x', '1.0'), headers: { Authorization: auth } });
    expect(put.status).to.equal(404);
    expect((await fetch(`${w.server.url}api/packages/dora/go/example.com/x/@v/list`)).status).to.equal(404);
    expect(await count(w.server, 'SELECT COUNT(*) AS n FROM package_blob')).to.equal(0);
  });
});
