/**
 * Commit history over the API with histories made by the real git CLI and pushed over HTTP:
 * listing, paging headers, filters, the stat/files/verification switches, single commits,
 * refusals, and a signed-commit matrix (GPG and SSH signatures made by git with gpg and ssh-keygen).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { git, gitHome, serverRepoDir, type GitResult } from '../helpers/repo-fixture';
import { GpgHome, sshKeygen, tempDir } from '../helpers/keys';

describe('commits', () => {
  let w: World;
  let alice: TestUser;
  let bob: TestUser;
  let home: string;
  let tmp: string;
  let n = 0;
  const trusted = sshKeygen('ed25519', undefined, 'trusted');
  const instance = sshKeygen('ed25519', undefined, 'instance');
  const instanceKey = path.join(tempDir(), 'signing');
  fs.writeFileSync(instanceKey, instance.priv, { mode: 0o600 });
  fs.writeFileSync(`${instanceKey}.pub`, instance.pub);

  const ok = (r: GitResult) => { expect(r.code, r.stderr).to.equal(0); return r; };
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const url = (repo: string) => `http://alice:${alice.token}@${new URL(w.server.url).host}/alice/${repo}.git`;
  const g = (args: string[], cwd?: string, env: Record<string, string> = {}) => git(args, { cwd, home, env });
  const as = (who: TestUser | { name: string; email: string }) => ['-c', `user.name=${who.name}`, '-c', `user.email=${who.email}`];
  const commit = async (cwd: string, file: string, content: string | Buffer | null, opts: { who?: string[]; extra?: string[]; env?: Record<string, string> } = {}) => {
    if (content === null) ok(await g(['rm', '-q', file], cwd));
    else {
      fs.mkdirSync(path.dirname(path.join(cwd, file)), { recursive: true });
      fs.writeFileSync(path.join(cwd, file), content);
      ok(await g(['add', file], cwd));
    }
    ok(await g([...(opts.who ?? as(alice)), 'commit', '-q', ...(opts.extra ?? []), '-m', `change ${file}`], cwd, opts.env));
    return ok(await g(['rev-parse', 'HEAD'], cwd)).stdout.trim();
  };
  const waitNotEmpty = async (repo: string) => {
    for (let i = 0; i < 400; i++) {
      if ((await w.raw('GET', `/repos/alice/${repo}`, undefined, { token: alice.token })).body.empty === false) return;
      await sleep(50);
    }
    throw new Error('push not processed');
  };
  const newRepo = async (name: string, extra: Record<string, unknown> = {}) => {
    const r = await w.raw('POST', '/user/repos', { name, ...extra }, { token: alice.token });
    expect(r.status, r.text).to.equal(201);
    const d = path.join(tmp, `w${++n}`);
    ok(await g(['init', '-q', '-b', 'main', d]));
    ok(await g(['remote', 'add', 'origin', url(name)], d));
    return d;
  };
  const push = async (d: string, repo: string, ...refs: string[]) => {
    ok(await g(['push', '-q', 'origin', ...(refs.length ? refs : ['main'])], d));
    await waitNotEmpty(repo);
  };
  const list = (repo: string, query = '', token = alice.token) => w.raw('GET', `/repos/alice/${repo}/commits${query}`, undefined, { token });

  before(async () => {
    w = await startWorld({ env: { FORGE__REPOSITORY_0X2E_SIGNING__TRUSTED_SSH_KEYS: trusted.pub.trim(), FORGE__REPOSITORY_0X2E_SIGNING__SIGNING_NAME: 'forge-signer', FORGE__REPOSITORY_0X2E_SIGNING__SIGNING_EMAIL: 'signer@forge.test',
      FORGE__REPOSITORY_0X2E_SIGNING__SIGNING_FORMAT: 'ssh', FORGE__REPOSITORY_0X2E_SIGNING__SIGNING_KEY: instanceKey } });
    alice = await w.user('alice');
    bob = await w.user('bob');
    home = gitHome();
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'forge-commits-'));
  });
  after(async () => { await w?.stop(); });

  describe('listing', () => {
    let d: string;
    let c1: string;
    let c2: string;
    let c3: string;
    let c4: string;

    before(async () => {
      d = await newRepo('hist');
      c1 = await commit(d, 'a.txt', 'one\ntwo\n');
      c2 = await commit(d, 'dir/b.txt', 'b\n', { who: as(bob) });
      fs.writeFileSync(path.join(d, 'a.txt'), 'one\nTWO\nthree\n');
      c3 = await commit(d, 'bin.dat', Buffer.from([0, 1, 2, 3]), { extra: ['-a'] });
      c4 = await commit(d, 'dir/b.txt', null);
      ok(await g(['branch', 'side', c2], d));
      await push(d, 'hist', 'main', 'side');
    });

    it('lists commits newest first in Gitea\'s shape, with files, stats and verification by default', async () => {
      const r = await list('hist');
      expect(r.status).to.equal(200);
      expect(r.body.map((c: { sha: string }) => c.sha)).to.deep.equal([c4, c3, c2, c1]);
      const [top, , second, first] = r.body;
      const api = `${w.server.url}api/v1/repos/alice/hist`;
      expect(top.url).to.equal(`${api}/git/commits/${c4}`);
      expect(top.html_url).to.equal(`${w.server.url}alice/hist/commit/${c4}`);
      expect(top.commit.message).to.equal('change dir/b.txt\n');
      expect(top.commit.author).to.include({ name: 'alice', email: alice.email });
      expect(top.commit.author.date).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(Z|[+-]\d\d:\d\d)$/);
      expect(top.author.login).to.equal('alice');
      expect(top.committer.login).to.equal('alice');
      expect(top.parents).to.deep.equal([{ url: `${api}/git/commits/${c3}`, sha: c3, created: '0001-01-01T00:00:00Z' }]);
      expect(top.files).to.deep.equal([{ filename: 'dir/b.txt', status: 'removed' }]);
      expect(top.stats).to.deep.equal({ total: 1, additions: 0, deletions: 1 });
      expect(top.commit.verification).to.deep.equal({ verified: false, reason: 'gpg.error.not_signed_commit', signature: '', signer: null, payload: '' });
      expect(second.author.login).to.equal('bob');
      const third = r.body[1];
      expect(third.files).to.deep.equal([{ filename: 'bin.dat', status: 'added' }, { filename: 'a.txt', status: 'modified' }]);
      expect(third.stats).to.deep.equal({ total: 3, additions: 2, deletions: 1 });
      expect(first.parents).to.deep.equal([]);
      expect(first.files).to.deep.equal([{ filename: 'a.txt', status: 'added' }]);
    });

    it('pages with X-Total-Count, X-PageCount, X-HasMore and Link, and a deep page is right', async () => {
      const r = await list('hist', '?limit=3&page=1');
      expect(r.body).to.have.length(3);
      expect(r.headers.get('x-total-count')).to.equal('4');
      expect(r.headers.get('x-pagecount')).to.equal('2');
      expect(r.headers.get('x-hasmore')).to.equal('true');
      expect(r.headers.get('link')).to.contain('rel="next"');
      const p2 = await list('hist', '?limit=3&page=2');
      expect(p2.body.map((c: { sha: string }) => c.sha)).to.deep.equal([c1]);
      expect(p2.headers.get('x-hasmore')).to.equal('false');
      const beyond = await list('hist', '?limit=3&page=9');
      expect(beyond.body).to.deep.equal([]);
    });

    it('the switches leave out stats, files and verification', async () => {
      const r = await list('hist', '?stat=false&files=false&verification=false&limit=1');
      expect(r.body[0]).to.not.have.property('stats');
      expect(r.body[0]).to.not.have.property('files');
      expect(r.body[0].commit).to.not.have.property('verification');
      expect(r.body[0].sha).to.equal(c4);
    });

    it('filters by sha, not, path, since and until, and counts what it filters', async () => {
      const side = await list('hist', '?sha=side');
      expect(side.body.map((c: { sha: string }) => c.sha)).to.deep.equal([c2, c1]);
      const notSide = await list('hist', '?not=side');
      expect(notSide.body.map((c: { sha: string }) => c.sha)).to.deep.equal([c4, c3]);
      expect(notSide.headers.get('x-total-count')).to.equal('2');
      const byPath = await list('hist', '?path=a.txt');
      expect(byPath.body.map((c: { sha: string }) => c.sha)).to.deep.equal([c3, c1]);
      expect(byPath.headers.get('x-total-count')).to.equal('2');
      const future = new Date(Date.now() + 3600_000).toISOString();
      expect((await list('hist', `?since=${future}`)).body).to.deep.equal([]);
      expect((await list('hist', `?until=${future}`)).body).to.have.length(4);
    });

    it('works through gitea-js', async () => {
      const r = await alice.api.repos.repoGetAllCommits('alice', 'hist', { limit: 2, stat: false });
      expect(r.data.map((c) => c.sha)).to.deep.equal([c4, c3]);
      const one = await alice.api.repos.repoGetSingleCommit('alice', 'hist', c2);
      expect(one.data.sha).to.equal(c2);
      expect(one.data.files).to.deep.equal([{ filename: 'dir/b.txt', status: 'added' }]);
    });

    it('gets one commit by id, short id or branch', async () => {
      for (const ref of [c3, c3.slice(0, 10), 'main']) {
        const r = await w.raw('GET', `/repos/alice/hist/git/commits/${ref}`, undefined, { token: alice.token });
        expect(r.status).to.equal(200);
        expect(r.body.sha).to.equal(ref === 'main' ? c4 : c3);
      }
    });

    it('refuses unknown and hostile revisions and paths', async () => {
      for (const q of ['?sha=nope', '?not=nope', `?path=${encodeURIComponent('no/such/file')}`]) {
        const r = await list('hist', q);
        expect(r.status, q).to.equal(404);
        expect(r.body).to.have.property('message');
      }
      for (const q of ['?sha=-x', '?sha=--output=/tmp/x', '?path=-x']) {
        const r = await list('hist', q);
        expect(r.status, q).to.equal(400);
      }
      const bad = await w.raw('GET', '/repos/alice/hist/git/commits/--all', undefined, { token: alice.token });
      expect(bad.status).to.equal(422);
      expect(bad.body.message).to.equal('no valid ref or sha: --all');
      const missing = await w.raw('GET', `/repos/alice/hist/git/commits/${'0'.repeat(40)}`, undefined, { token: alice.token });
      expect(missing.status).to.equal(404);
    });
  });

  describe('compare', () => {
    let base: string;
    let f1: string;
    let f2: string;
    before(async () => {
      const d = await newRepo('cmp');
      base = await commit(d, 'a.txt', 'a');
      ok(await g(['checkout', '-q', '-b', 'feature/x'], d));
      f1 = await commit(d, 'b.txt', 'b');
      f2 = await commit(d, 'a.txt', 'a2');
      ok(await g(['checkout', '-q', 'main'], d));
      await commit(d, 'c.txt', 'c');
      await push(d, 'cmp', 'main', 'feature/x');
    });

    it('lists the commits of head since the merge base and the files they change', async () => {
      const r = await w.raw('GET', '/repos/alice/cmp/compare/main...feature/x', undefined, { token: alice.token });
      expect(r.status, r.text).to.equal(200);
      expect(r.body.total_commits).to.equal(2);
      expect(r.body.commits.map((c: { sha: string }) => c.sha)).to.deep.equal([f2, f1]);
      expect(r.body.files).to.deep.equal([{ filename: 'b.txt', status: 'added' }, { filename: 'a.txt', status: 'modified' }]);
      const same = await w.raw('GET', `/repos/alice/cmp/compare/${base}...${base}`, undefined, { token: alice.token });
      expect(same.body).to.deep.equal({ total_commits: 0, commits: [], files: [] });
    });

    it('refuses unknown refs and malformed ranges', async () => {
      for (const q of ['main...nope', 'nope...main', 'main']) {
        const r = await w.raw('GET', `/repos/alice/cmp/compare/${q}`, undefined, { token: alice.token });
        expect(r.status, q).to.equal(404);
      }
      expect((await w.raw('GET', '/repos/alice/cmp/compare/-x...main', undefined, { token: alice.token })).status).to.equal(400);
    });
  });

  describe('statuses', () => {
    let sha: string;
    before(async () => {
      const d = await newRepo('ci');
      sha = await commit(d, 'x', 'x');
      await push(d, 'ci');
    });
    const post = (body: unknown, token = alice.token, ref = sha) => w.raw('POST', `/repos/alice/ci/statuses/${ref}`, body, { token });

    it('the combined status answers with state, sha, count and repository even before any report', async () => {
      const r = await w.raw('GET', '/repos/alice/ci/commits/main/status', undefined, { token: alice.token });
      expect(r.status).to.equal(200);
      expect(r.body).to.include({ state: 'pending', sha, total_count: 0 });
      expect(r.body.statuses).to.deep.equal([]);
      expect(r.body.repository.full_name).to.equal('alice/ci');
    });

    it('records statuses and combines the latest of each context, worst first', async () => {
      const a = await post({ state: 'pending', context: 'ci/build', target_url: 'https://ci.example/1', description: 'building' });
      expect(a.status, a.text).to.equal(201);
      expect(a.body).to.include({ status: 'pending', context: 'ci/build', target_url: 'https://ci.example/1', description: 'building' });
      expect(a.body.creator.login).to.equal('alice');
      expect(a.body.url).to.equal(`${w.server.url}api/v1/repos/alice/ci/statuses/${sha}`);
      await post({ state: 'success', context: 'ci/build' });
      await post({ state: 'warning', context: 'lint' });
      const combined = await w.raw('GET', '/repos/alice/ci/commits/main/status', undefined, { token: alice.token });
      expect(combined.body.state).to.equal('warning');
      expect(combined.body.total_count).to.equal(2);
      expect(combined.body.statuses.map((s: { context: string; status: string }) => [s.context, s.status])).to.deep.equal([['lint', 'warning'], ['ci/build', 'success']]);
      await post({ state: 'failure', context: 'lint' });
      expect((await w.raw('GET', `/repos/alice/ci/commits/${sha}/status`, undefined, { token: alice.token })).body.state).to.equal('failure');
    });

    it('lists statuses by sha or ref, sorted and filtered by state, with paging', async () => {
      const all = await w.raw('GET', `/repos/alice/ci/statuses/${sha}?sort=oldest`, undefined, { token: alice.token });
      expect(all.body.map((s: { status: string }) => s.status)).to.deep.equal(['pending', 'success', 'warning', 'failure']);
      expect(all.headers.get('x-total-count')).to.equal('4');
      const byRef = await w.raw('GET', '/repos/alice/ci/commits/main/statuses?state=success', undefined, { token: alice.token });
      expect(byRef.body.map((s: { status: string }) => s.status)).to.deep.equal(['success']);
      const page = await alice.api.repos.repoListStatuses('alice', 'ci', sha, { limit: 1, page: 2, sort: 'highestindex' });
      expect(page.data.map((s) => s.status)).to.deep.equal(['warning']);
    });

    it('refuses bad states, unknown commits and readers without write, changing nothing', async () => {
      const count = async () => (await w.raw('GET', `/repos/alice/ci/statuses/${sha}`, undefined, { token: alice.token })).headers.get('x-total-count');
      const before = await count();
      const bad = await post({ state: 'great' });
      expect(bad.status).to.equal(422);
      expect(bad.body.message).to.equal('invalid commit status state: "great"');
      expect((await post({ state: 'success' }, alice.token, '0'.repeat(40))).status).to.equal(404);
      expect((await post({ state: 'success' }, bob.token)).status).to.equal(403);
      expect((await w.raw('POST', `/repos/alice/ci/statuses/${sha}`, { state: 'success' })).status).to.equal(401);
      expect((await w.raw('GET', `/repos/alice/ci/statuses/${sha}?state=great`, undefined, { token: alice.token })).status).to.equal(422);
      expect(await count()).to.equal(before);
    });
  });

  describe('access', () => {
    before(async () => {
      const d = await newRepo('secret', { private: true });
      await commit(d, 'x', 'x');
      await push(d, 'secret');
    });

    it('an empty repository answers 409 "Git Repository is empty."', async () => {
      await newRepo('void');
      const r = await list('void');
      expect(r.status).to.equal(409);
      expect(r.body.message).to.equal('Git Repository is empty.');
    });

    it('a private repository reads as missing to others, and the code unit can be turned off', async () => {
      expect((await list('secret', '', bob.token)).status).to.equal(404);
      expect((await w.raw('GET', '/repos/alice/secret/commits')).status).to.equal(404);
      expect((await list('secret')).status).to.equal(200);
      const off = await w.raw('PATCH', '/repos/alice/secret', { has_code: false }, { token: alice.token });
      expect(off.status, off.text).to.equal(200);
      expect((await list('secret')).status).to.equal(404);
    });
  });

  describe('signed commits', () => {
    let d: string;
    let gpgFpr: string;
    let gpgKeyId: string;
    let gpg: GpgHome;
    let aliceSsh: ReturnType<typeof sshKeygen>;
    const keyFile = (pair: { priv: string; pub: string }) => {
      const dir = tempDir();
      fs.writeFileSync(path.join(dir, 'k'), pair.priv, { mode: 0o600 });
      fs.writeFileSync(path.join(dir, 'k.pub'), pair.pub);
      return path.join(dir, 'k');
    };
    const verificationOf = async (sha: string) => (await w.raw('GET', `/repos/alice/signed/git/commits/${sha}`, undefined, { token: alice.token })).body.commit.verification;

    before(async () => {
      gpg = new GpgHome();
      gpgFpr = gpg.generate(`alice <${alice.email}>`);
      gpgKeyId = gpg.keyIds(gpgFpr).primary;
      const up = await w.raw('POST', '/user/gpg_keys', { armored_public_key: gpg.exportPublic(gpgFpr) }, { token: alice.token });
      expect(up.status, up.text).to.equal(201);
      aliceSsh = sshKeygen('ed25519', undefined, 'alice-signing');
      const k = await w.raw('POST', '/user/keys', { title: 'signing', key: aliceSsh.pub }, { token: alice.token });
      expect(k.status, k.text).to.equal(201);
      d = await newRepo('signed');
      await commit(d, 'seed', 'seed');
      await push(d, 'signed');
    });

    const gpgSign = () => ({ extra: ['-S', `--gpg-sign=${gpgFpr}`], env: { GNUPGHOME: gpg.home } });
    const sshCommit = async (file: string, pair: { priv: string; pub: string }, who = as(alice)) => {
      const f = keyFile(pair);
      return commit(d, file, file, { who: [...who, '-c', 'gpg.format=ssh', '-c', `user.signingkey=${f}`], extra: ['-S'] });
    };

    it('verifies a GPG-signed commit by its committer\'s key', async () => {
      const sha = await commit(d, 'gpg.txt', 'g', gpgSign());
      await push(d, 'signed');
      const v = await verificationOf(sha);
      expect(v.verified, v.reason).to.equal(true);
      expect(v.reason).to.equal(`alice / ${gpgKeyId}`);
      expect(v.signer).to.deep.equal({ name: 'alice', email: alice.email, username: '' });
      expect(v.signature).to.contain('-----BEGIN PGP SIGNATURE-----');
      expect(v.payload).to.contain(`committer alice <${alice.email}>`);
      expect(v.payload).to.not.contain('gpgsig');
    });

    it('verifies an SSH-signed commit by its committer\'s key', async () => {
      const sha = await sshCommit('ssh.txt', aliceSsh);
      ok(await g(['push', '-q', 'origin', 'main'], d));
      const v = await verificationOf(sha);
      expect(v.verified, v.reason).to.equal(true);
      expect(v.reason).to.equal(`alice / ${aliceSsh.fingerprint}`);
      expect(v.signature).to.contain('-----BEGIN SSH SIGNATURE-----');
    });

    it('does not verify a signature by an unknown key', async () => {
      const stranger = sshKeygen('ed25519', undefined, 'stranger');
      const sha = await sshCommit('unknown.txt', stranger);
      const other = new GpgHome();
      const ofpr = other.generate(`alice <${alice.email}>`);
      const sha2 = await commit(d, 'unknown-gpg.txt', 'u', { extra: ['-S', `--gpg-sign=${ofpr}`], env: { GNUPGHOME: other.home } });
      ok(await g(['push', '-q', 'origin', 'main'], d));
      for (const s of [sha, sha2]) {
        const v = await verificationOf(s);
        expect(v.verified).to.equal(false);
        expect(v.reason).to.equal('gpg.error.no_gpg_keys_found');
        expect(v.signer).to.equal(null);
      }
    });

    it('does not verify alice\'s key on a commit whose committer email is not hers', async () => {
      const sha = await sshCommit('wrong-email.txt', aliceSsh, as({ name: 'alice', email: 'someone-else@example.com' }));
      const sha2 = await commit(d, 'wrong-email-gpg.txt', 'w', { who: as(bob), ...gpgSign() });
      ok(await g(['push', '-q', 'origin', 'main'], d));
      for (const s of [sha, sha2]) {
        const v = await verificationOf(s);
        expect(v.verified, s).to.equal(false);
        expect(v.reason).to.equal('gpg.error.no_gpg_keys_found');
      }
    });

    it('flags a tampered signed commit as a bad signature', async () => {
      const bare = serverRepoDir(w.server, 'alice', 'signed');
      for (const signed of [await sshCommit('tamper.txt', aliceSsh), await commit(d, 'tamper-gpg.txt', 't', gpgSign())]) {
        ok(await g(['push', '-q', 'origin', 'main'], d));
        const raw = ok(await g(['cat-file', 'commit', signed], d)).stdout;
        const forged = raw.replace(/\n\nchange /, '\n\nforged ');
        const file = path.join(tmp, 'forged');
        fs.writeFileSync(file, forged);
        const id = ok(await g(['--git-dir', bare, 'hash-object', '-w', '-t', 'commit', '--literally', file])).stdout.trim();
        const v = await verificationOf(id);
        expect(v.verified).to.equal(false);
        expect(v.reason).to.equal('gpg.error.probable_bad_signature');
      }
    });

    it('trusts TRUSTED_SSH_KEYS for every committer, with the instance signer', async () => {
      const sha = await sshCommit('trusted.txt', trusted, as({ name: 'ci', email: 'ci@nowhere.example' }));
      ok(await g(['push', '-q', 'origin', 'main'], d));
      const v = await verificationOf(sha);
      expect(v.verified, v.reason).to.equal(true);
      expect(v.reason).to.equal(`forge-signer / ${trusted.fingerprint}`);
      expect(v.signer).to.deep.equal({ name: 'forge-signer', email: 'signer@forge.test', username: '' });
    });

    it('signs the commits the server makes with the instance SSH key (SIGNING_FORMAT = ssh), and they verify', async () => {
      const r = await w.raw('POST', '/repos/alice/signed/contents/by-server.txt', { content: Buffer.from('hi').toString('base64') }, { token: alice.token });
      expect(r.status, r.text).to.equal(201);
      expect(r.body.verification.verified, r.body.verification.reason).to.equal(true);
      expect(r.body.verification.reason).to.equal(`forge-signer / ${instance.fingerprint}`);
      const raw = ok(await g(['--git-dir', serverRepoDir(w.server, 'alice', 'signed'), 'cat-file', 'commit', r.body.commit.sha])).stdout;
      expect(raw).to.contain('-----BEGIN SSH SIGNATURE-----');
      ok(await g(['pull', '-q', '--ff-only', 'origin', 'main'], d));
    });

    it('shows verification in the commit list too', async () => {
      const r = await w.raw('GET', '/repos/alice/signed/commits?limit=50', undefined, { token: alice.token });
      const verified = r.body.filter((c: { commit: { verification: { verified: boolean } } }) => c.commit.verification.verified).length;
      expect(verified).to.equal(6);
    });

    it('has no OpenPGP signing key to give while the instance signs with SSH', async () => {
      const r = await w.raw('GET', '/signing-key.gpg');
      expect(r.status).to.equal(404);
      expect(r.body.message).to.equal('signing key format is ssh');
    });
  });
});
