/**
 * The contents API with real clients: gitea-js for every operation, raw HTTP for bodies and headers,
 * and the git CLI (clone, log, cat-file, fsck) to prove what really landed in the repository. Every
 * refusal shows its 4xx body and that the branch did not move.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { git, gitHome, serverRepoDir, type GitResult } from '../helpers/repo-fixture';

const b64 = (s: string | Buffer) => Buffer.from(s).toString('base64');

describe('contents API', function () {
  let w: World;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  let home: string;
  let tmp: string;
  let n = 0;

  const g = (args: string[], cwd?: string) => git(args, { cwd, home });
  const ok = (r: GitResult) => { expect(r.code, r.stderr).to.equal(0); return r; };
  const bare = (repo: string) => serverRepoDir(w.server, 'alice', repo);
  const head = async (repo: string, branch = 'main') => {
    const r = await g(['--git-dir', bare(repo), 'rev-parse', '--verify', '--quiet', `refs/heads/${branch}`]);
    return r.code === 0 ? r.stdout.trim() : null;
  };
  const show = async (repo: string, rev: string, file: string) => (await g(['--git-dir', bare(repo), 'show', `${rev}:${file}`])).stdout;
  const api = (p: string) => `/repos/alice/${p}`;
  const A = () => ({ token: alice.token });
  const createRepo = async (name: string, extra: Record<string, unknown> = {}) => {
    const r = await w.raw('POST', '/user/repos', { name, auto_init: true, ...extra }, A());
    expect(r.status, r.text).to.equal(201);
  };
  const clone = async (repo: string) => {
    const d = path.join(tmp, `c${++n}`);
    ok(await g(['clone', '-q', `http://alice:${alice.token}@${new URL(w.server.url).host}/alice/${repo}.git`, d]));
    return d;
  };
  /** Expect a refused change: status, message (regexp) and an unmoved branch. */
  const refused = async (repo: string, method: string, p: string, body: unknown, status: number, msg: RegExp, auth = A()) => {
    const before = await head(repo);
    const r = await w.raw(method, api(`${repo}/${p}`), body, auth);
    expect(r.status, r.text).to.equal(status);
    expect(r.body.message, r.text).to.match(msg);
    expect(await head(repo)).to.equal(before);
    return r;
  };

  before(async () => {
    w = await startWorld({ env: { FORGE__REPOSITORY_0X2E_UPLOAD__FILE_MAX_SIZE: '1' } });
    alice = await w.user('alice');
    bob = await w.user('bob');
    carol = await w.user('carol');
    home = gitHome();
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'forge-contents-'));
    await createRepo('files');
  });
  after(async () => { await w?.stop(); });

  describe('single-file changes', () => {
    let created: string;
    let blob: string;

    it('creates a file (201 FileResponse) and git sees the commit', async () => {
      const r = await alice.api.repos.repoCreateFile('alice', 'files', 'docs/a.txt', { content: b64('hello\n') });
      expect(r.status).to.equal(201);
      const f = r.data;
      created = f.commit!.sha!;
      blob = f.content!.sha!;
      expect(f.content).to.include({ name: 'a.txt', path: 'docs/a.txt', type: 'file', size: 6, encoding: 'base64', content: b64('hello\n'), last_commit_sha: created });
      expect(f.content!.download_url).to.match(/\/alice\/files\/raw\/branch\/main\/docs\/a\.txt$/);
      expect(f.content!._links!.git).to.match(new RegExp(`/api/v1/repos/alice/files/git/blobs/${blob}$`));
      expect(f.commit!.message).to.equal('Add docs/a.txt\n');
      expect(f.commit!.author).to.include({ name: 'alice', email: 'alice@example.com' });
      expect(f.commit!.parents).to.have.length(1);
      expect(f.verification).to.deep.equal({ verified: false, reason: 'gpg.error.not_signed_commit', signature: '', signer: null, payload: '' });
      expect(await head('files')).to.equal(created);
      const d = await clone('files');
      expect(fs.readFileSync(path.join(d, 'docs/a.txt'), 'utf8')).to.equal('hello\n');
      expect(ok(await g(['log', '-1', '--format=%an <%ae>|%s'], d)).stdout.trim()).to.equal('alice <alice@example.com>|Add docs/a.txt');
    });

    it('reads the file and lists directories with each entry\'s last commit', async () => {
      const f = (await alice.api.repos.repoGetContents('alice', 'files', 'docs/a.txt')).data;
      expect(f).to.include({ type: 'file', sha: blob, content: b64('hello\n'), last_commit_sha: created });
      const root = (await alice.api.repos.repoGetContentsList('alice', 'files')).data;
      const docs = root.find((e) => e.name === 'docs')!;
      expect(docs).to.include({ type: 'dir', last_commit_sha: created, content: null, download_url: null });
      expect(root.find((e) => e.name === 'README.md')!.last_commit_sha).to.not.equal(created);
      const dir = (await alice.api.repos.repoGetContents('alice', 'files', 'docs')).data as unknown as { name: string }[];
      expect(dir.map((e) => e.name)).to.deep.equal(['a.txt']);
      const withRef = await w.raw('GET', api(`files/contents/docs/a.txt?ref=${created.slice(0, 10)}`), undefined, A());
      expect(withRef.status).to.equal(200);
      expect(withRef.body.url).to.contain(`?ref=${created.slice(0, 10)}`);
    });

    it('answers 404 for a missing path, a bad ref and a missing repository', async () => {
      const miss = await w.raw('GET', api('files/contents/nope.txt'), undefined, A());
      expect(miss.status).to.equal(404);
      expect(miss.body).to.include({ message: 'GetContentsOrList' });
      expect(miss.body.errors).to.deep.equal(['object does not exist [id: , rel_path: nope.txt]']);
      const bad = await w.raw('GET', api('files/contents/docs?ref=no-such-branch'), undefined, A());
      expect(bad.status).to.equal(404);
      expect(bad.body.errors).to.deep.equal(['object does not exist [id: no-such-branch, rel_path: ]']);
      expect((await w.raw('GET', api('nope/contents'), undefined, A())).status).to.equal(404);
    });

    it('updates with the current sha (200), keeps the path list, and refuses a stale sha with 409', async () => {
      const r = await alice.api.repos.repoUpdateFile('alice', 'files', 'docs/a.txt', { sha: blob, content: b64('hello again\n'), message: 'second' });
      expect(r.status).to.equal(200);
      expect(r.data.commit!.message).to.equal('second\n');
      expect(r.data.commit!.parents![0].sha).to.equal(created);
      expect(await show('files', 'main', 'docs/a.txt')).to.equal('hello again\n');
      const stale = await refused('files', 'PUT', 'contents/docs/a.txt', { sha: blob, content: b64('lost') }, 409, /^sha does not match \[given: [0-9a-f]{40}, expected: [0-9a-f]{40}\]$/);
      expect(stale.body.url).to.match(/api\/swagger$/);
      await refused('files', 'PUT', 'contents/docs/a.txt', { content: b64('x') }, 422, /sha/);
      await refused('files', 'PUT', 'contents/docs/a.txt', { sha: '', content: b64('x') }, 422, /^\[SHA\]: Required$/);
      await refused('files', 'PUT', 'contents/docs/nope.txt', { sha: blob, content: b64('x') }, 404, /^repository file does not exist \[path: docs\/nope\.txt\]$/);
      blob = r.data.content!.sha!;
    });

    it('refuses to create a file that exists, or where a file or directory is in the way', async () => {
      await refused('files', 'POST', 'contents/docs/a.txt', { content: b64('x') }, 422, /^repository file already exists \[path: docs\/a\.txt\]$/);
      await refused('files', 'POST', 'contents/docs', { content: b64('x') }, 422, /a directory exists where you’re trying to create a file \[path: docs\]/);
      await refused('files', 'POST', 'contents/docs/a.txt/b.txt', { content: b64('x') }, 422, /a file exists where you’re trying to create a subdirectory \[path: docs\/a\.txt\]/);
    });

    it('moves a file with from_path on update', async () => {
      const r = await alice.api.repos.repoUpdateFile('alice', 'files', 'docs/moved.txt', { sha: blob, from_path: 'docs/a.txt', content: b64('moved\n') });
      expect(r.status).to.equal(200);
      expect(r.data.content!.path).to.equal('docs/moved.txt');
      const ls = ok(await g(['--git-dir', bare('files'), 'ls-tree', '-r', '--name-only', 'main'])).stdout.split('\n');
      expect(ls).to.include('docs/moved.txt').and.not.include('docs/a.txt');
      blob = r.data.content!.sha!;
    });

    it('deletes with the sha (200, content null) and refuses a stale one', async () => {
      await refused('files', 'DELETE', 'contents/docs/moved.txt', { sha: '0'.repeat(40) }, 409, /^sha does not match/);
      const r = await alice.api.repos.repoDeleteFile('alice', 'files', 'docs/moved.txt', { sha: blob });
      expect(r.status).to.equal(200);
      expect(r.data.content).to.equal(null);
      expect(r.data.commit!.message).to.equal('Delete docs/moved.txt\n');
      expect((await w.raw('GET', api('files/contents/docs/moved.txt'), undefined, A())).status).to.equal(404);
      await refused('files', 'DELETE', 'contents/docs/moved.txt', { sha: blob }, 404, /repository file does not exist/);
    });

    it('commits as the given author and committer, at the given dates, with a sign-off', async () => {
      const r = await w.raw('POST', api('files/contents/people.txt'), {
        content: b64('p'), message: 'by others', signoff: true,
        author: { name: 'Ann Author', email: 'ann@example.org' }, committer: { name: 'Cid Committer', email: 'cid@example.org' },
        dates: { author: '2020-01-02T03:04:05Z', committer: '2021-02-03T04:05:06Z' },
      }, A());
      expect(r.status, r.text).to.equal(201);
      expect(r.body.commit.author).to.deep.equal({ name: 'Ann Author', email: 'ann@example.org', date: '2020-01-02T03:04:05Z' });
      expect(r.body.commit.committer).to.deep.equal({ name: 'Cid Committer', email: 'cid@example.org', date: '2021-02-03T04:05:06Z' });
      expect(r.body.commit.message).to.equal('by others\n\nSigned-off-by: Cid Committer <cid@example.org>');
      const log = ok(await g(['--git-dir', bare('files'), 'log', '-1', '--format=%an|%ae|%aI|%cn|%ce|%cI', 'main'])).stdout.trim();
      expect(log).to.equal('Ann Author|ann@example.org|2020-01-02T03:04:05+00:00|Cid Committer|cid@example.org|2021-02-03T04:05:06+00:00');
      const only = await w.raw('POST', api('files/contents/people2.txt'), { content: b64('p'), committer: { name: 'Only C', email: 'c@example.org' } }, A());
      expect(only.body.commit.author).to.include({ name: 'Only C', email: 'c@example.org' });
    });

    it('commits to a new branch, and refuses an existing new_branch or a missing branch', async () => {
      const main = await head('files');
      const r = await w.raw('POST', api('files/contents/feature.txt'), { content: b64('f'), new_branch: 'feature/x' }, A());
      expect(r.status, r.text).to.equal(201);
      expect(r.body.content.download_url).to.match(/raw\/branch\/feature\/x\/feature\.txt$/);
      expect(await head('files')).to.equal(main);
      expect(await head('files', 'feature/x')).to.equal(r.body.commit.sha);
      expect(r.body.commit.parents[0].sha).to.equal(main);
      await refused('files', 'POST', 'contents/f2.txt', { content: b64('f'), new_branch: 'feature/x' }, 422, /^branch already exists \[name: feature\/x\]$/);
      await refused('files', 'POST', 'contents/f2.txt', { content: b64('f'), branch: 'nope' }, 404, /^branch does not exist \[repo_id: \d+ name: nope\]$/);
      const onBranch = await w.raw('POST', api('files/contents/f3.txt'), { content: b64('f'), branch: 'feature/x' }, A());
      expect(onBranch.status).to.equal(201);
      expect(await head('files', 'feature/x')).to.equal(onBranch.body.commit.sha);
      const branches = await w.raw('GET', api('files'), undefined, A());
      expect(branches.body.empty).to.equal(false);
    });
  });

  describe('multi-file changes', () => {
    it('creates, updates, renames and deletes in one commit (201 FilesResponse)', async () => {
      const c1 = await w.raw('POST', api('files/contents'), { files: [
        { operation: 'create', path: 'm/one.txt', content: b64('1') },
        { operation: 'create', path: 'm/two.txt', content: b64('2') },
        { operation: 'create', path: 'm/three.txt', content: b64('3') },
      ] }, A());
      expect(c1.status, c1.text).to.equal(201);
      expect(c1.body.commit.message).to.equal('Add m/one.txt, m/two.txt, m/three.txt\n');
      const [one, two, three] = c1.body.files as { sha: string }[];
      const r = await alice.api.repos.repoChangeFiles('alice', 'files', {
        message: 'batch',
        files: [
          { operation: 'update', path: 'm/one.txt', sha: one.sha, content: b64('one') },
          { operation: 'rename', path: 'm/deux.txt', from_path: 'm/two.txt', sha: two.sha } as never,
          { operation: 'delete', path: 'm/three.txt', sha: three.sha },
          { operation: 'create', path: 'm/four.txt', content: b64('4') },
        ],
      });
      expect(r.status).to.equal(201);
      expect(r.data.files!.map((f) => f?.path ?? null)).to.deep.equal(['m/one.txt', 'm/deux.txt', null, 'm/four.txt']);
      const sha = r.data.commit!.sha!;
      expect(r.data.commit!.parents![0].sha).to.equal(c1.body.commit.sha);
      const st = ok(await g(['--git-dir', bare('files'), 'show', '--no-renames', '--name-status', '--format=', sha])).stdout.trim().split('\n').sort();
      expect(st).to.deep.equal(['A\tm/deux.txt', 'A\tm/four.txt', 'D\tm/three.txt', 'D\tm/two.txt', 'M\tm/one.txt']);
      expect(await show('files', sha, 'm/deux.txt')).to.equal('2');
    });

    it('uses Gitea\'s default message for mixed operations', async () => {
      const f = (await alice.api.repos.repoGetContents('alice', 'files', 'm/four.txt')).data;
      const r = await w.raw('POST', api('files/contents'), { files: [
        { operation: 'create', path: 'm/five.txt', content: b64('5') },
        { operation: 'delete', path: 'm/four.txt', sha: f.sha },
      ] }, A());
      expect(r.status, r.text).to.equal(201);
      expect(r.body.commit.message).to.equal('Add m/five.txt\nDelete m/four.txt\n');
    });

    it('refuses the whole batch when one operation fails (nothing committed)', async () => {
      const f = (await alice.api.repos.repoGetContents('alice', 'files', 'm/five.txt')).data;
      await refused('files', 'POST', 'contents', { files: [
        { operation: 'create', path: 'm/six.txt', content: b64('6') },
        { operation: 'update', path: 'm/five.txt', sha: 'a'.repeat(40), content: b64('x') },
      ] }, 409, /^sha does not match/);
      await refused('files', 'POST', 'contents', { files: [
        { operation: 'create', path: 'm/six.txt', content: b64('6') },
        { operation: 'update', path: 'm/five.txt', content: b64('x') },
      ] }, 422, /^a SHA or commit ID must be proved when updating a file$/);
      await refused('files', 'POST', 'contents', { files: [
        { operation: 'create', path: 'm/six.txt', content: b64('6') },
        { operation: 'create', path: 'm/six.txt', content: b64('7') },
      ] }, 422, /repository file already exists \[path: m\/six\.txt\]/);
      await refused('files', 'POST', 'contents', { files: [
        { operation: 'create', path: 'm/seven', content: b64('6') },
        { operation: 'create', path: 'm/seven/x', content: b64('7') },
      ] }, 422, /a file exists where you’re trying to create a subdirectory \[path: m\/seven\]/);
      await refused('files', 'POST', 'contents', { files: [{ operation: 'delete', path: 'm/none.txt', sha: f.sha }] }, 404, /repository file does not exist/);
      await refused('files', 'POST', 'contents', { files: [] }, 422, /Files/);
      await refused('files', 'POST', 'contents', { files: [{ operation: 'chmod', path: 'a', content: '' }] }, 422, /operation/);
      expect((await w.raw('GET', api('files/contents/m/six.txt'), undefined, A())).status).to.equal(404);
    });
  });

  describe('concurrent changes', () => {
    it('lets exactly one of two updates with the same sha win (the other 409)', async () => {
      const c = await w.raw('POST', api('files/contents/race.txt'), { content: b64('0') }, A());
      const sha = c.body.content.sha as string;
      const rs = await Promise.all(['1', '2'].map((v) => w.raw('PUT', api('files/contents/race.txt'), { sha, content: b64(v) }, A())));
      expect(rs.map((r) => r.status).sort()).to.deep.equal([200, 409]);
      const winner = rs.find((r) => r.status === 200)!;
      expect(await head('files')).to.equal(winner.body.commit.sha);
      expect(await show('files', 'main', 'race.txt')).to.equal(String(rs.indexOf(winner) + 1));
    });

    it('serializes many writers on one branch without losing a commit', async () => {
      const before = await head('files');
      const rs = await Promise.all(Array.from({ length: 8 }, (_, i) => w.raw('POST', api(`files/contents/many/f${i}.txt`), { content: b64(String(i)) }, A())));
      expect(rs.map((r) => r.status)).to.deep.equal(Array(8).fill(201));
      const count = ok(await g(['--git-dir', bare('files'), 'rev-list', '--count', `${before}..main`])).stdout.trim();
      expect(count).to.equal('8');
      const ls = ok(await g(['--git-dir', bare('files'), 'ls-tree', '--name-only', 'main', 'many/'])).stdout.trim().split('\n');
      expect(ls).to.have.length(8);
    });
  });

  describe('hostile input', () => {
    const create = (p: string) => ({ files: [{ operation: 'create', path: p, content: b64('pwn') }] });

    it('runs git\'s own object checks on the commits it makes: a hostile .gitmodules is refused (422) and nothing moves', async () => {
      const hostile = [
        ['[submodule "../../hooks"]\n\tpath = x\n\turl = https://example.com/x\n', /^git refuses the change: gitmodulesName: disallowed submodule name: \.\.\/\.\.\/hooks$/],
        ['[submodule "x"]\n\tpath = x\n\turl = https:///evil\n', /^git refuses the change: gitmodulesUrl: disallowed submodule url: https:\/\/\/evil$/],
      ] as const;
      for (const [text, message] of hostile) {
        await refused('files', 'POST', 'contents', { files: [{ operation: 'create', path: '.gitmodules', content: b64(text) }] }, 422, message);
        await refused('files', 'POST', 'contents/sub%2F.gitmodules', { content: b64(text) }, 422, message);
      }
      // an ordinary .gitmodules is committed (on a branch of its own, the listings below stay as they are)
      const good = await w.raw('POST', api('files/contents/.gitmodules'), { content: b64('[submodule "lib"]\n\tpath = lib\n\turl = https://example.com/lib.git\n'), new_branch: 'modules' }, A());
      expect(good.status, good.text).to.equal(201);
    });

    it('refuses paths with .., .git in any case or spelling, backslashes, NUL, absolute paths and empty segments', async () => {
      const bad = ['../x', 'a/../../x', 'a/..', '.git/config', '.GIT/hooks/post-receive', '.Git/x', 'a/.git/x', '.git', 'a/.gIt',
        '.git./x', '.git /x', 'git~1/config', '.g\u200cit/config', 'a\\..\\x', 'a\\b', '/etc/passwd', 'a//b', './a', 'a/./b', 'a/', ''];
      for (const p of bad) {
        const r = await refused('files', 'POST', 'contents', create(p), 422, /path contains a malformed path component|Path|Files/);
        expect(r.text).to.not.contain('internal');
      }
      // a NUL is refused before any path rule: in the body as a value (422), in the URL as a name that cannot exist (404)
      await refused('files', 'POST', 'contents', create('a\0b'), 422, /^files\[0\]\.path: must not contain a NUL character$/);
      await refused('files', 'POST', 'contents/a%00b', { content: b64('pwn') }, 404, /^The target couldn't be found\.$/);
      for (const p of ['..%2Fx', '.git%2Fconfig', '.GIT%2Fx', 'a%5C..%5Cx', 'x%2F..%2F..%2Fy']) {
        await refused('files', 'POST', `contents/${p}`, { content: b64('pwn') }, 422, /^path contains a malformed path component/);
      }
      await refused('files', 'POST', 'contents', { files: [{ operation: 'update', path: 'ok.txt', from_path: '.git/config', sha: 'a'.repeat(40), content: b64('x') }] }, 422, /malformed path component/);
      const ls = ok(await g(['--git-dir', bare('files'), 'ls-tree', '-r', '--name-only', 'main'])).stdout;
      expect(ls).to.not.match(/git|etc|pwn/i);
    });

    it('refuses refs and shas starting with "-" everywhere and writes no file', async () => {
      const trap = path.join(tmp, 'pwned');
      const before = await head('files');
      for (const [m, p, status] of [
        ['GET', `files/contents/README.md?ref=--output=${trap}`, 404],
        ['GET', `files/raw/README.md?ref=--output=${trap}`, 404],
        ['GET', `files/raw/--output=${trap}`, 404],
        ['GET', `files/media/README.md?ref=-h`, 404],
        ['GET', 'files/git/trees/--help', 400],
        ['GET', 'files/git/blobs/-p', 400],
        ['GET', 'files/git/tags/--help', 400],
        ['GET', `files/git/commits/--output=${encodeURIComponent(trap)}.diff`, 404],
        ['GET', 'files/git/commits/-h.patch', 404],
        ['GET', 'files/contents-ext/README.md?ref=-h', 404],
      ] as [string, string, number][]) {
        const r = await w.raw(m, api(p), undefined, A());
        expect(r.status, `${p}: ${r.text}`).to.equal(status);
      }
      await refused('files', 'POST', 'contents/x.txt', { content: b64('x'), branch: '--orphan' }, 422, /^\[BranchName\]: GitRefName$/);
      await refused('files', 'POST', 'contents/x.txt', { content: b64('x'), new_branch: '-f' }, 422, /^\[NewBranchName\]: GitRefName$/);
      await refused('files', 'POST', 'contents/x.txt', { content: b64('x'), new_branch: 'a..b' }, 422, /GitRefName/);
      expect(fs.existsSync(trap)).to.equal(false);
      expect(await head('files')).to.equal(before);
    });

    it('refuses malformed base64 with 422 and Go\'s message', async () => {
      await refused('files', 'POST', 'contents/b.txt', { content: 'not base64!' }, 422, /^illegal base64 data at input byte 3$/);
      await refused('files', 'POST', 'contents/b.txt', { content: 'YWJj=' }, 422, /^illegal base64 data at input byte/);
      await refused('files', 'POST', 'contents', { files: [{ operation: 'create', path: 'b.txt', content: '@@@@' }] }, 422, /^illegal base64 data at input byte 0$/);
    });

    it('refuses files above [repository.upload] FILE_MAX_SIZE with 413, and bodies above the parser limit', async () => {
      const big = Buffer.alloc(1024 * 1024 + 1, 'a');
      await refused('files', 'POST', 'contents/big.txt', { content: b64(big) }, 413, /larger than the limit of 1048576 bytes/);
      await refused('files', 'POST', 'contents', { files: [{ operation: 'create', path: 'big.txt', content: b64(big) }] }, 413, /larger than the limit/);
      const huge = `{"content":"${'A'.repeat(11 * 1024 * 1024)}"}`;
      await refused('files', 'POST', 'contents/huge.txt', huge, 413, /too large/);
      expect((await w.raw('POST', api('files/contents/fits.txt'), { content: b64(Buffer.alloc(1024 * 1024, 'b')) }, A())).status).to.equal(201);
    });

    describe('committed symlinks', () => {
      let linksHead: string | null;
      before(async () => {
        await createRepo('links');
        const d = await clone('links');
        fs.symlinkSync('../../config', path.join(d, 'cfg'));
        fs.symlinkSync('/home/git/.ssh', path.join(d, 'sshdir'));
        fs.mkdirSync(path.join(d, 'real'));
        fs.writeFileSync(path.join(d, 'real/file.txt'), 'real\n');
        fs.symlinkSync('real', path.join(d, 'dirlink'));
        ok(await g(['add', '-A'], d));
        ok(await g(['commit', '-qm', 'links'], d));
        ok(await g(['push', '-q', 'origin', 'main'], d));
        linksHead = await head('links');
        const deadline = Date.now() + 30_000;
        while ((await w.raw('GET', api('links/contents/cfg'), undefined, A())).status !== 200) {
          if (Date.now() > deadline) throw new Error('push not visible');
          await new Promise((r) => setTimeout(r, 50));
        }
      });

      it('shows symlinks with their target, and raw serves the link text', async () => {
        const c = (await alice.api.repos.repoGetContents('alice', 'links', 'cfg')).data;
        expect(c).to.include({ type: 'symlink', target: '../../config', content: null });
        const raw = await fetch(`${w.server.api}/repos/alice/links/raw/sshdir`, { headers: { Authorization: `token ${alice.token}` } });
        expect(raw.status).to.equal(200);
        expect(await raw.text()).to.equal('/home/git/.ssh');
        expect(raw.headers.get('x-gitea-object-type')).to.equal('symlink');
      });

      it('refuses writes onto or through a symlink and leaves the branch alone', async () => {
        const cfg = (await alice.api.repos.repoGetContents('alice', 'links', 'cfg')).data;
        await refused('links', 'PUT', 'contents/cfg', { sha: cfg.sha, content: b64('[core]\n\tsshCommand = touch /tmp/p\n') }, 422, /a symbolic link exists where you’re trying to create a subdirectory \[path: cfg\]/);
        await refused('links', 'POST', 'contents/sshdir/authorized_keys', { content: b64('ssh-ed25519 AAAA evil') }, 422, /a file exists where you’re trying to create a subdirectory \[path: sshdir\]/);
        await refused('links', 'POST', 'contents/dirlink/new.txt', { content: b64('x') }, 422, /a file exists where you’re trying to create a subdirectory \[path: dirlink\]/);
        await refused('links', 'POST', 'contents', { files: [{ operation: 'create', path: 'cfg/x', content: b64('x') }] }, 422, /subdirectory \[path: cfg\]/);
        await refused('links', 'POST', 'contents', { files: [{ operation: 'upload', path: 'cfg', content: b64('x') }] }, 422, /symbolic link/);
        await refused('links', 'DELETE', 'contents/dirlink/file.txt', { sha: 'a'.repeat(40) }, 404, /repository file does not exist \[path: dirlink\/file\.txt\]/);
        expect(await head('links')).to.equal(linksHead);
        expect(fs.existsSync('/tmp/p')).to.equal(false);
      });
    });
  });

  describe('permissions', () => {
    before(async () => {
      await createRepo('secret', { private: true });
      const r = await w.raw('PUT', '/repos/alice/secret/collaborators/carol', { permission: 'read' }, A());
      expect(r.status, r.text).to.equal(204);
    });

    it('hides a private repository from strangers (404) and asks anonymous callers to sign in for writes', async () => {
      for (const p of ['contents', 'contents/README.md', 'raw/README.md', 'media/README.md', 'git/refs', 'languages', 'contents-ext/README.md']) {
        expect((await w.raw('GET', api(`secret/${p}`), undefined, { token: bob.token })).status, p).to.equal(404);
        expect((await w.raw('GET', api(`secret/${p}`))).status, p).to.equal(404);
      }
      await refused('secret', 'POST', 'contents/x.txt', { content: b64('x') }, 404, /repository does not exist/, { token: bob.token });
      await refused('secret', 'POST', 'contents/x.txt', { content: b64('x') }, 401, /token is required/, {} as { token: string });
    });

    it('lets a reader read but not write (403)', async () => {
      expect((await w.raw('GET', api('secret/contents/README.md'), undefined, { token: carol.token })).status).to.equal(200);
      const readme = (await carol.api.repos.repoGetContents('alice', 'secret', 'README.md')).data;
      await refused('secret', 'POST', 'contents/x.txt', { content: b64('x') }, 403, /^user should have a permission to write to a repo$/, { token: carol.token });
      await refused('secret', 'PUT', 'contents/README.md', { sha: readme.sha, content: 'not base64!' }, 403, /write/, { token: carol.token });
      await refused('secret', 'POST', 'contents', { files: [{ operation: 'delete', path: 'README.md', sha: readme.sha }] }, 403, /write/, { token: carol.token });
    });

    it('answers 404 when the code unit is disabled and 423 for an archived repository', async () => {
      await createRepo('nocode');
      expect((await w.raw('PATCH', api('nocode'), { has_code: false }, A())).status).to.equal(200);
      expect((await w.raw('GET', api('nocode/contents'), undefined, A())).status).to.equal(404);
      expect((await w.raw('GET', api('nocode/raw/README.md'), undefined, A())).status).to.equal(404);
      await refused('nocode', 'POST', 'contents/x.txt', { content: b64('x') }, 404, /./);
      await createRepo('old');
      expect((await w.raw('PATCH', api('old'), { archived: true }, A())).status).to.equal(200);
      expect((await w.raw('GET', api('old/contents/README.md'), undefined, A())).status).to.equal(200);
      await refused('old', 'POST', 'contents/x.txt', { content: b64('x') }, 423, /^repo is archived$/);
    });

    it('needs a token with the repository scope for writes', async () => {
      const t = await w.raw('POST', '/users/alice/tokens', { name: 'ro', scopes: ['read:repository'] }, { basic: ['alice', alice.password] });
      expect(t.status).to.equal(201);
      expect((await w.raw('GET', api('files/contents'), undefined, { token: t.body.sha1 })).status).to.equal(200);
      await refused('files', 'POST', 'contents/x.txt', { content: b64('x') }, 403, /token does not have at least one of required scope/, { token: t.body.sha1 });
    });
  });

  describe('empty repository', () => {
    before(async () => {
      const r = await w.raw('POST', '/user/repos', { name: 'void' }, A());
      expect(r.status).to.equal(201);
    });

    it('answers 404 for reads', async () => {
      // Gitea's answers: 404 for contents, files and refs; a tree that is not there is a 400
      for (const [p, status] of [['contents', 404], ['contents/README.md', 404], ['raw/README.md', 404], ['media/x', 404], ['git/refs', 404], ['git/trees/main', 400]] as const) {
        const r = await w.raw('GET', api(`void/${p}`), undefined, A());
        expect(r.status, `${p}: ${r.text}`).to.equal(status);
      }
      expect((await w.raw('GET', api('void/languages'), undefined, A())).body).to.deep.equal({});
    });

    it('refuses updates and makes the first commit on create', async () => {
      await refused('void', 'PUT', 'contents/a.txt', { sha: 'a'.repeat(40), content: b64('x') }, 404, /repository file does not exist/);
      const r = await alice.api.repos.repoCreateFile('alice', 'void', 'first.txt', { content: b64('first\n') });
      expect(r.status).to.equal(201);
      expect(r.data.commit!.parents).to.deep.equal([]);
      expect(await head('void')).to.equal(r.data.commit!.sha);
      const repo = (await w.raw('GET', api('void'), undefined, A())).body;
      expect(repo.empty).to.equal(false);
      expect(repo.default_branch).to.equal('main');
    });
  });

  describe('LFS through .gitattributes', () => {
    const data = Buffer.from(Array.from({ length: 5000 }, (_, i) => i % 251));
    let pointerSha: string;

    before(async () => {
      await createRepo('big');
      const r = await w.raw('POST', api('big/contents/.gitattributes'), { content: b64('*.bin filter=lfs diff=lfs merge=lfs -text\n') }, A());
      expect(r.status).to.equal(201);
    });

    it('stores tracked content as an LFS object and commits the pointer', async () => {
      const r = await alice.api.repos.repoCreateFile('alice', 'big', 'assets/blob.bin', { content: b64(data) });
      expect(r.status).to.equal(201);
      const oid = (await import('node:crypto')).createHash('sha256').update(data).digest('hex');
      const pointer = await show('big', 'main', 'assets/blob.bin');
      expect(pointer).to.equal(`version https://git-lfs.github.com/spec/v1\noid sha256:${oid}\nsize 5000\n`);
      expect(r.data.content).to.include({ lfs_oid: oid, lfs_size: 5000 } as never);
      pointerSha = r.data.content!.sha!;
      const stored = path.join(w.server.dataDir, 'lfs', oid.slice(0, 2), oid.slice(2, 4), oid);
      expect(fs.readFileSync(stored).equals(data)).to.equal(true);
      const media = await fetch(`${w.server.api}/repos/alice/big/media/assets/blob.bin`, { headers: { Authorization: `token ${alice.token}` } });
      expect(media.status).to.equal(200);
      expect(Buffer.from(await media.arrayBuffer()).equals(data)).to.equal(true);
      expect(media.headers.get('etag')).to.equal(`"${oid}"`);
      const raw = await fetch(`${w.server.api}/repos/alice/big/raw/assets/blob.bin`, { headers: { Authorization: `token ${alice.token}` } });
      expect(await raw.text()).to.equal(pointer);
      const ext = (await w.raw('GET', api('big/contents-ext/assets?includes=lfs_metadata'), undefined, A())).body;
      expect(ext.dir_contents[0]).to.include({ lfs_oid: oid, lfs_size: 5000, sha: pointerSha });
      const batch = await w.raw('POST', '//alice/big.git/info/lfs/objects/batch', { operation: 'download', objects: [{ oid, size: 5000 }] },
        { basic: ['alice', alice.token], headers: { Accept: 'application/vnd.git-lfs+json', 'Content-Type': 'application/vnd.git-lfs+json' } });
      expect(batch.body.objects[0].actions.download.href).to.match(new RegExp(`${oid}$`));
    });

    it('leaves untracked paths as plain blobs and the git-lfs client gets the content', async () => {
      const r = await alice.api.repos.repoCreateFile('alice', 'big', 'plain.dat', { content: b64(data) });
      expect(r.data.content!.size).to.equal(5000);
      const d = path.join(tmp, `lfs${++n}`);
      ok(await g(['clone', '-q', `http://alice:${alice.token}@${new URL(w.server.url).host}/alice/big.git`, d]));
      ok(await g(['lfs', 'install', '--local'], d));
      ok(await g(['lfs', 'pull'], d));
      expect(fs.readFileSync(path.join(d, 'assets/blob.bin')).equals(data)).to.equal(true);
    });
  });

  describe('raw and media', () => {
    before(async () => {
      const r = await w.raw('POST', api('files/contents'), { files: [
        { operation: 'create', path: 'web/x.html', content: b64('<html><script>alert(1)</script></html>') },
        { operation: 'create', path: 'web/x.svg', content: b64('<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"></svg>') },
        { operation: 'create', path: 'web/p.png', content: b64(Buffer.concat([Buffer.from('\x89PNG\r\n\x1a\n', 'latin1'), Buffer.alloc(20)])) },
        { operation: 'create', path: 'web/bin', content: b64(Buffer.from([0, 1, 2, 3, 0, 255])) },
        { operation: 'create', path: 'web/big.txt', content: b64('line\n'.repeat(40000)) },
      ] }, A());
      expect(r.status, r.text).to.equal(201);
      const t = await w.raw('POST', api('files/contents/web/tagged.txt'), { content: b64('tagged'), new_branch: 'rel/1' }, A());
      expect(t.status).to.equal(201);
    });
    const get = (p: string, headers: Record<string, string> = {}) => fetch(`${w.server.api}/repos/alice/files/${p}`, { headers: { Authorization: `token ${alice.token}`, ...headers } });

    it('never serves active content: html as text/plain, svg as a sandboxed attachment, nosniff everywhere', async () => {
      const html = await get('raw/web/x.html');
      expect(html.status).to.equal(200);
      expect(html.headers.get('content-type')).to.equal('text/plain; charset=utf-8');
      expect(html.headers.get('x-content-type-options')).to.equal('nosniff');
      expect(html.headers.get('content-security-policy')).to.equal("default-src 'none'; style-src 'unsafe-inline'; sandbox");
      expect(await html.text()).to.contain('<script>');
      const svg = await get('media/web/x.svg');
      expect(svg.headers.get('content-type')).to.equal('image/svg+xml');
      expect(svg.headers.get('content-disposition')).to.match(/^attachment; filename="x\.svg"/);
      expect(svg.headers.get('content-security-policy')).to.contain('sandbox');
      const png = await get('raw/web/p.png');
      expect(png.headers.get('content-type')).to.equal('image/png');
      expect(png.headers.get('content-disposition')).to.match(/^inline/);
      const bin = await get('raw/web/bin');
      expect(bin.headers.get('content-type')).to.equal('application/octet-stream');
      expect(Buffer.from(await bin.arrayBuffer())).to.deep.equal(Buffer.from([0, 1, 2, 3, 0, 255]));
    });

    it('streams large files whole and answers 304 for a matching ETag', async () => {
      const r = await get('raw/web/big.txt');
      expect(r.headers.get('content-length')).to.equal('200000');
      const text = await r.text();
      expect(text.length).to.equal(200000);
      const again = await get('raw/web/big.txt', { 'If-None-Match': r.headers.get('etag')! });
      expect(again.status).to.equal(304);
    });

    it('resolves ?ref=, a branch prefix of the path, and a commit id; 404 for dirs, missing paths and bad refs', async () => {
      expect(await (await get('raw/web/tagged.txt?ref=rel/1')).text()).to.equal('tagged');
      expect(await (await get('raw/rel/1/web/tagged.txt')).text()).to.equal('tagged');
      const sha = (await head('files', 'rel/1'))!;
      expect(await (await get(`raw/${sha}/web/tagged.txt`)).text()).to.equal('tagged');
      expect((await get('raw/web/tagged.txt')).status).to.equal(404);
      expect((await get('raw/web')).status).to.equal(404);
      expect((await get('raw/web/x.html?ref=nope')).status).to.equal(404);
      const gitea = await alice.api.repos.repoGetRawFile('alice', 'files', 'web/x.html', { ref: 'main' }, { format: 'text' });
      expect(gitea.data).to.contain('<html>');
    });
  });

  describe('git data', () => {
    let tagSha: string;
    let headSha: string;

    before(async () => {
      const d = await clone('files');
      ok(await g(['tag', '-a', 'v1.0', '-m', 'release one'], d));
      ok(await g(['tag', 'light'], d));
      ok(await g(['push', '-q', 'origin', 'v1.0', 'light'], d));
      tagSha = ok(await g(['rev-parse', 'v1.0'], d)).stdout.trim();
      headSha = ok(await g(['rev-parse', 'HEAD'], d)).stdout.trim();
    });

    it('reads blobs (400 for anything else)', async () => {
      const readme = (await alice.api.repos.repoGetContents('alice', 'files', 'README.md')).data;
      const b = (await alice.api.repos.getBlob('alice', 'files', readme.sha!)).data;
      expect(b).to.include({ sha: readme.sha, encoding: 'base64', content: readme.content, size: readme.size });
      const bad = await w.raw('GET', api(`files/git/blobs/${headSha}`), undefined, A());
      expect(bad.status).to.equal(400);
      expect(bad.body.message).to.equal(`object does not exist [id: ${headSha}, rel_path: ]`);
    });

    it('lists trees recursively with paging and truncation', async () => {
      const t = (await alice.api.repos.getTree('alice', 'files', 'main', { recursive: true, per_page: 3, page: 1 })).data;
      expect(t.tree).to.have.length(3);
      expect(t.truncated).to.equal(true);
      expect(t.total_count).to.be.greaterThan(10);
      const all = (await alice.api.repos.getTree('alice', 'files', headSha, { recursive: true })).data;
      expect(all.truncated).to.equal(false);
      expect(all.tree!.map((e) => e.path)).to.include.members(['m', 'm/one.txt', 'web/x.html']);
      const dirEntry = all.tree!.find((e) => e.path === 'm')!;
      expect(dirEntry).to.include({ type: 'tree', mode: '040000', size: 0 });
      expect(dirEntry.url).to.match(/\/git\/trees\/[0-9a-f]{40}$/);
      const top = (await alice.api.repos.getTree('alice', 'files', all.sha!)).data;
      expect(top.tree!.every((e) => !e.path!.includes('/'))).to.equal(true);
      const bad = await w.raw('GET', api('files/git/trees/nope'), undefined, A());
      expect(bad.status).to.equal(400);
      expect(bad.body.message).to.equal('sha not found [nope]');
    });

    it('lists refs, filters them by prefix and answers one exact ref as an object', async () => {
      const all = (await alice.api.repos.repoListAllGitRefs('alice', 'files')).data;
      expect(all.map((r) => r.ref)).to.include.members(['refs/heads/main', 'refs/heads/feature/x', 'refs/tags/v1.0', 'refs/tags/light']);
      const tag = all.find((r) => r.ref === 'refs/tags/v1.0')!;
      expect(tag.object).to.include({ type: 'tag', sha: tagSha });
      const heads = await w.raw('GET', api('files/git/refs/heads'), undefined, A());
      expect(heads.body.every((r: { ref: string }) => r.ref.startsWith('refs/heads/'))).to.equal(true);
      const one = await w.raw('GET', api('files/git/refs/heads/feature/x'), undefined, A());
      expect(one.body).to.include({ ref: 'refs/heads/feature/x' });
      expect(one.body.url).to.match(/\/git\/refs\/heads\/feature\/x$/);
      const prefix = await w.raw('GET', api('files/git/refs/heads/feat'), undefined, A());
      expect(prefix.body).to.be.an('array').with.length(1);
      expect((await w.raw('GET', api('files/git/refs/heads/zzz'), undefined, A())).status).to.equal(404);
    });

    it('reads annotated tags and refuses lightweight ones', async () => {
      const t = (await alice.api.repos.getAnnotatedTag('alice', 'files', tagSha)).data;
      expect(t).to.include({ tag: 'v1.0', sha: tagSha, message: 'release one\n' });
      expect(t.object).to.include({ type: 'commit', sha: headSha });
      expect(t.tagger).to.include({ name: 'Tester', email: 'tester@example.com' });
      const light = await w.raw('GET', api(`files/git/tags/${headSha}`), undefined, A());
      expect(light.status).to.equal(400);
    });

    it('serves a commit as diff and patch text', async () => {
      const c = (await w.raw('POST', api('files/contents/diffme.txt'), { content: b64('diff me\n') }, A())).body.commit.sha as string;
      const diff = await w.raw('GET', api(`files/git/commits/${c}.diff`), undefined, A());
      expect(diff.status).to.equal(200);
      expect(diff.headers.get('content-type')).to.match(/^text\/plain/);
      expect(diff.text).to.contain('+++ b/diffme.txt').and.contain('+diff me');
      const patch = await alice.api.repos.repoDownloadCommitDiffOrPatch('alice', 'files', c, 'patch', { format: 'text' });
      expect(patch.data).to.match(new RegExp(`^From ${c} `)).and.contain('Subject: [PATCH] Add diffme.txt');
      expect((await w.raw('GET', api(`files/git/commits/${'0'.repeat(40)}.diff`), undefined, A())).status).to.equal(404);
      const byTag = await w.raw('GET', api('files/git/commits/v1.0.patch'), undefined, A());
      expect(byTag.status, byTag.text).to.equal(200);
      expect(byTag.text).to.match(/^From [0-9a-f]{40} /);
      expect((await w.raw('GET', api(`files/git/commits/${c}.zip`), undefined, A())).status).to.equal(404);
    });

    it('counts bytes per language', async () => {
      await w.raw('POST', api('files/contents'), { files: [
        { operation: 'create', path: 'src/main.go', content: b64('package main\n'.repeat(10)) },
        { operation: 'create', path: 'src/app.ts', content: b64('export {};\n') },
        { operation: 'create', path: 'vendor/lib.go', content: b64('package lib\n'.repeat(100)) },
      ] }, A());
      const langs = (await alice.api.repos.repoGetLanguages('alice', 'files')).data;
      expect(langs.Go).to.equal(130);
      expect(langs.TypeScript).to.equal(11);
      expect(langs).to.have.property('HTML');
    });

    it('contents-ext returns metadata, and content or last commits on request', async () => {
      const plain = (await w.raw('GET', api('files/contents-ext/README.md'), undefined, A())).body;
      expect(plain.file_contents).to.include({ content: null, last_commit_sha: '' });
      expect(plain).to.not.have.property('dir_contents');
      const full = (await w.raw('GET', api('files/contents-ext/README.md?includes=file_content,commit_metadata'), undefined, A())).body;
      expect(full.file_contents.content).to.be.a('string');
      expect(full.file_contents.last_commit_sha).to.match(/^[0-9a-f]{40}$/);
      const root = (await w.raw('GET', api('files/contents-ext/.?includes=commit_metadata'), undefined, A())).body;
      expect(root.dir_contents.find((e: { name: string }) => e.name === 'm').last_commit_sha).to.match(/^[0-9a-f]{40}$/);
      const bad = await w.raw('GET', api('files/contents-ext/README.md?includes=everything'), undefined, A());
      expect(bad.status).to.equal(400);
      expect(bad.body.message).to.equal('unknown include option "everything"');
    });
  });

  describe('afterwards', () => {
    it('leaves every repository fsck-clean', async () => {
      for (const repo of ['files', 'links', 'void', 'big']) {
        const r = await g(['--git-dir', bare(repo), 'fsck', '--strict', '--no-dangling']);
        expect(r.code, `${repo}: ${r.stderr}${r.stdout}`).to.equal(0);
      }
    });
  });
});
