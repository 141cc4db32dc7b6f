/**
 * Git over SSH with the stock OpenSSH client and git: clone, fetch and every kind of push over
 * protocol v0 and v2, archives, the greeting, key checks (prohibited users, removed or unknown
 * keys, last_used_at), the permission matrix (private, read-only collaborator, archived), and
 * git-lfs-authenticate with its tokens used by the LFS HTTP API and the git-lfs client. Deploy keys over SSH and the hostile-input matrix are in ssh-deploy.test.ts
 * and ssh-hostile.test.ts.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { expect } from 'chai';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { git, gitHome, serverRepoDir, type GitResult } from '../helpers/repo-fixture';
import { gitSshCommand, runSsh, sshKeyFile, type SshKeyFile } from '../helpers/ssh';
import { LfsClient, oidOf, storedPath } from '../helpers/lfs';

describe('git over SSH', () => {
  let w: World;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  let aliceKey: SshKeyFile;
  let bobKey: SshKeyFile;
  let carolKey: SshKeyFile;
  let aliceKeyId: number;
  let home: string;
  let tmp: string;
  let n = 0;

  const port = () => w.server.sshPort;
  const sshUrl = (owner: string, repo: string) => `ssh://git@127.0.0.1:${port()}/${owner}/${repo}.git`;
  const dir = () => path.join(tmp, `d${++n}`);
  const g = (args: string[], cwd?: string, key: SshKeyFile = aliceKey, env: Record<string, string> = {}) =>
    git(args, { cwd, home, env: { GIT_SSH_COMMAND: gitSshCommand(port(), key), ...env } });
  const ok = (r: GitResult) => { expect(r.code, r.stderr).to.equal(0); return r; };
  /** Refs as the server has them on disk (no permission involved). */
  const serverRefs = async (owner: string, repo: string) => {
    const r = ok(await git(['--git-dir', serverRepoDir(w.server, owner, repo), 'for-each-ref', '--format=%(refname) %(objectname)'], { home }));
    return Object.fromEntries(r.stdout.trim().split('\n').filter(Boolean).map((l) => l.split(' ')));
  };
  const commit = async (cwd: string, file: string, content: string) => {
    fs.writeFileSync(path.join(cwd, file), content);
    ok(await g(['add', file], cwd));
    ok(await g(['commit', '-q', '-m', `${file}: ${content}`], cwd));
    return ok(await g(['rev-parse', 'HEAD'], cwd)).stdout.trim();
  };
  const addKey = async (u: TestUser, key: SshKeyFile, title: string) => {
    const r = await u.api.user.userCurrentPostKey({ title, key: key.pub });
    expect(r.status).to.equal(201);
    return r.data.id!;
  };
  const newRepo = async (u: TestUser, name: string, opts: { private?: boolean; auto_init?: boolean } = {}) => {
    const r = await u.api.user.createCurrentUserRepo({ name, ...opts });
    expect(r.status).to.equal(201);
    return r.data.id!;
  };

  before(async () => {
    w = await startWorld();
    [alice, bob, carol] = [await w.user('alice'), await w.user('bob'), await w.user('carol')];
    [aliceKey, bobKey, carolKey] = [sshKeyFile('ed25519'), sshKeyFile('rsa', 3072), sshKeyFile('ecdsa', 256)];
    aliceKeyId = await addKey(alice, aliceKey, 'laptop');
    await addKey(bob, bobKey, 'bob-rsa');
    await addKey(carol, carolKey, 'carol-ecdsa');
    home = gitHome();
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'forge-ssh-'));
  });
  after(async () => { await w?.stop(); });

  for (const proto of ['2', '0']) {
    describe(`workflow over protocol v${proto}`, () => {
      const repo = `flow-v${proto}`;
      let a: string;
      let b: string;
      const p = (args: string[], cwd?: string) => g(['-c', `protocol.version=${proto}`, ...args], cwd);

      before(async () => {
        await newRepo(alice, repo);
        a = dir();
        b = dir();
      });

      it('clones the empty repository', async () => {
        const r = ok(await p(['clone', sshUrl('alice', repo), a]));
        expect(r.stderr).to.contain('empty repository');
      });

      it('pushes main, then another clone sees it and fetches later commits', async () => {
        const c1 = await commit(a, 'README.md', 'one');
        ok(await p(['push', '-q', 'origin', 'main'], a));
        expect((await serverRefs('alice', repo))['refs/heads/main']).to.equal(c1);
        ok(await p(['clone', '-q', sshUrl('alice', repo), b]));
        expect(fs.readFileSync(path.join(b, 'README.md'), 'utf8')).to.equal('one');
        const c2 = await commit(a, 'README.md', 'two');
        ok(await p(['push', '-q', 'origin', 'main'], a));
        ok(await p(['fetch', '-q', 'origin'], b));
        expect(ok(await g(['rev-parse', 'origin/main'], b)).stdout.trim()).to.equal(c2);
      });

      it('pushes two branches atomically, a new branch, and deletes a branch', async () => {
        const head = ok(await g(['rev-parse', 'HEAD'], a)).stdout.trim();
        ok(await p(['push', '-q', '--atomic', 'origin', 'main:refs/heads/x1', 'main:refs/heads/x2'], a));
        let r = await serverRefs('alice', repo);
        expect([r['refs/heads/x1'], r['refs/heads/x2']]).to.deep.equal([head, head]);
        ok(await g(['checkout', '-q', '-b', 'feature'], a));
        const f = await commit(a, 'f.txt', 'feature');
        ok(await p(['push', '-q', 'origin', 'feature'], a));
        expect((await serverRefs('alice', repo))['refs/heads/feature']).to.equal(f);
        ok(await p(['push', '-q', 'origin', ':feature', ':x2'], a));
        r = await serverRefs('alice', repo);
        expect(r).to.not.have.property('refs/heads/feature');
        expect(r).to.not.have.property('refs/heads/x2');
        expect(r['refs/heads/x1']).to.equal(head);
        ok(await g(['checkout', '-q', 'main'], a));
      });

      it('an atomic push with one rejected ref changes nothing', async () => {
        const before = await serverRefs('alice', repo);
        ok(await g(['checkout', '-q', '-b', 'side', 'main~1'], a));
        await commit(a, 'side.txt', 'side');
        // side:main is a non-fast-forward; the new branch it is pushed with must not appear either.
        const r = await p(['push', '--atomic', 'origin', 'side:refs/heads/main', 'side:refs/heads/brand-new'], a);
        expect(r.code).to.not.equal(0);
        expect(await serverRefs('alice', repo)).to.deep.equal(before);
        ok(await g(['checkout', '-q', 'main'], a));
      });

      it('pushes tags', async () => {
        ok(await g(['tag', '-a', 'v1', '-m', 'release 1'], a));
        ok(await g(['tag', 'light'], a));
        ok(await p(['push', '-q', '--tags', 'origin'], a));
        const r = await serverRefs('alice', repo);
        expect(r['refs/tags/v1']).to.equal(ok(await g(['rev-parse', 'v1'], a)).stdout.trim());
        expect(r['refs/tags/light']).to.equal(ok(await g(['rev-parse', 'HEAD'], a)).stdout.trim());
        ok(await p(['push', '-q', 'origin', ':refs/tags/light'], a));
        expect(await serverRefs('alice', repo)).to.not.have.property('refs/tags/light');
      });

      it('refuses a non-fast-forward push and accepts it forced', async () => {
        const before = (await serverRefs('alice', repo))['refs/heads/main'];
        ok(await g(['commit', '-q', '--amend', '-m', 'rewritten'], a));
        const amended = ok(await g(['rev-parse', 'HEAD'], a)).stdout.trim();
        const refused = await p(['push', 'origin', 'main'], a);
        expect(refused.code).to.not.equal(0);
        expect(refused.stderr).to.contain('rejected');
        expect((await serverRefs('alice', repo))['refs/heads/main']).to.equal(before);
        ok(await p(['push', '-q', '--force', 'origin', 'main'], a));
        expect((await serverRefs('alice', repo))['refs/heads/main']).to.equal(amended);
      });

      it('makes a shallow clone', async () => {
        const s = dir();
        ok(await p(['clone', '-q', '--depth', '1', sshUrl('alice', repo), s]));
        expect(ok(await g(['rev-list', '--count', 'HEAD'], s)).stdout.trim()).to.equal('1');
        expect(fs.existsSync(path.join(s, '.git', 'shallow'))).to.equal(true);
      });

      it('serves git archive --remote (git-upload-archive)', async () => {
        const tar = path.join(tmp, `archive-v${proto}.tar`);
        ok(await p(['archive', '--remote', sshUrl('alice', repo), '--output', tar, 'main'], a));
        expect(execFileSync('tar', ['-tf', tar]).toString().split('\n')).to.include('README.md');
      });
    });
  }

  describe('protocol negotiation', () => {
    it('speaks protocol v2 when git asks for it (GIT_PROTOCOL over SendEnv), v0 otherwise', async () => {
      const v2 = ok(await g(['-c', 'protocol.version=2', 'ls-remote', sshUrl('alice', 'flow-v2')], undefined, aliceKey, { GIT_TRACE_PACKET: '1' }));
      expect(v2.stderr).to.match(/packet: +\S+< version 2\n/);
      expect(v2.stderr).to.contain('> command=ls-refs');
      expect(v2.stdout).to.contain('refs/heads/main');
      const v0 = ok(await g(['-c', 'protocol.version=0', 'ls-remote', sshUrl('alice', 'flow-v2')], undefined, aliceKey, { GIT_TRACE_PACKET: '1' }));
      expect(v0.stderr).to.not.match(/< version 2/);
      expect(v0.stdout).to.contain('refs/heads/main');
    });
  });

  describe('greeting and keys', () => {
    it('greets a user key by user and key name, on stderr, and exits 0 like Gitea', async () => {
      for (const remote of [[], ['']]) {
        const r = await runSsh(port(), aliceKey, remote);
        expect(r.code).to.equal(0);
        expect(r.stdout).to.equal('');
        expect(r.stderr).to.equal(
          'Hi there, alice! You\'ve successfully authenticated with the key named laptop, but Forge does not provide shell access.\n'
          + 'If this is unexpected, please log in with password and setup Forge under another user.\n',
        );
      }
      const rsa = await runSsh(port(), bobKey, []);
      expect([rsa.code, rsa.stderr.split('\n')[0]]).to.deep.equal([0, 'Hi there, bob! You\'ve successfully authenticated with the key named bob-rsa, but Forge does not provide shell access.']);
    });

    it('records last_used_at when the key is used (GET /user/keys/{id})', async () => {
      const before = Date.now();
      const fresh = sshKeyFile('ed25519');
      const id = await addKey(alice, fresh, 'fresh');
      // why: gitea-js (1.23 types) does not know last_used_at yet, so read it raw.
      const lastUsed = async (keyId: number) => (await w.raw('GET', `/user/keys/${keyId}`, undefined, { token: alice.token })).body.last_used_at as string | null;
      expect(await lastUsed(id)).to.equal(null);
      expect((await runSsh(port(), fresh, [])).code).to.equal(0);
      const used = await lastUsed(id);
      expect(used).to.be.a('string');
      expect(Date.parse(used!)).to.be.at.least(Math.floor(before / 1000) * 1000);
      expect(await lastUsed(aliceKeyId)).to.be.a('string');
    });

    it('refuses unknown keys, other login names, removed keys and prohibited or inactive users', async () => {
      const denied = (r: { code: number; stderr: string }) => {
        expect(r.code).to.equal(255);
        expect(r.stderr).to.contain('Permission denied (publickey)');
      };
      denied(await runSsh(port(), sshKeyFile('ed25519'), []));
      denied(await runSsh(port(), aliceKey, [], { user: 'alice' }));
      denied(await runSsh(port(), aliceKey, [], { user: 'root' }));

      const gone = sshKeyFile('ed25519');
      const id = await addKey(alice, gone, 'gone');
      expect((await runSsh(port(), gone, [])).code).to.equal(0);
      expect((await alice.api.user.userCurrentDeleteKey(id)).status).to.equal(204);
      denied(await runSsh(port(), gone, []));

      for (const flag of ['prohibit_login', 'active']) {
        const value = flag === 'active' ? false : true;
        const set = await w.raw('PATCH', '/admin/users/bob', { login_name: 'bob', [flag]: value }, { token: w.admin.token });
        expect(set.status).to.equal(200);
        denied(await runSsh(port(), bobKey, []));
        const clone = await g(['clone', sshUrl('alice', 'flow-v2'), dir()], undefined, bobKey);
        expect(clone.code).to.not.equal(0);
        const reset = await w.raw('PATCH', '/admin/users/bob', { login_name: 'bob', [flag]: !value }, { token: w.admin.token });
        expect(reset.status).to.equal(200);
        expect((await runSsh(port(), bobKey, [])).code).to.equal(0);
      }
    });
  });

  describe('permissions', () => {
    let privMain: string;
    let archMain: string;
    before(async () => {
      await newRepo(alice, 'priv', { private: true });
      await newRepo(alice, 'arch');
      const collab = await w.raw('PUT', '/repos/alice/priv/collaborators/carol', { permission: 'read' }, { token: alice.token });
      expect(collab.status).to.equal(204);
      for (const name of ['priv', 'arch']) {
        const a = dir();
        ok(await g(['clone', '-q', sshUrl('alice', name), a]));
        const sha = await commit(a, 'secret.txt', 'secret');
        ok(await g(['push', '-q', 'origin', 'main'], a));
        if (name === 'priv') privMain = sha;
        else archMain = sha;
      }
    });

    it('a private repository reads exactly like a missing one to another user', async () => {
      const priv = await g(['clone', sshUrl('alice', 'priv'), dir()], undefined, bobKey);
      const missing = await g(['clone', sshUrl('alice', 'missing'), dir()], undefined, bobKey);
      expect(priv.code).to.not.equal(0);
      expect(priv.stderr).to.contain('Forge: repository does not exist [owner: alice, name: priv]');
      const norm = (s: string, name: string) => s.split(name).join('X').replace(/d\d+/g, 'D');
      expect(norm(priv.stderr, 'priv')).to.equal(norm(missing.stderr, 'missing'));
      for (const verb of ['git-upload-pack', 'git-receive-pack', 'git-upload-archive']) {
        const r1 = await runSsh(port(), bobKey, [`${verb} 'alice/priv.git'`]);
        const r2 = await runSsh(port(), bobKey, [`${verb} 'alice/missing.git'`]);
        expect([r1.code, r1.stdout, r1.stderr]).to.deep.equal([1, '', 'Forge: repository does not exist [owner: alice, name: priv]\n']);
        expect([r2.code, r2.stderr.replace('missing', 'priv')]).to.deep.equal([1, r1.stderr]);
      }
      expect((await serverRefs('alice', 'priv'))['refs/heads/main']).to.equal(privMain);
    });

    it('a read-only collaborator can clone but not push', async () => {
      const s = dir();
      ok(await g(['clone', '-q', sshUrl('alice', 'priv'), s], undefined, carolKey));
      expect(fs.readFileSync(path.join(s, 'secret.txt'), 'utf8')).to.equal('secret');
      await commit(s, 'c.txt', 'carol');
      const before = await serverRefs('alice', 'priv');
      const r = await g(['push', 'origin', 'main', 'main:refs/heads/carol'], s, carolKey);
      expect(r.code).to.not.equal(0);
      // why: a reader of pull requests gets in (they may push refs/for/* for the AGit flow); pre-receive refuses the branches.
      expect(r.stderr).to.contain('User permission denied for writing.');
      expect(await serverRefs('alice', 'priv')).to.deep.equal(before);
    });

    it('an archived repository refuses pushes with a message but still clones', async () => {
      expect((await alice.api.repos.repoEdit('alice', 'arch', { archived: true })).status).to.equal(200);
      const s = dir();
      ok(await g(['clone', '-q', sshUrl('alice', 'arch'), s]));
      await commit(s, 'late.txt', 'late');
      const r = await g(['push', 'origin', 'main'], s);
      expect(r.code).to.not.equal(0);
      expect(r.stderr).to.contain('Forge: repo is archived');
      expect((await serverRefs('alice', 'arch'))['refs/heads/main']).to.equal(archMain);
    });

    it('git is killed when the client disconnects', async () => {
      const repoDir = serverRepoDir(w.server, 'alice', 'priv');
      const gitPids = () => fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d)).filter((pid) => {
        try { return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(repoDir); } catch { return false; }
      });
      const waitFor = async (cond: () => boolean) => {
        for (let i = 0; i < 200 && !cond(); i++) await new Promise((r) => setTimeout(r, 50));
        return cond();
      };
      const { spawn } = await import('node:child_process');
      const { sshOptions } = await import('../helpers/ssh');
      // upload-pack advertises its refs, then waits for the client's wants on stdin, which never come.
      const client = spawn('ssh', [...sshOptions(port(), aliceKey), 'git@127.0.0.1', "git-upload-pack 'alice/priv.git'"], { stdio: ['pipe', 'pipe', 'pipe'] });
      client.stdout.resume();
      client.stderr.resume();
      expect(await waitFor(() => gitPids().length > 0), 'git started').to.equal(true);
      client.kill('SIGKILL');
      expect(await waitFor(() => gitPids().length === 0), 'git killed').to.equal(true);
    });
  });

  describe('git-lfs-authenticate', () => {
    const lfs = (key: SshKeyFile, repo: string, op: string) => runSsh(port(), key, [`git-lfs-authenticate '${repo}' ${op}`]);
    const payload = (auth: string) => JSON.parse(Buffer.from(auth.replace(/^Bearer /, '').split('.')[0], 'base64url').toString());

    it('answers Gitea\'s JSON (header, href, expires_at) with a token for the repository and operation', async () => {
      const privId = (await alice.api.repos.repoGet('alice', 'priv')).data.id;
      for (const op of ['download', 'upload']) {
        const r = await lfs(aliceKey, '/alice/priv.git', op);
        expect([r.code, r.stderr]).to.deep.equal([0, '']);
        expect(r.stdout.endsWith('}\n')).to.equal(true);
        const body = JSON.parse(r.stdout);
        expect(Object.keys(body)).to.deep.equal(['header', 'href', 'expires_at']);
        expect(Object.keys(body.header)).to.deep.equal(['Authorization']);
        expect(body.header.Authorization).to.match(/^Bearer [A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
        expect(body.href).to.equal(`${w.server.url}alice/priv.git/info/lfs`);
        expect(Date.parse(body.expires_at)).to.be.greaterThan(Date.now());
        expect(body.expires_at).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
        expect(payload(body.header.Authorization)).to.deep.include({ repoId: privId, userId: alice.id, deployKeyId: 0, op });
      }
    });

    it('a read-only caller gets a download token but no upload token; strangers see no repository', async () => {
      const down = await lfs(carolKey, 'alice/priv', 'download');
      expect(down.code).to.equal(0);
      expect(payload(JSON.parse(down.stdout).header.Authorization)).to.deep.include({ userId: carol.id, op: 'download' });
      const up = await lfs(carolKey, 'alice/priv', 'upload');
      expect([up.code, up.stdout, up.stderr]).to.deep.equal([1, '', 'Forge: User permission denied\n']);
      const stranger = await lfs(bobKey, 'alice/priv', 'download');
      expect([stranger.code, stranger.stdout, stranger.stderr]).to.deep.equal([1, '', 'Forge: repository does not exist [owner: alice, name: priv]\n']);
      const archived = await lfs(aliceKey, 'alice/arch', 'upload');
      expect([archived.code, archived.stderr]).to.deep.equal([1, 'Forge: repo is archived\n']);
    });

    it('its tokens open the LFS HTTP API for that repository and operation only', async () => {
      const data = crypto.randomBytes(2048);
      const obj = [{ oid: oidOf(data), size: data.length }];
      const bearer = async (key: SshKeyFile, repo: string, op: string) => {
        const r = await lfs(key, repo, op);
        expect(r.code, r.stderr).to.equal(0);
        return { bearer: JSON.parse(r.stdout).header.Authorization.replace(/^Bearer /, '') as string };
      };
      const client = new LfsClient(w.server);
      const up = await bearer(aliceKey, 'alice/priv', 'upload');
      expect((await client.batch('alice/priv', 'upload', obj, up)).status).to.equal(200);
      expect((await client.put('alice/priv', obj[0].oid, data.length, data, up)).status).to.equal(200);
      const down = await bearer(carolKey, 'alice/priv', 'download');
      expect((await client.get('alice/priv', obj[0].oid, down)).bytes.equals(data)).to.equal(true);
      const other = crypto.randomBytes(100);
      expect((await client.batch('alice/priv', 'upload', [{ oid: oidOf(other), size: 100 }], down)).status).to.equal(401);
      expect((await client.batch('alice/arch', 'download', obj, up)).status).to.equal(401);
      expect(fs.existsSync(storedPath(w.server, oidOf(other)))).to.equal(false);
    });

    it('the git-lfs client pushes and fetches LFS content over an SSH remote', async () => {
      await newRepo(alice, 'lfs-ssh');
      const content = crypto.randomBytes(50_000);
      const a = dir();
      ok(await g(['init', '-q', a]));
      ok(await g(['lfs', 'install', '--local'], a));
      ok(await g(['lfs', 'track', '*.bin'], a));
      fs.writeFileSync(path.join(a, 'big.bin'), content);
      ok(await g(['add', '.gitattributes', 'big.bin'], a));
      ok(await g(['commit', '-q', '-m', 'lfs over ssh'], a));
      ok(await g(['remote', 'add', 'origin', sshUrl('alice', 'lfs-ssh')], a));
      ok(await g(['push', '-q', 'origin', 'main'], a));
      expect(fs.readFileSync(storedPath(w.server, oidOf(content))).equals(content)).to.equal(true);
      const b = dir();
      ok(await g(['clone', '-q', '--no-checkout', sshUrl('alice', 'lfs-ssh'), b]));
      ok(await g(['lfs', 'install', '--local'], b));
      ok(await g(['checkout', '-q', 'main'], b));
      expect(fs.readFileSync(path.join(b, 'big.bin')).equals(content)).to.equal(true);
    });

    it('refuses unknown or missing operations', async () => {
      for (const op of ['foo', 'UPLOAD', '', 'download extra']) {
        const r = await lfs(aliceKey, 'alice/priv', op);
        expect(r.code, op).to.equal(1);
        expect(r.stdout).to.equal('');
        expect(r.stderr).to.match(/^Forge: (Unknown LFS operation|Too few arguments|Too many arguments)/);
      }
    });
  });

  describe('host keys', () => {
    const scan = () => execFileSync('ssh-keyscan', ['-p', String(port()), '-t', 'ed25519,rsa', '127.0.0.1'], { stdio: ['ignore', 'pipe', 'ignore'] })
      .toString().split('\n').filter(Boolean).map((l) => l.split(' ').slice(1).join(' ')).sort();

    it('serves the ed25519 and rsa keys kept (0600) in the data dir, the same after a restart', async () => {
      const files = ['forge.ed25519', 'forge.rsa'].map((f) => path.join(w.server.dataDir, 'ssh', f));
      for (const f of files) expect(fs.statSync(f).mode & 0o777).to.equal(0o600);
      const want = files.map((f) => fs.readFileSync(`${f}.pub`, 'utf8').split(' ').slice(0, 2).join(' ')).sort();
      const before = scan();
      expect(before).to.deep.equal(want);
      expect(await w.server.stop()).to.equal(0);
      w.server.output = '';
      await w.server.start();
      expect(scan()).to.deep.equal(before);
      ok(await g(['ls-remote', sshUrl('alice', 'flow-v2')]));
    });
  });
});
