/**
 * Deploy keys: the API (`/repos/{owner}/{repo}/keys`: shapes, paging, filters, repository admins
 * only, Gitea's validation messages with nothing stored, one shared key row per key content,
 * removal with the repository) and their use over SSH (read-only clones but cannot push, another
 * repository's key finds nothing, private organizations, LFS tokens, the greeting, deletion).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { count, sql } from '../helpers/db';
import { git, gitHome, serverRepoDir, type GitResult } from '../helpers/repo-fixture';
import { gitSshCommand, runSsh, sshKeyFile, type SshKeyFile } from '../helpers/ssh';
import { LfsClient, oidOf, storedPath } from '../helpers/lfs';

describe('deploy keys', () => {
  let w: World;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  let dave: TestUser;
  let home: string;
  let tmp: string;
  let n = 0;

  const port = () => w.server.sshPort;
  const sshUrl = (owner: string, repo: string) => `ssh://git@127.0.0.1:${port()}/${owner}/${repo}.git`;
  const dir = () => path.join(tmp, `d${++n}`);
  const g = (args: string[], cwd: string | undefined, key: SshKeyFile) => git(args, { cwd, home, env: { GIT_SSH_COMMAND: gitSshCommand(port(), key) } });
  const ok = (r: GitResult) => { expect(r.code, r.stderr).to.equal(0); return r; };
  const serverRefs = async (owner: string, repo: string) =>
    ok(await git(['--git-dir', serverRepoDir(w.server, owner, repo), 'for-each-ref', '--format=%(refname) %(objectname)'], { home })).stdout;
  const keysPath = (repo: string) => `/repos/alice/${repo}/keys`;
  const listRaw = (repo: string, token = alice.token, query = '') => w.raw('GET', `${keysPath(repo)}${query}`, undefined, { token });
  const deployRows = () => count(w.server, 'SELECT COUNT(*) AS n FROM deploy_key');
  const keyRows = () => count(w.server, 'SELECT COUNT(*) AS n FROM public_key');
  const add = async (repo: string, title: string, key: SshKeyFile, readOnly: boolean) => {
    const r = await alice.api.repos.repoCreateKey('alice', repo, { title, key: key.pub, read_only: readOnly });
    expect(r.status).to.equal(201);
    return r.data;
  };

  before(async () => {
    w = await startWorld();
    [alice, bob, carol, dave] = [await w.user('alice'), await w.user('bob'), await w.user('carol'), await w.user('dave')];
    for (const [name, priv] of [['app', false], ['lib', false], ['private', true], ['doomed', false]] as const) {
      expect((await alice.api.user.createCurrentUserRepo({ name, private: priv, auto_init: true })).status).to.equal(201);
    }
    for (const [who, permission] of [['bob', 'write'], ['carol', 'admin']]) {
      expect((await w.raw('PUT', `/repos/alice/app/collaborators/${who}`, { permission }, { token: alice.token })).status).to.equal(204);
    }
    home = gitHome();
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'forge-deploy-'));
  });
  after(async () => { await w?.stop(); });

  describe('API', () => {
    let ro: SshKeyFile;
    let rw: SshKeyFile;
    let roId: number;

    before(() => {
      ro = sshKeyFile('ed25519');
      rw = sshKeyFile('rsa', 3072);
    });

    it('adds a key (201) with Gitea\'s DeployKey shape', async () => {
      const k = await add('app', 'ci read', ro, true);
      roId = k.id!;
      expect(Object.keys(k).sort()).to.deep.equal(['created_at', 'fingerprint', 'id', 'key', 'key_id', 'read_only', 'title', 'url']);
      expect(k.key).to.equal(ro.pub.split(' ').slice(0, 2).join(' '));
      expect(k.fingerprint).to.equal(ro.fingerprint);
      expect(k.title).to.equal('ci read');
      expect(k.read_only).to.equal(true);
      expect(k.url).to.equal(`${w.server.url}api/v1/repos/alice/app/keys/${k.id}`);
      expect(Date.parse(k.created_at!)).to.be.greaterThan(Date.now() - 60_000);
      const rwKey = await add('app', 'ci write', rw, false);
      expect(rwKey.read_only).to.equal(false);
      const row = (await sql(w.server, 'SELECT owner_id, type, mode FROM public_key WHERE id = $1', [k.key_id]))[0];
      expect([Number(row.owner_id), Number(row.type), Number(row.mode)]).to.deep.equal([0, 2, 1]);
    });

    it('lists with paging, key_id and fingerprint filters; the owner and site admins also get the repository', async () => {
      const all = await listRaw('app');
      expect(all.status).to.equal(200);
      expect(all.headers.get('x-total-count')).to.equal('2');
      expect(all.body.map((k: { title: string }) => k.title)).to.deep.equal(['ci read', 'ci write']);
      expect(all.body[0].repository.full_name).to.equal('alice/app');
      expect(all.body[0].repository.permissions).to.deep.equal({ admin: false, push: false, pull: true });
      expect(all.body[1].repository.permissions).to.deep.equal({ admin: false, push: true, pull: true });
      const page2 = await listRaw('app', alice.token, '?limit=1&page=2');
      expect(page2.body.map((k: { title: string }) => k.title)).to.deep.equal(['ci write']);
      expect(page2.headers.get('link')).to.contain('rel="first"');
      const byFp = await alice.api.repos.repoListKeys('alice', 'app', { fingerprint: rw.fingerprint });
      expect(byFp.data.map((k) => k.title)).to.deep.equal(['ci write']);
      const byKeyId = await alice.api.repos.repoListKeys('alice', 'app', { key_id: all.body[0].key_id });
      expect(byKeyId.data.map((k) => k.title)).to.deep.equal(['ci read']);
      const admin = await listRaw('app', w.admin.token);
      expect(admin.body[0].repository.full_name).to.equal('alice/app');
      const repoAdmin = await listRaw('app', carol.token);
      expect(repoAdmin.status).to.equal(200);
      expect(repoAdmin.body[0]).to.not.have.property('repository');
    });

    it('gets one key by id; another repository\'s id or a missing one is 404', async () => {
      const one = await alice.api.repos.repoGetKey('alice', 'app', roId);
      expect([one.data.id, one.data.title, one.data.repository?.full_name]).to.deep.equal([roId, 'ci read', 'alice/app']);
      for (const [repo, id] of [['lib', roId], ['app', 999999]] as const) {
        const r = await w.raw('GET', `${keysPath(repo)}/${id}`, undefined, { token: alice.token });
        expect(r.status).to.equal(404);
      }
    });

    it('refuses bad input with Gitea\'s 422 messages and stores nothing', async () => {
      const other = sshKeyFile('ed25519');
      const userKey = sshKeyFile('ed25519');
      expect((await bob.api.user.userCurrentPostKey({ title: 'bob laptop', key: userKey.pub })).status).to.equal(201);
      const before = [await deployRows(), await keyRows(), (await listRaw('app')).text];
      const cases: [unknown, number, string][] = [
        [{ key: other.pub }, 422, 'title'],
        [{ title: 'x', key: '' }, 422, '[Key]: Required'],
        [{ title: 'x', key: 'ssh-ed25519 AAAAnotakey' }, 422, 'Invalid key content: '],
        [{ title: 'x', key: fs.readFileSync(other.file, 'utf8') }, 422, 'Invalid key content: this is a private key'],
        [{ title: 'again', key: ro.pub }, 422, 'This key has already been added to this repository'],
        [{ title: 'ci read', key: other.pub }, 422, 'A key with the same name already exists'],
        [{ title: 'stolen', key: userKey.pub }, 422, 'Key content has been used as non-deploy key'],
        [{ title: 'x', key: other.pub, read_only: 'yes' }, 422, ''],
      ];
      for (const [body, status, message] of cases) {
        const r = await w.raw('POST', keysPath('app'), body, { token: alice.token });
        expect(r.status, JSON.stringify(body)).to.equal(status);
        expect(r.body.message, JSON.stringify(body)).to.contain(message);
      }
      // the other way round: the user keys API refuses a deploy key's content
      const asUser = await w.raw('POST', '/user/keys', { title: 'mine', key: ro.pub }, { token: dave.token });
      expect([asUser.status, asUser.body.message]).to.deep.equal([422, 'Key content has been used as non-deploy key']);
      const asAdmin = await w.raw('POST', '/admin/users/dave/keys', { title: 'mine', key: rw.pub }, { token: w.admin.token });
      expect([asAdmin.status, asAdmin.body.message]).to.deep.equal([422, 'Key content has been used as non-deploy key']);
      expect([await deployRows(), await keyRows(), (await listRaw('app')).text]).to.deep.equal(before);
    });

    it('is for repository admins only (401 anonymous, 403 writers, strangers and read tokens, 404 strangers on private)', async () => {
      const fresh = sshKeyFile('ed25519');
      const before = [await deployRows(), await keyRows()];
      const anon = await w.raw('GET', keysPath('app'));
      expect(anon.status).to.equal(401);
      for (const [method, p] of [['GET', keysPath('app')], ['POST', keysPath('app')], ['GET', `${keysPath('app')}/${roId}`], ['DELETE', `${keysPath('app')}/${roId}`]]) {
        const r = await w.raw(method, p, method === 'POST' ? { title: 'w', key: fresh.pub } : undefined, { token: bob.token });
        expect([r.status, r.body.message], `${method} ${p}`).to.deep.equal([403, 'user should be an owner or a collaborator with admin write of a repository']);
      }
      expect((await w.raw('GET', keysPath('app'), undefined, { token: dave.token })).status).to.equal(403);
      expect((await w.raw('GET', keysPath('private'), undefined, { token: dave.token })).status).to.equal(404);
      expect((await w.raw('POST', keysPath('private'), { title: 'w', key: fresh.pub }, { token: dave.token })).status).to.equal(404);
      const tok = await w.raw('POST', '/users/alice/tokens', { name: 'ro', scopes: ['read:repository'] }, { basic: ['alice', alice.password] });
      // why: a read-scoped token caps the owner's access at read, which is below repository admin.
      expect((await w.raw('GET', keysPath('app'), undefined, { token: tok.body.sha1 })).status).to.equal(403);
      const scoped = await w.raw('POST', keysPath('app'), { title: 'w', key: fresh.pub }, { token: tok.body.sha1 });
      expect(scoped.status).to.equal(403);
      expect(scoped.body.message).to.contain('required=[write:repository]');
      expect([await deployRows(), await keyRows()]).to.deep.equal(before);
      // a repository admin who is not the owner may add one
      const byCarol = await w.raw('POST', keysPath('app'), { title: 'carol', key: fresh.pub }, { token: carol.token });
      expect(byCarol.status).to.equal(201);
      expect((await w.raw('DELETE', `${keysPath('app')}/${byCarol.body.id}`, undefined, { token: carol.token })).status).to.equal(204);
      expect([await deployRows(), await keyRows()]).to.deep.equal(before);
    });

    it('shares one key row between repositories; it goes with the last repository that uses it', async () => {
      const shared = sshKeyFile('ed25519');
      const inApp = await add('app', 'shared', shared, true);
      const inLib = await add('lib', 'shared', shared, false);
      expect(inLib.key_id).to.equal(inApp.key_id);
      expect(inLib.read_only).to.equal(false);
      expect(await count(w.server, 'SELECT COUNT(*) AS n FROM public_key WHERE fingerprint = $1', [shared.fingerprint])).to.equal(1);
      expect((await alice.api.repos.repoDeleteKey('alice', 'app', inApp.id!)).status).to.equal(204);
      expect(await count(w.server, 'SELECT COUNT(*) AS n FROM public_key WHERE id = $1', [inApp.key_id])).to.equal(1);
      expect((await alice.api.repos.repoListKeys('alice', 'lib')).data.map((k) => k.title)).to.deep.equal(['shared']);
      expect((await alice.api.repos.repoDeleteKey('alice', 'lib', inLib.id!)).status).to.equal(204);
      expect(await count(w.server, 'SELECT COUNT(*) AS n FROM public_key WHERE id = $1', [inApp.key_id])).to.equal(0);
      expect(await count(w.server, 'SELECT COUNT(*) AS n FROM deploy_key WHERE key_id = $1', [inApp.key_id])).to.equal(0);
      // the content is free again: now it may even become a user key
      expect((await w.raw('POST', '/user/keys', { title: 'now mine', key: shared.pub }, { token: dave.token })).status).to.equal(201);
    });

    it('DELETE of another repository\'s key or a missing id is 404 and deletes nothing', async () => {
      const before = [await deployRows(), await keyRows()];
      for (const [repo, id] of [['lib', roId], ['app', 999999]] as const) {
        const r = await w.raw('DELETE', `${keysPath(repo)}/${id}`, undefined, { token: alice.token });
        expect(r.status).to.equal(404);
      }
      expect([await deployRows(), await keyRows()]).to.deep.equal(before);
    });

    it('deleting a repository removes its deploy keys and the key rows no other repository uses', async () => {
      const only = sshKeyFile('ed25519');
      const shared = sshKeyFile('ed25519');
      const a = await add('doomed', 'only here', only, true);
      await add('doomed', 'shared', shared, true);
      const b = await add('lib', 'shared too', shared, true);
      expect((await alice.api.repos.repoDelete('alice', 'doomed')).status).to.equal(204);
      expect(await count(w.server, 'SELECT COUNT(*) AS n FROM public_key WHERE id = $1', [a.key_id])).to.equal(0);
      expect(await count(w.server, 'SELECT COUNT(*) AS n FROM public_key WHERE id = $1', [b.key_id])).to.equal(1);
      expect((await alice.api.repos.repoListKeys('alice', 'lib')).data.map((k) => k.title)).to.deep.equal(['shared too']);
      expect(await count(w.server, "SELECT COUNT(*) AS n FROM deploy_key WHERE name IN ('only here', 'shared')")).to.equal(0);
      expect((await alice.api.repos.repoDeleteKey('alice', 'lib', b.id!)).status).to.equal(204);
    });
  });

  describe('over SSH', () => {
    let ro: SshKeyFile;
    let rw: SshKeyFile;
    let mixed: SshKeyFile;
    let vaultKey: SshKeyFile;

    before(async () => {
      [ro, rw, mixed, vaultKey] = [sshKeyFile('ed25519'), sshKeyFile('ecdsa', 256), sshKeyFile('ed25519'), sshKeyFile('ed25519')];
      await add('app', 'reader', ro, true);
      await add('app', 'writer', rw, false);
      await add('app', 'mixed', mixed, true);
      await add('lib', 'mixed', mixed, false);
      const org = await w.raw('POST', '/orgs', { username: 'hidden', visibility: 'private' }, { token: alice.token });
      expect(org.status).to.equal(201);
      expect((await w.raw('POST', '/orgs/hidden/repos', { name: 'vault', private: true, auto_init: true }, { token: alice.token })).status).to.equal(201);
      const k = await w.raw('POST', '/repos/hidden/vault/keys', { title: 'vault ci', key: vaultKey.pub, read_only: true }, { token: alice.token });
      expect(k.status).to.equal(201);
    });

    it('greets a deploy key by its name', async () => {
      const r = await runSsh(port(), ro, []);
      expect(r.code).to.equal(0);
      expect(r.stderr.split('\n')[0]).to.equal('Hi there! You\'ve successfully authenticated with the deploy key named reader, but Forge does not provide shell access.');
    });

    it('a read-only deploy key clones but cannot push; a write key pushes', async () => {
      const c = dir();
      ok(await g(['clone', '-q', sshUrl('alice', 'app'), c], undefined, ro));
      expect(fs.existsSync(path.join(c, 'README.md'))).to.equal(true);
      fs.writeFileSync(path.join(c, 'deploy.txt'), 'x');
      ok(await g(['add', 'deploy.txt'], c, ro));
      ok(await g(['commit', '-q', '-m', 'deploy'], c, ro));
      const before = await serverRefs('alice', 'app');
      const refused = await g(['push', 'origin', 'main', 'main:refs/heads/from-ro'], c, ro);
      expect(refused.code).to.not.equal(0);
      expect(refused.stderr).to.contain('Forge: User permission denied');
      expect(await serverRefs('alice', 'app')).to.equal(before);
      ok(await g(['push', '-q', 'origin', 'main:refs/heads/from-rw'], c, rw));
      expect(await serverRefs('alice', 'app')).to.contain('refs/heads/from-rw');
    });

    it('the mode is per repository: the same key reads app and writes lib', async () => {
      const c = dir();
      ok(await g(['clone', '-q', sshUrl('alice', 'lib'), c], undefined, mixed));
      fs.writeFileSync(path.join(c, 'm.txt'), 'm');
      ok(await g(['add', 'm.txt'], c, mixed));
      ok(await g(['commit', '-q', '-m', 'm'], c, mixed));
      ok(await g(['push', '-q', 'origin', 'main:refs/heads/mixed'], c, mixed));
      const toApp = await g(['push', sshUrl('alice', 'app'), 'main:refs/heads/mixed'], c, mixed);
      expect(toApp.code).to.not.equal(0);
      expect(toApp.stderr).to.contain('User permission denied');
      expect(await serverRefs('alice', 'app')).to.not.contain('refs/heads/mixed');
    });

    it('a deploy key of one repository finds any other exactly like a missing one', async () => {
      for (const repo of ['lib', 'private']) {
        const r = await runSsh(port(), ro, [`git-upload-pack 'alice/${repo}.git'`]);
        expect([r.code, r.stdout, r.stderr]).to.deep.equal([1, '', `Forge: repository does not exist [owner: alice, name: ${repo}]\n`]);
      }
      const missing = await runSsh(port(), ro, ["git-upload-pack 'alice/nothing.git'"]);
      expect(missing.stderr).to.equal('Forge: repository does not exist [owner: alice, name: nothing]\n');
      const clone = await g(['clone', sshUrl('alice', 'lib'), dir()], undefined, ro);
      expect(clone.code).to.not.equal(0);
      const vault = await runSsh(port(), ro, ["git-upload-pack 'hidden/vault.git'"]);
      expect(vault.stderr).to.equal('Forge: repository does not exist [owner: hidden, name: vault]\n');
    });

    it('opens its repository in a private organization', async () => {
      const c = dir();
      ok(await g(['clone', '-q', sshUrl('hidden', 'vault'), c], undefined, vaultKey));
      expect(fs.existsSync(path.join(c, 'README.md'))).to.equal(true);
    });

    it('git-lfs-authenticate: read-only gets download only; tokens name the deploy key, not a user', async () => {
      const payload = (out: string) => JSON.parse(Buffer.from(JSON.parse(out).header.Authorization.replace(/^Bearer /, '').split('.')[0], 'base64url').toString());
      const down = await runSsh(port(), ro, ["git-lfs-authenticate 'alice/app.git' download"]);
      expect(down.code).to.equal(0);
      expect(payload(down.stdout)).to.deep.include({ userId: 0, op: 'download' });
      expect(payload(down.stdout).deployKeyId).to.be.greaterThan(0);
      const up = await runSsh(port(), ro, ["git-lfs-authenticate 'alice/app.git' upload"]);
      expect([up.code, up.stdout, up.stderr]).to.deep.equal([1, '', 'Forge: User permission denied\n']);
      const rwUp = await runSsh(port(), rw, ["git-lfs-authenticate 'alice/app.git' upload"]);
      expect(rwUp.code).to.equal(0);
      expect(payload(rwUp.stdout)).to.deep.include({ userId: 0, op: 'upload' });
    });

    it('LFS over SSH: a write key pushes LFS content, a read-only key fetches it, neither opens another repository', async () => {
      const content = crypto.randomBytes(20_000);
      const a = dir();
      ok(await g(['clone', '-q', sshUrl('alice', 'app'), a], undefined, rw));
      ok(await g(['lfs', 'install', '--local'], a, rw));
      ok(await g(['lfs', 'track', '*.bin'], a, rw));
      fs.writeFileSync(path.join(a, 'deploy.bin'), content);
      ok(await g(['add', '.gitattributes', 'deploy.bin'], a, rw));
      ok(await g(['commit', '-q', '-m', 'lfs by deploy key'], a, rw));
      ok(await g(['push', '-q', 'origin', 'HEAD:refs/heads/lfs'], a, rw));
      expect(fs.readFileSync(storedPath(w.server, oidOf(content))).equals(content)).to.equal(true);
      const b = dir();
      ok(await g(['clone', '-q', '--no-checkout', '--branch', 'lfs', sshUrl('alice', 'app'), b], undefined, ro));
      ok(await g(['lfs', 'install', '--local'], b, ro));
      ok(await g(['checkout', '-q', 'lfs'], b, ro));
      expect(fs.readFileSync(path.join(b, 'deploy.bin')).equals(content)).to.equal(true);
      const client = new LfsClient(w.server);
      const token = JSON.parse((await runSsh(port(), ro, ["git-lfs-authenticate 'alice/app' download"])).stdout).header.Authorization.replace(/^Bearer /, '');
      expect((await client.get('alice/app', oidOf(content), { bearer: token })).status).to.equal(200);
      expect((await client.batch('alice/lib', 'download', [], { bearer: token })).status).to.equal(401);
    });

    it('a deleted deploy key stops working at once, and so do its LFS tokens', async () => {
      const token = JSON.parse((await runSsh(port(), ro, ["git-lfs-authenticate 'alice/app' download"])).stdout).header.Authorization.replace(/^Bearer /, '');
      const client = new LfsClient(w.server);
      expect((await client.batch('alice/app', 'download', [], { bearer: token })).status).to.equal(200);
      const list = await alice.api.repos.repoListKeys('alice', 'app', { fingerprint: ro.fingerprint });
      expect((await alice.api.repos.repoDeleteKey('alice', 'app', list.data[0].id!)).status).to.equal(204);
      expect((await client.batch('alice/app', 'download', [], { bearer: token })).status).to.equal(401);
      const r = await runSsh(port(), ro, []);
      expect(r.code).to.equal(255);
      expect(r.stderr).to.contain('Permission denied (publickey)');
      expect((await g(['clone', sshUrl('alice', 'app'), dir()], undefined, ro)).code).to.not.equal(0);
    });
  });
});
