/**
 * Git smart HTTP with the stock git CLI: clone, fetch and every kind of push over protocol v0 and v2,
 * the permission matrix (anonymous, other user, read-only collaborator, read-only token, archived,
 * code unit off), raw protocol details (content types, service header, gzip), and concurrent pushes.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import http from 'node:http';
import { expect } from 'chai';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { insert, sql } from '../helpers/db';
import { git, gitHome, makeRepo, serverRepoDir, type GitResult } from '../helpers/repo-fixture';

describe('git smart HTTP', () => {
  let w: World;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  let home: string;
  let tmp: string;
  let n = 0;

  const hostPort = () => new URL(w.server.url).host;
  const url = (repo: string, user?: string, secret?: string) =>
    `http://${user ? `${user}:${secret}@` : ''}${hostPort()}/alice/${repo}`;
  const dir = () => path.join(tmp, `d${++n}`);
  const g = (args: string[], cwd?: string) => git(args, { cwd, home });
  const ok = (r: GitResult) => { expect(r.code, r.stderr).to.equal(0); return r; };
  const refs = async (u: string) => {
    const r = ok(await g(['ls-remote', u]));
    return Object.fromEntries(r.stdout.trim().split('\n').filter(Boolean).map((l) => l.split('\t').reverse()));
  };
  const commit = async (cwd: string, file: string, content: string) => {
    fs.writeFileSync(path.join(cwd, file), content);
    ok(await g(['add', file], cwd));
    ok(await g(['commit', '-q', '-m', `${file}: ${content}`], cwd));
    return (ok(await g(['rev-parse', 'HEAD'], cwd))).stdout.trim();
  };
  const pkt = (s: string) => (s.length + 4).toString(16).padStart(4, '0') + s;

  before(async () => {
    w = await startWorld();
    [alice, bob, carol] = [await w.user('alice'), await w.user('bob'), await w.user('carol')];
    home = gitHome();
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'forge-git-http-'));
  });
  after(async () => { await w?.stop(); });

  for (const proto of ['2', '0']) {
    describe(`workflow over protocol v${proto}`, () => {
      const repo = `flow-v${proto}.git`;
      let a: string;
      let b: string;
      let u: string;
      const p = (args: string[], cwd?: string) => g(['-c', `protocol.version=${proto}`, ...args], cwd);

      before(async () => {
        await makeRepo(w.server, alice.id, 'alice', `flow-v${proto}`);
        u = url(repo, 'alice', alice.token);
        a = dir();
        b = dir();
      });

      it('clones the empty repository', async () => {
        const r = ok(await p(['clone', u, a]));
        expect(r.stderr).to.contain('empty repository');
      });

      it('pushes main, then another clone sees it and fetches later commits', async () => {
        const c1 = await commit(a, 'README.md', 'one');
        ok(await p(['push', '-q', 'origin', 'main'], a));
        expect((await refs(u))['refs/heads/main']).to.equal(c1);
        ok(await p(['clone', '-q', u, b]));
        expect(fs.readFileSync(path.join(b, 'README.md'), 'utf8')).to.equal('one');
        const c2 = await commit(a, 'README.md', 'two');
        ok(await p(['push', '-q', 'origin', 'main'], a));
        ok(await p(['fetch', '-q', 'origin'], b));
        expect(ok(await g(['rev-parse', 'origin/main'], b)).stdout.trim()).to.equal(c2);
      });

      it('pushes two branches atomically, a new branch, and deletes a branch', async () => {
        const head = ok(await g(['rev-parse', 'HEAD'], a)).stdout.trim();
        ok(await p(['push', '-q', '--atomic', 'origin', 'main:refs/heads/x1', 'main:refs/heads/x2'], a));
        let r = await refs(u);
        expect([r['refs/heads/x1'], r['refs/heads/x2']]).to.deep.equal([head, head]);
        ok(await g(['checkout', '-q', '-b', 'feature'], a));
        const f = await commit(a, 'f.txt', 'feature');
        ok(await p(['push', '-q', 'origin', 'feature'], a));
        expect((await refs(u))['refs/heads/feature']).to.equal(f);
        ok(await p(['push', '-q', 'origin', ':feature', ':x2'], a));
        r = await refs(u);
        expect(r).to.not.have.property('refs/heads/feature');
        expect(r).to.not.have.property('refs/heads/x2');
        expect(r['refs/heads/x1']).to.equal(head);
        ok(await g(['checkout', '-q', 'main'], a));
      });

      it('pushes tags', async () => {
        ok(await g(['tag', '-a', 'v1', '-m', 'release 1'], a));
        ok(await g(['tag', 'light'], a));
        ok(await p(['push', '-q', '--tags', 'origin'], a));
        const r = await refs(u);
        expect(r['refs/tags/v1']).to.equal(ok(await g(['rev-parse', 'v1'], a)).stdout.trim());
        expect(r['refs/tags/v1^{}']).to.equal(ok(await g(['rev-parse', 'HEAD'], a)).stdout.trim());
        expect(r['refs/tags/light']).to.equal(ok(await g(['rev-parse', 'HEAD'], a)).stdout.trim());
      });

      it('refuses a non-fast-forward push and accepts it forced', async () => {
        const before = (await refs(u))['refs/heads/main'];
        ok(await g(['checkout', '-q', 'main'], a));
        ok(await g(['commit', '-q', '--amend', '-m', 'rewritten'], a));
        const amended = ok(await g(['rev-parse', 'HEAD'], a)).stdout.trim();
        const refused = await p(['push', 'origin', 'main'], a);
        expect(refused.code).to.not.equal(0);
        expect(refused.stderr).to.contain('rejected');
        expect((await refs(u))['refs/heads/main']).to.equal(before);
        ok(await p(['push', '-q', '--force', 'origin', 'main'], a));
        expect((await refs(u))['refs/heads/main']).to.equal(amended);
      });

      it('makes a shallow clone', async () => {
        const s = dir();
        ok(await p(['clone', '-q', '--depth', '1', u, s]));
        expect(ok(await g(['rev-list', '--count', 'HEAD'], s)).stdout.trim()).to.equal('1');
        expect(fs.existsSync(path.join(s, '.git', 'shallow'))).to.equal(true);
      });

      it('clones with the token in http.extraHeader', async () => {
        const s = dir();
        ok(await p(['-c', `http.extraHeader=Authorization: token ${alice.token}`, 'clone', '-q', url(repo), s]));
        expect(fs.readFileSync(path.join(s, 'README.md'), 'utf8')).to.equal('two');
      });
    });
  }

  describe('protocol details', () => {
    before(async () => {
      await makeRepo(w.server, alice.id, 'alice', 'proto');
      const a = dir();
      ok(await g(['clone', '-q', url('proto.git', 'alice', alice.token), a]));
      await commit(a, 'a.txt', 'a');
      ok(await g(['push', '-q', 'origin', 'main'], a));
    });

    it('v0 info/refs has the service header, content type and no-cache', async () => {
      for (const path_ of ['//alice/proto.git/info/refs', '//alice/proto/info/refs']) {
        const r = await w.raw('GET', `${path_}?service=git-upload-pack`);
        expect(r.status).to.equal(200);
        expect(r.headers.get('content-type')).to.equal('application/x-git-upload-pack-advertisement');
        expect(r.headers.get('cache-control')).to.contain('no-cache');
        expect(r.text.startsWith('001e# service=git-upload-pack\n0000')).to.equal(true);
        expect(r.text).to.contain('refs/heads/main');
      }
    });

    it('v2 info/refs is the capability advertisement', async () => {
      const r = await w.raw('GET', '//alice/proto.git/info/refs?service=git-upload-pack', undefined, { headers: { 'Git-Protocol': 'version=2' } });
      expect(r.status).to.equal(200);
      expect(r.text.startsWith('000eversion 2\n')).to.equal(true);
      expect(r.text).to.contain('ls-refs');
    });

    it('inflates a gzip request body', async () => {
      const body = zlib.gzipSync(Buffer.from(`${pkt('command=ls-refs\n')}0001${pkt('peel\n')}0000`));
      const res = await fetch(`${w.server.url}alice/proto.git/git-upload-pack`, {
        method: 'POST', body,
        headers: { 'Content-Type': 'application/x-git-upload-pack-request', 'Content-Encoding': 'gzip', 'Git-Protocol': 'version=2' },
      });
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.equal('application/x-git-upload-pack-result');
      expect(await res.text()).to.contain('refs/heads/main');
    });

    it('ignores a hostile Git-Protocol header', async () => {
      // why: a malformed value is dropped, so git answers protocol v0 (with the service header).
      const r = await w.raw('GET', '//alice/proto.git/info/refs?service=git-upload-pack', undefined, { headers: { 'Git-Protocol': 'version=2;GIT_CONFIG_COUNT=1' } });
      expect(r.status).to.equal(200);
      expect(r.text.startsWith('001e# service=git-upload-pack\n0000')).to.equal(true);
    });

    it('refuses the dumb protocol, unknown services and bad names with 404', async () => {
      for (const p of ['//alice/proto.git/info/refs', '//alice/proto.git/info/refs?service=git-upload-archive', '//alice/pr%20oto/info/refs?service=git-upload-pack', '//alice/nope.git/info/refs?service=git-upload-pack']) {
        const r = await w.raw('GET', p, undefined, { token: alice.token });
        expect(r.status, p).to.equal(404);
      }
    });

    it('kills git when the client disconnects mid-request', async () => {
      const repoDir = serverRepoDir(w.server, 'alice', 'proto');
      const gitPids = () => fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d)).filter((pid) => {
        try { return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(repoDir); } catch { return false; }
      });
      const waitFor = async (cond: () => boolean) => {
        for (let i = 0; i < 200 && !cond(); i++) await new Promise((r) => setTimeout(r, 50));
        return cond();
      };
      const { hostname, port } = new URL(w.server.url);
      const req = http.request({ hostname, port, method: 'POST', path: '/alice/proto.git/git-upload-pack',
        headers: { 'Content-Type': 'application/x-git-upload-pack-request', 'Git-Protocol': 'version=2', 'Transfer-Encoding': 'chunked' } });
      req.on('error', () => undefined);
      // an unfinished request: git waits for the rest on stdin
      req.write(pkt('command=ls-refs\n'));
      expect(await waitFor(() => gitPids().length > 0), 'git started').to.equal(true);
      req.destroy();
      expect(await waitFor(() => gitPids().length === 0), 'git killed').to.equal(true);
    });

    it('refuses a wrong request content type with 415', async () => {
      const r = await w.raw('POST', '//alice/proto.git/git-upload-pack', '0000', { headers: { 'Content-Type': 'text/plain' } });
      expect(r.status).to.equal(415);
    });
  });

  describe('permissions', () => {
    let pubMain: string;
    before(async () => {
      const repoId = await makeRepo(w.server, alice.id, 'alice', 'priv', true);
      await makeRepo(w.server, alice.id, 'alice', 'pub');
      await insert(w.server, 'collaboration', { repo_id: repoId, user_id: carol.id, mode: 1 });
      for (const name of ['priv', 'pub']) {
        const a = dir();
        ok(await g(['clone', '-q', url(`${name}.git`, 'alice', alice.token), a]));
        pubMain = await commit(a, 'secret.txt', 'secret');
        ok(await g(['push', '-q', 'origin', 'main'], a));
      }
    });
    const aliceRefs = (repo: string) => refs(url(repo, 'alice', alice.token));

    it('anonymous can clone a public repository but not push to it', async () => {
      const s = dir();
      ok(await g(['clone', '-q', url('pub.git'), s]));
      await commit(s, 'anon.txt', 'x');
      const before = await aliceRefs('pub.git');
      const r = await g(['push', 'origin', 'main'], s);
      expect(r.code).to.not.equal(0);
      expect(r.stderr).to.match(/could not read Username|Authentication failed/);
      expect(await aliceRefs('pub.git')).to.deep.equal(before);
    });

    it('anonymous gets 401 with Basic realm="Gitea" for a private repository, exactly as for a missing one', async () => {
      const priv = await w.raw('GET', '//alice/priv.git/info/refs?service=git-upload-pack');
      const missing = await w.raw('GET', '//alice/missing.git/info/refs?service=git-upload-pack');
      expect(priv.status).to.equal(401);
      expect(priv.headers.get('www-authenticate')).to.equal('Basic realm="Gitea"');
      expect([missing.status, missing.text, missing.headers.get('www-authenticate')]).to.deep.equal([401, priv.text, 'Basic realm="Gitea"']);
      expect(priv.text).to.not.contain('secret');
      const r = await g(['clone', url('priv.git'), dir()]);
      expect(r.code).to.not.equal(0);
      expect(r.stderr).to.contain('could not read Username');
      const wrong = await g(['clone', url('priv.git', 'alice', 'not-the-password'), dir()]);
      expect(wrong.code).to.not.equal(0);
      expect(wrong.stderr).to.contain('Authentication failed');
    });

    it('another user gets "not found" for a private repository, identical to a missing one', async () => {
      const r = await g(['clone', url('priv.git', 'bob', bob.token), dir()]);
      const m = await g(['clone', url('missing.git', 'bob', bob.token), dir()]);
      expect(r.code).to.not.equal(0);
      expect(r.stderr).to.contain('not found');
      expect(r.stderr.replace(/priv/g, 'X').replace(/d\d+/g, 'D')).to.equal(m.stderr.replace(/missing/g, 'X').replace(/d\d+/g, 'D'));
      const raw1 = await w.raw('POST', '//alice/priv.git/git-receive-pack', '0000', { token: bob.token, headers: { 'Content-Type': 'application/x-git-receive-pack-request' } });
      expect(raw1.status).to.equal(404);
    });

    it('a read-only collaborator can clone but not push', async () => {
      const s = dir();
      ok(await g(['clone', '-q', url('priv.git', 'carol', carol.token), s]));
      expect(fs.readFileSync(path.join(s, 'secret.txt'), 'utf8')).to.equal('secret');
      await commit(s, 'c.txt', 'carol');
      const before = await aliceRefs('priv.git');
      const r = await g(['push', 'origin', 'main', 'main:refs/heads/carol'], s);
      expect(r.code).to.not.equal(0);
      // why: as Gitea, a reader of pull requests gets into receive-pack (for refs/for/*, the AGit flow); pre-receive refuses branches.
      expect(r.stderr).to.contain('User permission denied for writing.');
      expect(await aliceRefs('priv.git')).to.deep.equal(before);
    });

    it('a read:repository token can clone but not push (403)', async () => {
      const tok = await w.raw('POST', '/users/alice/tokens', { name: 'ro', scopes: ['read:repository'] }, { basic: ['alice', alice.password] });
      expect(tok.status).to.equal(201);
      const s = dir();
      ok(await g(['clone', '-q', url('priv.git', 'alice', tok.body.sha1), s]));
      await commit(s, 'ro.txt', 'ro');
      const before = await aliceRefs('priv.git');
      const r = await g(['push', 'origin', 'main'], s);
      expect(r.code).to.not.equal(0);
      expect(r.stderr).to.contain('403');
      const raw = await w.raw('GET', '//alice/priv.git/info/refs?service=git-receive-pack', undefined, { token: tok.body.sha1 });
      expect(raw.status).to.equal(403);
      expect(await aliceRefs('priv.git')).to.deep.equal(before);
    });

    it('an archived repository refuses pushes with a message but still clones', async () => {
      await sql(w.server, 'UPDATE repository SET is_archived = $1 WHERE lower_name = $2', [true, 'pub']);
      try {
        const raw = await w.raw('GET', '//alice/pub.git/info/refs?service=git-receive-pack', undefined, { token: alice.token });
        expect([raw.status, raw.text]).to.deep.equal([403, 'repo is archived']);
        const s = dir();
        ok(await g(['clone', '-q', url('pub.git', 'alice', alice.token), s]));
        await commit(s, 'arch.txt', 'x');
        const r = await g(['push', 'origin', 'main'], s);
        expect(r.code).to.not.equal(0);
        expect((await aliceRefs('pub.git'))['refs/heads/main']).to.equal(pubMain);
      } finally {
        await sql(w.server, 'UPDATE repository SET is_archived = $1 WHERE lower_name = $2', [false, 'pub']);
      }
    });

    it('a repository with the code unit disabled cannot be cloned (404)', async () => {
      const id = await makeRepo(w.server, alice.id, 'alice', 'nocode');
      await sql(w.server, 'DELETE FROM repo_unit WHERE repo_id = $1 AND type = 1', [id]);
      const raw = await w.raw('GET', '//alice/nocode.git/info/refs?service=git-upload-pack', undefined, { token: alice.token });
      expect(raw.status).to.equal(404);
      const r = await g(['clone', url('nocode.git', 'alice', alice.token), dir()]);
      expect(r.code).to.not.equal(0);
      expect(r.stderr).to.contain('not found');
    });
  });

  describe('concurrency', () => {
    let u: string;
    let base: string;
    before(async () => {
      await makeRepo(w.server, alice.id, 'alice', 'busy');
      u = url('busy.git', 'alice', alice.token);
      base = dir();
      ok(await g(['clone', '-q', u, base]));
      await commit(base, 'base.txt', 'base');
      ok(await g(['push', '-q', 'origin', 'main'], base));
    });

    it('20 parallel pushes to distinct branches all succeed', async () => {
      const want: Record<string, string> = {};
      for (let i = 0; i < 20; i++) {
        ok(await g(['checkout', '-q', '-b', `p${i}`, 'main'], base));
        want[`refs/heads/p${i}`] = await commit(base, `p${i}.txt`, String(i));
      }
      const results = await Promise.all(Object.keys(want).map((ref) => g(['push', '-q', u, `${ref}:${ref}`], base)));
      for (const r of results) ok(r);
      const got = await refs(u);
      for (const [ref, sha] of Object.entries(want)) expect(got[ref], ref).to.equal(sha);
      ok(await git(['--git-dir', serverRepoDir(w.server, 'alice', 'busy'), 'fsck', '--strict'], { home }));
    });

    it('two racing pushes to one branch: exactly one wins and the repository stays consistent', async () => {
      const c1 = dir();
      const c2 = dir();
      ok(await g(['clone', '-q', u, c1]));
      ok(await g(['clone', '-q', u, c2]));
      const s1 = await commit(c1, 'race.txt', 'one');
      const s2 = await commit(c2, 'race.txt', 'two');
      const [r1, r2] = await Promise.all([g(['push', 'origin', 'main'], c1), g(['push', 'origin', 'main'], c2)]);
      expect([r1.code, r2.code].filter((c) => c === 0)).to.have.length(1);
      expect((await refs(u))['refs/heads/main']).to.equal(r1.code === 0 ? s1 : s2);
      ok(await git(['--git-dir', serverRepoDir(w.server, 'alice', 'busy'), 'fsck', '--strict'], { home }));
    });
  });
});
