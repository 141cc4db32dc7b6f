/**
 * Git LFS over HTTP with the real git-lfs client and raw requests: push and smudging clone, locks,
 * per-repository object binding, the permission matrix (owner, read-only collaborator, stranger,
 * anonymous, archived), hostile object ids, wrong bytes, LFS bearer tokens, ranges, racing uploads,
 * and repository deletion.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { count } from '../helpers/db';
import { git, gitHome, type GitResult } from '../helpers/repo-fixture';
import { LFS_TYPE, LfsClient, lfsFiles, oidOf, signTokenFor, storedPath, type LfsResponse } from '../helpers/lfs';

describe('git LFS', () => {
  let w: World;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  let dave: TestUser;
  let lfs: LfsClient;
  let home: string;
  let tmp: string;
  const ids: Record<string, number> = {};
  let n = 0;

  const host = () => new URL(w.server.url).host;
  const cloneUrl = (u: TestUser, repo: string) => `http://${u.name}:${u.token}@${host()}/${repo}.git`;
  const dir = () => path.join(tmp, `d${++n}`);
  const g = (args: string[], cwd?: string) => git(args, { cwd, home });
  const ok = (r: GitResult) => { expect(r.code, `${r.stdout}\n${r.stderr}`).to.equal(0); return r; };
  const metaRows = (repo: string, oid: string) =>
    count(w.server, 'SELECT COUNT(*) AS n FROM lfs_meta_object WHERE repository_id = $1 AND oid = $2', [ids[repo], oid]);
  const basic = (u: TestUser): { basic: [string, string] } => ({ basic: [u.name, u.token] });
  const expectLfsError = (res: LfsResponse, status: number, message?: string | RegExp) => {
    expect(res.status, JSON.stringify(res.body)).to.equal(status);
    expect(res.headers.get('content-type')).to.contain(LFS_TYPE);
    expect(res.body.message).to.be.a('string');
    expect(res.body.request_id).to.be.a('string');
    if (typeof message === 'string') expect(res.body.message).to.equal(message);
    else if (message) expect(res.body.message).to.match(message);
  };
  const makeRepo = async (u: TestUser, name: string, isPrivate: boolean) => {
    const r = await u.api.user.createCurrentUserRepo({ name, private: isPrivate });
    expect(r.status).to.equal(201);
    ids[`${u.name}/${name}`] = r.data.id!;
  };

  // the object pushed by git-lfs in the first test
  const content = crypto.randomBytes(100_000);
  const oid = oidOf(content);

  before(async () => {
    w = await startWorld();
    [alice, bob, carol, dave] = [await w.user('alice'), await w.user('bob'), await w.user('carol'), await w.user('dave')];
    lfs = new LfsClient(w.server);
    home = gitHome();
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'forge-lfs-'));
    await makeRepo(alice, 'priv', true);
    await makeRepo(alice, 'other', true);
    await makeRepo(alice, 'pub', false);
    await makeRepo(carol, 'own', true);
    expect((await alice.api.repos.repoAddCollaborator('alice', 'priv', 'bob', { permission: 'read' })).status).to.equal(204);
    expect((await alice.api.repos.repoAddCollaborator('alice', 'priv', 'dave', { permission: 'write' })).status).to.equal(204);
  });
  after(async () => { await w?.stop(); });

  describe('with the git-lfs client', () => {
    let a: string;

    it('pushes a tracked file over HTTP, stores it content-addressed and links it to the repository', async () => {
      a = dir();
      ok(await g(['init', '-q', a]));
      ok(await g(['lfs', 'install', '--local'], a));
      ok(await g(['lfs', 'track', '*.bin'], a));
      fs.writeFileSync(path.join(a, 'big.bin'), content);
      fs.writeFileSync(path.join(a, 'notes.txt'), 'plain\n');
      ok(await g(['add', '.gitattributes', 'big.bin', 'notes.txt'], a));
      ok(await g(['commit', '-q', '-m', 'lfs file'], a));
      ok(await g(['remote', 'add', 'origin', cloneUrl(alice, 'alice/priv')], a));
      ok(await g(['push', '-q', 'origin', 'main'], a));

      expect(fs.readFileSync(storedPath(w.server, oid)).equals(content)).to.equal(true);
      expect(await metaRows('alice/priv', oid)).to.equal(1);
      const pointer = ok(await g(['show', 'HEAD:big.bin'], a)).stdout;
      expect(pointer).to.contain('version https://git-lfs.github.com/spec/v1');
      expect(pointer).to.contain(`oid sha256:${oid}`);
    });

    it('a fresh clone gets the real content through the smudge filter', async () => {
      const b = dir();
      ok(await g(['clone', '-q', '--no-checkout', cloneUrl(alice, 'alice/priv'), b]));
      ok(await g(['lfs', 'install', '--local'], b));
      ok(await g(['checkout', '-q', 'main'], b));
      expect(fs.readFileSync(path.join(b, 'big.bin')).equals(content)).to.equal(true);
      expect(fs.readFileSync(path.join(b, 'notes.txt'), 'utf8')).to.equal('plain\n');
    });

    it('a read-only collaborator clones with the content too (download needs code read)', async () => {
      const b = dir();
      ok(await g(['clone', '-q', '--no-checkout', cloneUrl(bob, 'alice/priv'), b]));
      ok(await g(['lfs', 'install', '--local'], b));
      ok(await g(['checkout', '-q', 'main'], b));
      expect(fs.readFileSync(path.join(b, 'big.bin')).equals(content)).to.equal(true);
    });

    it('git lfs lock, locks and unlock work against the server', async () => {
      const locked = ok(await g(['lfs', 'lock', '--json', 'big.bin'], a));
      // git-lfs 3.x prints a one-element array
      const printed = JSON.parse(locked.stdout);
      const lock = Array.isArray(printed) ? printed[0] : printed;
      expect(lock.path, locked.stdout).to.equal('big.bin');
      expect(lock.owner.name).to.equal('alice');
      const list = JSON.parse(ok(await g(['lfs', 'locks', '--json'], a)).stdout);
      expect(list.map((l: { path: string }) => l.path)).to.deep.equal(['big.bin']);
      const raw = await lfs.req('GET', lfs.url('alice/priv', '/locks'), basic(alice));
      expect(raw.status).to.equal(200);
      expect(raw.headers.get('content-type')).to.contain(LFS_TYPE);
      expect(raw.body.locks).to.have.length(1);
      expect(raw.body.locks[0]).to.have.keys(['id', 'path', 'locked_at', 'owner']);
      expect(raw.body.locks[0].id).to.equal(String(lock.id));
      expect(raw.body.locks[0].locked_at).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

      // a push still works while our own lock is held (locks/verify lists it as ours)
      fs.writeFileSync(path.join(a, 'notes.txt'), 'plain 2\n');
      ok(await g(['commit', '-q', '-am', 'notes'], a));
      ok(await g(['push', '-q', 'origin', 'main'], a));

      ok(await g(['lfs', 'unlock', 'big.bin'], a));
      expect(JSON.parse(ok(await g(['lfs', 'locks', '--json'], a)).stdout)).to.deep.equal([]);
      expect(await count(w.server, 'SELECT COUNT(*) AS n FROM lfs_lock WHERE repo_id = $1', [ids['alice/priv']])).to.equal(0);
    });

    it('a push that changes a file someone else locked is halted by git-lfs; after the unlock it goes through', async () => {
      const locked = await lfs.req('POST', lfs.url('alice/priv', '/locks'), basic(dave), { path: 'big.bin' });
      expect(locked.status).to.equal(201);
      // git-lfs only halts pushes on others' locks with lock verification switched on
      ok(await g(['config', 'lfs.locksverify', 'true'], a));
      const before = ok(await g(['rev-parse', 'HEAD'], a)).stdout.trim();
      const changed = crypto.randomBytes(5000);
      fs.writeFileSync(path.join(a, 'big.bin'), changed);
      ok(await g(['commit', '-q', '-am', 'change locked file'], a));
      const refused = await g(['push', 'origin', 'main'], a);
      expect(refused.code).to.not.equal(0);
      expect(refused.stderr).to.match(/lock/i);
      const remote = ok(await g(['ls-remote', cloneUrl(alice, 'alice/priv'), 'refs/heads/main'])).stdout.split('\t')[0];
      expect(remote).to.equal(before);

      expect((await lfs.req('POST', lfs.url('alice/priv', `/locks/${locked.body.lock.id}/unlock`), basic(dave), {})).status).to.equal(200);
      ok(await g(['push', '-q', 'origin', 'main'], a));
      expect(fs.readFileSync(storedPath(w.server, oidOf(changed))).equals(changed)).to.equal(true);
      expect(await metaRows('alice/priv', oidOf(changed))).to.equal(1);
    });
  });

  describe('object binding between repositories', () => {
    it('another repository answers a per-object 404 for an oid it has no link to, even though the store has it', async () => {
      const res = await lfs.batch('carol/own', 'download', [{ oid, size: content.length }], basic(carol));
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.contain(LFS_TYPE);
      expect(res.body.objects).to.deep.equal([{ oid, size: content.length, error: { code: 404, message: 'Not Found' } }]);
      expectLfsError(await lfs.get('carol/own', oid, basic(carol)), 404);
      expect(await metaRows('carol/own', oid)).to.equal(0);
    });

    it('a stranger must upload the bytes to link an existing object; wrong bytes are refused and nothing changes', async () => {
      const up = await lfs.batch('carol/own', 'upload', [{ oid, size: content.length }], basic(carol));
      expect(up.status).to.equal(200);
      const obj = up.body.objects[0];
      expect(obj.actions.upload.href).to.equal(`${w.server.url}carol/own.git/info/lfs/objects/${oid}/${content.length}`);
      expect(obj.actions.verify.href).to.equal(`${w.server.url}carol/own.git/info/lfs/verify`);
      expect(obj.actions.verify.header.Accept).to.equal(LFS_TYPE);
      expect(await metaRows('carol/own', oid)).to.equal(0);

      const forged = Buffer.alloc(content.length, 7);
      expectLfsError(await lfs.put('carol/own', oid, content.length, forged, basic(carol)), 422, 'content hash does not match OID');
      expect(await metaRows('carol/own', oid)).to.equal(0);
      expect(fs.readFileSync(storedPath(w.server, oid)).equals(content)).to.equal(true);
      expectLfsError(await lfs.get('carol/own', oid, basic(carol)), 404);

      // the real bytes prove possession: now it is linked and readable there
      expect((await lfs.put('carol/own', oid, content.length, content, basic(carol))).status).to.equal(200);
      expect(await metaRows('carol/own', oid)).to.equal(1);
      const got = await lfs.get('carol/own', oid, basic(carol));
      expect(got.status).to.equal(200);
      expect(got.bytes.equals(content)).to.equal(true);
    });

    it('an owner who can read the object elsewhere links it without a transfer (as Gitea)', async () => {
      const up = await lfs.batch('alice/other', 'upload', [{ oid, size: content.length }], basic(alice));
      expect(up.body.objects).to.deep.equal([{ oid, size: content.length }]);
      expect(await metaRows('alice/other', oid)).to.equal(1);
      const down = await lfs.batch('alice/other', 'download', [{ oid, size: content.length }], basic(alice));
      expect(down.body.objects[0].actions.download.href).to.equal(`${w.server.url}alice/other.git/info/lfs/objects/${oid}`);
      expect(down.body.objects[0].actions.download.header.Authorization).to.match(/^Basic /);
    });

    it('a size that does not match the object is a per-object 422', async () => {
      const res = await lfs.batch('alice/priv', 'download', [{ oid, size: 5 }], basic(alice));
      expect(res.body.objects[0].error).to.deep.equal({ code: 422, message: `Object ${oid} is not 5 bytes` });
    });
  });

  describe('permissions', () => {
    const fresh = crypto.randomBytes(2048);
    const freshOid = oidOf(fresh);

    it('a read-only collaborator can download but gets 403 on upload, and nothing is stored', async () => {
      const down = await lfs.batch('alice/priv', 'download', [{ oid, size: content.length }], basic(bob));
      expect(down.body.objects[0].actions.download).to.be.an('object');
      expect((await lfs.get('alice/priv', oid, basic(bob))).bytes.equals(content)).to.equal(true);

      expectLfsError(await lfs.batch('alice/priv', 'upload', [{ oid: freshOid, size: fresh.length }], basic(bob)), 403);
      expectLfsError(await lfs.put('alice/priv', freshOid, fresh.length, fresh, basic(bob)), 403);
      expect(fs.existsSync(storedPath(w.server, freshOid))).to.equal(false);
      expect(await metaRows('alice/priv', freshOid)).to.equal(0);
    });

    it('a stranger gets 404 on a private repository, like a missing one', async () => {
      expectLfsError(await lfs.batch('alice/priv', 'download', [{ oid, size: content.length }], basic(carol)), 404);
      expectLfsError(await lfs.get('alice/priv', oid, basic(carol)), 404);
      expectLfsError(await lfs.batch('alice/nope', 'download', [{ oid, size: content.length }], basic(carol)), 404);
    });

    it('anonymous callers on a private repository get 401 with the LFS challenge and an LFS error body', async () => {
      for (const res of [
        await lfs.batch('alice/priv', 'download', [{ oid, size: content.length }], null),
        await lfs.get('alice/priv', oid, null),
        await lfs.batch('alice/nope', 'download', [], null),
        await lfs.req('GET', lfs.url('alice/priv', '/locks'), null),
      ]) {
        expectLfsError(res, 401);
        expect(res.headers.get('lfs-authenticate')).to.equal('Basic realm="gitea-lfs"');
        expect(res.headers.get('www-authenticate')).to.equal('Basic realm="gitea-lfs"');
      }
    });

    it('anonymous callers may download from a public repository but not upload', async () => {
      expect((await lfs.put('alice/pub', freshOid, fresh.length, fresh, basic(alice))).status).to.equal(200);
      const down = await lfs.batch('alice/pub', 'download', [{ oid: freshOid, size: fresh.length }], null);
      expect(down.body.objects[0].actions.download.header).to.equal(undefined);
      expect((await lfs.get('alice/pub', freshOid, null)).bytes.equals(fresh)).to.equal(true);
      const other = crypto.randomBytes(10);
      const up = await lfs.batch('alice/pub', 'upload', [{ oid: oidOf(other), size: 10 }], null);
      expectLfsError(up, 401);
      expectLfsError(await lfs.put('alice/pub', oidOf(other), 10, other, null), 401);
      expect(fs.existsSync(storedPath(w.server, oidOf(other)))).to.equal(false);
    });

    it('paths without .git work too', async () => {
      const res = await lfs.req('POST', `${w.server.url}alice/pub/info/lfs/objects/batch`, null, { operation: 'download', objects: [{ oid: freshOid, size: fresh.length }] });
      expect(res.status).to.equal(200);
      expect(res.body.objects[0].actions.download).to.be.an('object');
    });

    it('an archived repository refuses uploads but still serves downloads', async () => {
      await makeRepo(alice, 'frozen', false);
      expect((await lfs.put('alice/frozen', freshOid, fresh.length, fresh, basic(alice))).status).to.equal(200);
      expect((await alice.api.repos.repoEdit('alice', 'frozen', { archived: true })).status).to.equal(200);
      const other = crypto.randomBytes(64);
      expectLfsError(await lfs.batch('alice/frozen', 'upload', [{ oid: oidOf(other), size: 64 }], basic(alice)), 403, 'repo is archived');
      expectLfsError(await lfs.put('alice/frozen', oidOf(other), 64, other, basic(alice)), 403);
      expect(fs.existsSync(storedPath(w.server, oidOf(other)))).to.equal(false);
      expect((await lfs.get('alice/frozen', freshOid, basic(alice))).bytes.equals(fresh)).to.equal(true);
    });

    it('the JSON endpoints need the LFS Accept type (415) and a valid operation (400)', async () => {
      const plain = await lfs.req('POST', lfs.url('alice/priv', '/objects/batch'), basic(alice), { operation: 'download', objects: [] }, { Accept: 'application/json' });
      expectLfsError(plain, 415);
      expectLfsError(await lfs.batch('alice/priv', 'delete', [], basic(alice)), 400);
      expectLfsError(await lfs.req('POST', lfs.url('alice/priv', '/objects/batch'), basic(alice), '{"operation":'), 400);
      expectLfsError(await lfs.req('POST', lfs.url('alice/priv', '/objects/batch'), basic(alice), { operation: 'upload', objects: [], hash_algo: 'sha1' }), 409);
      expectLfsError(await lfs.req('GET', lfs.url('alice/priv', '/no/such'), basic(alice)), 404);
    });
  });

  describe('hostile input', () => {
    const bytes = Buffer.from('hostile test bytes');
    const good = oidOf(bytes);

    it('refuses bad object ids and sizes per object with 422 and stores nothing', async () => {
      const before = lfsFiles(w.server);
      const bad = ['../../etc/passwd', '....../../../etc/passwd', good.toUpperCase(), good.slice(0, 10), `${good}0`, `${good.slice(0, 63)}g`, ''];
      const res = await lfs.batch('alice/priv', 'upload', [...bad.map((o) => ({ oid: o, size: bytes.length })), { oid: good, size: -1 }], basic(alice));
      expect(res.status).to.equal(200);
      expect(res.body.objects).to.have.length(bad.length + 1);
      for (const o of res.body.objects) {
        expect(o.error).to.deep.equal({ code: 422, message: 'Oid or size are invalid' });
        expect(o.actions).to.equal(undefined);
      }
      const down = await lfs.batch('alice/priv', 'download', bad.map((o) => ({ oid: o, size: 1 })), basic(alice));
      expect(down.body.objects).to.have.length(bad.length);
      for (const o of down.body.objects) expect(o.error).to.deep.equal({ code: 422, message: 'Oid or size are invalid' });
      expect(lfsFiles(w.server)).to.deep.equal(before);
      expect(await count(w.server, 'SELECT COUNT(*) AS n FROM lfs_meta_object WHERE length(oid) <> 64 OR oid <> lower(oid)')).to.equal(0);
    });

    it('refuses bad object ids and sizes on the URL routes and stores nothing', async () => {
      const before = lfsFiles(w.server);
      for (const o of [good.toUpperCase(), good.slice(0, 20), '..%2F..%2Fetc%2Fpasswd', `${good}00`]) {
        expectLfsError(await lfs.put('alice/priv', o, bytes.length, bytes, basic(alice)), 422, 'Oid or size are invalid');
        expectLfsError(await lfs.get('alice/priv', o, basic(alice)), 422, 'Oid or size are invalid');
      }
      expectLfsError(await lfs.put('alice/priv', good, '-1', bytes, basic(alice)), 422);
      expectLfsError(await lfs.put('alice/priv', good, 'abc', bytes, basic(alice)), 422);
      const traversal = await fetch(`${w.server.url}alice/priv.git/info/lfs/objects/../../../../etc/passwd`, { headers: { Accept: LFS_TYPE } });
      // the client resolves the dots before sending: the request names /alice/etc/passwd, which the forge does not serve
      expect(new URL(traversal.url).pathname).to.equal('/alice/etc/passwd');
      expect(traversal.status).to.equal(404);
      expect(lfsFiles(w.server)).to.deep.equal(before);
      expect(await metaRows('alice/priv', good)).to.equal(0);
    });

    it('refuses an upload with the wrong hash or the wrong size, leaving nothing behind', async () => {
      const before = lfsFiles(w.server);
      const wrong = Buffer.from(bytes.toString().toUpperCase());
      expectLfsError(await lfs.put('alice/priv', good, bytes.length, wrong, basic(alice)), 422, 'content hash does not match OID');
      expectLfsError(await lfs.put('alice/priv', good, bytes.length + 1, bytes, basic(alice)), 422, 'content size does not match');
      expectLfsError(await lfs.put('alice/priv', good, bytes.length - 1, bytes, basic(alice)), 422, 'content size does not match');
      expectLfsError(await lfs.put('alice/priv', good, bytes.length, Buffer.concat([bytes, Buffer.from('x')]), basic(alice)), 422);
      expect(lfsFiles(w.server)).to.deep.equal(before);
      expect(fs.existsSync(storedPath(w.server, good))).to.equal(false);
      expect(await metaRows('alice/priv', good)).to.equal(0);
      expectLfsError(await lfs.req('POST', lfs.url('alice/priv', '/verify'), basic(alice), { oid: good, size: bytes.length }), 404);
    });

    it('verify answers 200 for a stored object, 422 for a wrong size and 404 for an unknown one', async () => {
      expect((await lfs.put('alice/priv', good, bytes.length, bytes, basic(alice))).status).to.equal(200);
      const v = await lfs.req('POST', lfs.url('alice/priv', '/verify'), basic(alice), { oid: good, size: bytes.length });
      expect(v.status).to.equal(200);
      expect((await lfs.req('POST', lfs.url('alice/priv', '/objects/verify'), basic(alice), { oid: good, size: bytes.length })).status).to.equal(200);
      expectLfsError(await lfs.req('POST', lfs.url('alice/priv', '/verify'), basic(alice), { oid: good, size: 3 }), 422);
      expectLfsError(await lfs.req('POST', lfs.url('alice/priv', '/verify'), basic(alice), { oid: '0'.repeat(64), size: 3 }), 404);
      expectLfsError(await lfs.req('POST', lfs.url('alice/priv', '/verify'), basic(alice), 'not json'), 422);
      expectLfsError(await lfs.req('POST', lfs.url('alice/priv', '/verify'), basic(bob), { oid: good, size: bytes.length }), 403);
    });

    it('two racing uploads of the same object both succeed and store it once', async () => {
      const big = crypto.randomBytes(3_000_000);
      const bigOid = oidOf(big);
      const [r1, r2] = await Promise.all([
        lfs.put('alice/priv', bigOid, big.length, big, basic(alice)),
        lfs.put('alice/priv', bigOid, big.length, big, basic(alice)),
      ]);
      expect([r1.status, r2.status]).to.deep.equal([200, 200]);
      expect(fs.readFileSync(storedPath(w.server, bigOid)).equals(big)).to.equal(true);
      expect(await metaRows('alice/priv', bigOid)).to.equal(1);
      expect(fs.readdirSync(path.join(w.server.dataDir, 'lfs', 'tmp'))).to.deep.equal([]);
    });

    it('an upload the client abandons midway leaves no object, link or temp file', async () => {
      const data = crypto.randomBytes(200_000);
      const dataOid = oidOf(data);
      await new Promise<void>((resolve) => {
        const req = http.request(lfs.url('alice/priv', `/objects/${dataOid}/${data.length}`), {
          method: 'PUT', headers: { Authorization: `Basic ${Buffer.from(`alice:${alice.token}`).toString('base64')}`, 'Content-Length': String(data.length) },
        });
        req.on('error', () => resolve());
        req.on('close', () => resolve());
        req.write(data.subarray(0, 50_000), () => setImmediate(() => req.destroy()));
      });
      const tmpDir = path.join(w.server.dataDir, 'lfs', 'tmp');
      // the server notices the disconnect on its own schedule: wait for the outcome, not for a time
      for (let i = 0; i < 200 && fs.readdirSync(tmpDir).length > 0; i++) await new Promise((r) => setTimeout(r, 50));
      expect(fs.readdirSync(tmpDir)).to.deep.equal([]);
      expect(fs.existsSync(storedPath(w.server, dataOid))).to.equal(false);
      expect(await metaRows('alice/priv', dataOid)).to.equal(0);
    });

    it('serves byte ranges (206) and refuses a range past the end (416)', async () => {
      const part = await lfs.get('alice/priv', oid, basic(alice), { Range: 'bytes=10-19' });
      expect(part.status).to.equal(206);
      expect(part.headers.get('content-range')).to.equal(`bytes 10-19/${content.length}`);
      expect(part.bytes.equals(content.subarray(10, 20))).to.equal(true);
      const tail = await lfs.get('alice/priv', oid, basic(alice), { Range: `bytes=${content.length - 5}-` });
      expect(tail.bytes.equals(content.subarray(content.length - 5))).to.equal(true);
      expectLfsError(await lfs.get('alice/priv', oid, basic(alice), { Range: `bytes=${content.length}-` }), 416);
    });
  });

  describe('locks API', () => {
    const locksUrl = (repo = 'alice/priv') => lfs.url(repo, '/locks');

    it('normalises paths (no escape from the root) and refuses a second lock on the same path in any case (409)', async () => {
      const a = await lfs.req('POST', locksUrl(), basic(alice), { path: '../../etc/passwd' });
      expect(a.status).to.equal(201);
      expect(a.body.lock.path).to.equal('etc/passwd');
      const b = await lfs.req('POST', locksUrl(), basic(alice), { path: '/docs//./a/../Design.psd/' });
      expect(b.body.lock.path).to.equal('docs/Design.psd');
      const again = await lfs.req('POST', locksUrl(), basic(dave), { path: 'docs/design.PSD' });
      expect(again.status).to.equal(409);
      expect(again.body.message).to.equal('already created lock');
      expect(again.body.lock.id).to.equal(b.body.lock.id);
      expectLfsError(await lfs.req('POST', locksUrl(), basic(alice), { path: '..' }), 422);
      const byPath = await lfs.req('GET', `${locksUrl()}?path=DOCS/design.psd`, basic(bob));
      expect(byPath.body.locks.map((l: { id: string }) => l.id)).to.deep.equal([b.body.lock.id]);
      expect(await count(w.server, 'SELECT COUNT(*) AS n FROM lfs_lock WHERE repo_id = $1', [ids['alice/priv']])).to.equal(2);
    });

    it('read-only users may list but not lock or unlock; strangers see 404; anonymous 401', async () => {
      const list = await lfs.req('GET', locksUrl(), basic(bob));
      expect(list.status).to.equal(200);
      expect(list.body.locks).to.have.length(2);
      expectLfsError(await lfs.req('POST', locksUrl(), basic(bob), { path: 'x.bin' }), 403, 'You must have push access to create locks');
      expectLfsError(await lfs.req('POST', `${locksUrl()}/${list.body.locks[0].id}/unlock`, basic(bob), { force: true }), 403);
      expectLfsError(await lfs.req('POST', `${locksUrl()}/verify`, basic(bob), {}), 403);
      expectLfsError(await lfs.req('GET', locksUrl(), basic(carol)), 404);
      expectLfsError(await lfs.req('POST', locksUrl(), null, { path: 'x.bin' }), 401, 'You must have push access to create locks');
      expectLfsError(await lfs.req('GET', locksUrl('alice/pub'), null), 401, 'You must have pull access to list locks');
      expect(await count(w.server, 'SELECT COUNT(*) AS n FROM lfs_lock WHERE repo_id = $1', [ids['alice/priv']])).to.equal(2);
    });

    it('verify splits ours and theirs; a lock id of another repository does not exist there', async () => {
      const mine = await lfs.req('POST', locksUrl(), basic(dave), { path: 'dave.bin' });
      expect(mine.status).to.equal(201);
      const v = await lfs.req('POST', `${locksUrl()}/verify`, basic(dave), { limit: 100 });
      expect(v.body.ours.map((l: { path: string }) => l.path)).to.deep.equal(['dave.bin']);
      expect(v.body.theirs.map((l: { path: string }) => l.path).sort()).to.deep.equal(['docs/Design.psd', 'etc/passwd']);

      const id = mine.body.lock.id;
      expectLfsError(await lfs.req('POST', `${lfs.url('carol/own', '/locks')}/${id}/unlock`, basic(carol), { force: true }), 404);
      const byId = await lfs.req('GET', `${lfs.url('carol/own', '/locks')}?id=${id}`, basic(carol));
      expect(byId.body.locks).to.deep.equal([]);
      expect(await count(w.server, 'SELECT COUNT(*) AS n FROM lfs_lock WHERE id = $1', [Number(id)])).to.equal(1);
    });

    it('another writer cannot unlock someone else\'s lock, not even with force; the owner and admins can', async () => {
      const list = (await lfs.req('GET', locksUrl(), basic(alice))).body.locks as { id: string; path: string; owner: { name: string } }[];
      const alices = list.filter((l) => l.owner.name === 'alice');
      const daves = list.find((l) => l.owner.name === 'dave')!;
      expectLfsError(await lfs.req('POST', `${locksUrl()}/${alices[0].id}/unlock`, basic(dave), {}), 403, /force flag is not set/);
      expectLfsError(await lfs.req('POST', `${locksUrl()}/${alices[0].id}/unlock`, basic(dave), { force: true }), 403);
      expect(await count(w.server, 'SELECT COUNT(*) AS n FROM lfs_lock WHERE repo_id = $1', [ids['alice/priv']])).to.equal(3);

      const own = await lfs.req('POST', `${locksUrl()}/${daves.id}/unlock`, basic(dave), {});
      expect(own.status).to.equal(200);
      expect(own.body.lock.path).to.equal('dave.bin');
      const forced = await lfs.req('POST', `${locksUrl()}/${alices[0].id}/unlock`, basic(w.admin), { force: true });
      expect(forced.status).to.equal(200);
      expect((await lfs.req('POST', `${locksUrl()}/${alices[1].id}/unlock`, basic(alice), {})).status).to.equal(200);
      expectLfsError(await lfs.req('POST', `${locksUrl()}/${alices[1].id}/unlock`, basic(alice), {}), 404);
      expect(await count(w.server, 'SELECT COUNT(*) AS n FROM lfs_lock WHERE repo_id = $1', [ids['alice/priv']])).to.equal(0);
    });

    it('pages with next_cursor', async () => {
      for (let i = 0; i < 3; i++) expect((await lfs.req('POST', locksUrl('alice/pub'), basic(alice), { path: `f${i}` })).status).to.equal(201);
      const p1 = await lfs.req('GET', `${locksUrl('alice/pub')}?limit=2`, basic(alice));
      expect(p1.body.locks.map((l: { path: string }) => l.path)).to.deep.equal(['f0', 'f1']);
      expect(p1.body.next_cursor).to.be.a('string');
      const p2 = await lfs.req('GET', `${locksUrl('alice/pub')}?limit=2&cursor=${p1.body.next_cursor}`, basic(alice));
      expect(p2.body.locks.map((l: { path: string }) => l.path)).to.deep.equal(['f2']);
      expect(p2.body).to.not.have.property('next_cursor');
    });
  });

  describe('LFS bearer tokens', () => {
    const data = crypto.randomBytes(4096);
    const dataOid = oidOf(data);
    const grant = (repo: string, op: 'upload' | 'download', userId = alice.id) => ({ repoId: ids[repo], userId, deployKeyId: 0, op });

    it('an upload token works for its repository: batch, PUT and download', async () => {
      const t = { bearer: signTokenFor(w.server, grant('alice/priv', 'upload')) };
      const up = await lfs.batch('alice/priv', 'upload', [{ oid: dataOid, size: data.length }], t);
      expect(up.status).to.equal(200);
      expect(up.body.objects[0].actions.upload.header.Authorization).to.equal(`Bearer ${t.bearer}`);
      expect((await lfs.put('alice/priv', dataOid, data.length, data, t)).status).to.equal(200);
      expect((await lfs.get('alice/priv', dataOid, t)).bytes.equals(data)).to.equal(true);
      const locks = await lfs.req('GET', lfs.url('alice/priv', '/locks'), t);
      expect(locks.status).to.equal(200);
    });

    it('a download token reads but cannot upload (401), and nothing is stored', async () => {
      const t = { bearer: signTokenFor(w.server, grant('alice/priv', 'download')) };
      expect((await lfs.batch('alice/priv', 'download', [{ oid: dataOid, size: data.length }], t)).body.objects[0].actions.download).to.be.an('object');
      const other = crypto.randomBytes(100);
      expectLfsError(await lfs.batch('alice/priv', 'upload', [{ oid: oidOf(other), size: 100 }], t), 401);
      const put = await lfs.put('alice/priv', oidOf(other), 100, other, t);
      expectLfsError(put, 401);
      expect(put.headers.get('lfs-authenticate')).to.equal('Basic realm="gitea-lfs"');
      expect(fs.existsSync(storedPath(w.server, oidOf(other)))).to.equal(false);
    });

    it('a token for another repository, a tampered one and an expired one are refused', async () => {
      const forOther = { bearer: signTokenFor(w.server, grant('alice/other', 'upload')) };
      expectLfsError(await lfs.batch('alice/priv', 'download', [{ oid: dataOid, size: data.length }], forOther), 401);
      expectLfsError(await lfs.get('alice/priv', dataOid, forOther), 401);
      const good = signTokenFor(w.server, grant('alice/priv', 'upload'));
      const [body, sig] = good.split('.');
      const forged = JSON.parse(Buffer.from(body, 'base64url').toString());
      forged.repoId = ids['carol/own'];
      const tampered = `${Buffer.from(JSON.stringify(forged)).toString('base64url')}.${sig}`;
      expectLfsError(await lfs.batch('carol/own', 'download', [], { bearer: tampered }), 401);
      const expired = signTokenFor(w.server, grant('alice/priv', 'upload'), -10);
      expectLfsError(await lfs.batch('alice/priv', 'download', [], { bearer: expired }), 401);
    });

    it('the token names the caller; its current permission still decides (read-only user, upload token: 403)', async () => {
      const t = { bearer: signTokenFor(w.server, grant('alice/priv', 'upload', bob.id)) };
      expect((await lfs.batch('alice/priv', 'download', [{ oid: dataOid, size: data.length }], t)).status).to.equal(200);
      expectLfsError(await lfs.batch('alice/priv', 'upload', [{ oid: dataOid, size: data.length }], t), 403);
    });
  });

  describe('repository deletion', () => {
    it('removes the repository\'s LFS links and locks; the shared content stays on disk for a later GC', async () => {
      await makeRepo(alice, 'doomed', false);
      const data = crypto.randomBytes(1000);
      expect((await lfs.put('alice/doomed', oidOf(data), data.length, data, basic(alice))).status).to.equal(200);
      expect((await lfs.req('POST', lfs.url('alice/doomed', '/locks'), basic(alice), { path: 'a.bin' })).status).to.equal(201);
      const id = ids['alice/doomed'];
      expect((await alice.api.repos.repoDelete('alice', 'doomed')).status).to.equal(204);
      expect(await count(w.server, 'SELECT COUNT(*) AS n FROM lfs_meta_object WHERE repository_id = $1', [id])).to.equal(0);
      expect(await count(w.server, 'SELECT COUNT(*) AS n FROM lfs_lock WHERE repo_id = $1', [id])).to.equal(0);
      expect(fs.existsSync(storedPath(w.server, oidOf(data)))).to.equal(true);
    });
  });
});
