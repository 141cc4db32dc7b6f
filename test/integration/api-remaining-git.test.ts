/**
 * The remaining git-facing operations of Gitea 1.24's API, against one server: detected licenses
 * (`/licenses`, the repository JSON, kept current by pushes and default-branch changes), EditorConfig
 * properties, git notes, the batch read `file-contents`, `diffpatch` (with its refusals: permissions,
 * branch protection, hostile paths, a patch that does not apply, each shown to change nothing), and
 * the site administrator's unadopted repositories (list, adopt, delete, and creation refusing their
 * names). Checked with gitea-js, raw HTTP and git on the server's repositories.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { expectError, type World, type TestUser } from '../helpers/world';
import { GitTool, apiRepo, outboxSettled, startRefsWorld } from '../helpers/refs';
import { serverRepoDir } from '../helpers/repo-fixture';
import { count } from '../helpers/db';
import { WebClient } from '../helpers/web';
import { launchBrowser, look, watchedPage } from '../helpers/browser';

const spdx = require('spdx-license-list/full') as Record<string, { licenseText: string }>;
const b64 = (s: string) => Buffer.from(s).toString('base64');

describe('remaining git API operations (licenses, editorconfig, notes, file-contents, diffpatch, unadopted)', () => {
  let w: World;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  let g: GitTool;
  let main: string;

  const file = (owner: string, repo: string, ref: string, p: string) => g.bare(owner, repo, ['show', `${ref}:${p}`]);
  const head = (owner: string, repo: string, branch = 'main') => g.serverRef(owner, repo, `refs/heads/${branch}`);
  const put = async (u: TestUser, repo: string, p: string, content: string, branch?: string) => {
    const cur = await w.raw('GET', `/repos/alice/${repo}/contents/${p}${branch ? `?ref=${branch}` : ''}`, undefined, { token: u.token });
    const body = { content: b64(content), branch, ...(cur.status === 200 ? { sha: (cur.body as { sha: string }).sha } : {}) };
    const r = await w.raw(cur.status === 200 ? 'PUT' : 'POST', `/repos/alice/${repo}/contents/${p}`, body, { token: u.token });
    expect(r.status, r.text).to.be.oneOf([200, 201]);
  };
  const licenses = async (repo: string, owner = 'alice') => {
    await outboxSettled(w);
    const r = await w.raw('GET', `/repos/${owner}/${repo}/licenses`, undefined, { token: w.admin.token });
    expect(r.status, r.text).to.equal(200);
    return r.body as string[];
  };

  before(async () => {
    ({ w, alice, bob, carol, g, main } = await startRefsWorld());
  });
  after(async () => { await w?.stop(); });

  describe('licenses', () => {
    it('detects the license a repository is created with, in /licenses and the repository JSON', async () => {
      await apiRepo(w, alice, 'lic', { auto_init: true, license: 'MIT' });
      expect(await licenses('lic')).to.deep.equal(['MIT']);
      const r = await alice.api.repos.repoGetLicenses('alice', 'lic');
      expect(r.data).to.deep.equal(['MIT']);
      expect((await alice.api.repos.repoGet('alice', 'lic')).data.licenses).to.deep.equal(['MIT']);
      expect(await licenses('proj')).to.deep.equal([]);
    });

    it('follows commits to the default branch, ignores other branches, and follows a new default branch', async () => {
      await put(alice, 'lic', 'LICENSE', spdx['Apache-2.0'].licenseText);
      expect(await licenses('lic')).to.deep.equal(['Apache-2.0']);
      await put(alice, 'lic', 'COPYING.md', spdx['MIT'].licenseText.replace('<year>', '2026').replace('<copyright holders>', 'Alice'));
      expect(await licenses('lic')).to.deep.equal(['Apache-2.0', 'MIT']);
      expect((await w.raw('POST', '/repos/alice/lic/branches', { new_branch_name: 'gpl' }, { token: alice.token })).status).to.equal(201);
      await put(alice, 'lic', 'LICENSE', spdx['GPL-3.0-only'].licenseText, 'gpl');
      const del = await w.raw('DELETE', '/repos/alice/lic/contents/COPYING.md', { branch: 'gpl', sha: (await w.raw('GET', '/repos/alice/lic/contents/COPYING.md?ref=gpl')).body.sha }, { token: alice.token });
      expect(del.status, del.text).to.equal(200);
      expect(await licenses('lic')).to.deep.equal(['Apache-2.0', 'MIT']);
      expect((await alice.api.repos.repoEdit('alice', 'lic', { default_branch: 'gpl' })).status).to.equal(200);
      expect(await licenses('lic')).to.deep.equal(['GPL-3.0-only']);
      const home = await new WebClient(w).get('alice/lic');
      expect(home.text).to.include('GPL-3.0-only license');
    });

    it('answers a private repository\'s licenses only to those who may read it', async () => {
      await apiRepo(w, alice, 'secret-lic', { auto_init: true, license: 'ISC', private: true });
      expect(await licenses('secret-lic')).to.deep.equal(['ISC']);
      expectError(await w.raw('GET', '/repos/alice/secret-lic/licenses', undefined, { token: bob.token }), 404);
      expectError(await w.raw('GET', '/repos/alice/secret-lic/licenses'), 404);
    });
  });

  describe('editorconfig', () => {
    before(async () => {
      await put(alice, 'proj', '.editorconfig', 'root = true\n\n[*]\nindent_style = space\nindent_size = 2\nend_of_line = lf\ncharset = utf-8\ninsert_final_newline = true\n\n[*.go]\nindent_style = tab\n\n[docs/**.md]\nindent_size = 4\n\n[*.bin]\ncharset = unset\n');
      expect((await w.raw('POST', '/repos/alice/proj/branches', { new_branch_name: 'bare', old_ref_name: main }, { token: alice.token })).status).to.equal(201);
    });

    it('answers the merged properties of the sections that match the path', async () => {
      const go = await alice.api.repos.repoGetEditorConfig('alice', 'proj', 'cmd/main.go');
      expect(go.status).to.equal(200);
      expect(go.data).to.deep.equal({ indent_style: 'tab', indent_size: '2', end_of_line: 'lf', charset: 'utf-8' });
      const md = await w.raw('GET', '/repos/alice/proj/editorconfig/docs/guide/intro.md');
      expect(md.body).to.deep.equal({ indent_style: 'space', indent_size: '4', end_of_line: 'lf', charset: 'utf-8' });
      const bin = await w.raw('GET', '/repos/alice/proj/editorconfig/a.bin?ref=main');
      expect(bin.body).to.deep.equal({ indent_style: 'space', indent_size: '2', end_of_line: 'lf' });
    });

    it('answers 404 for a ref without .editorconfig and for a ref that names nothing', async () => {
      expectError(await w.raw('GET', '/repos/alice/proj/editorconfig/a.go?ref=bare'), 404);
      expectError(await w.raw('GET', '/repos/alice/proj/editorconfig/a.go?ref=nope'), 404);
      expectError(await w.raw('GET', '/repos/alice/secret-lic/editorconfig/a.go', undefined, { token: bob.token }), 404);
    });
  });

  describe('git notes', () => {
    let noted: string;
    before(async () => {
      noted = (await head('alice', 'proj'))!;
      await g.bare('alice', 'proj', ['-c', 'user.name=Alice', '-c', 'user.email=alice@example.com', 'notes', 'add', '-m', 'reviewed by the release team', noted]);
    });

    it('answers the note with the notes commit that wrote it', async () => {
      const r = await alice.api.repos.repoGetNote('alice', 'proj', noted);
      expect(r.status).to.equal(200);
      expect(r.data.message).to.equal('reviewed by the release team\n');
      expect(r.data.commit!.sha).to.equal(await g.bare('alice', 'proj', ['rev-parse', 'refs/notes/commits']));
      expect(r.data.commit!.commit!.message).to.match(/^Notes added by 'git notes add'/);
      expect(r.data.commit!.files).to.be.an('array');
      const byBranch = await w.raw('GET', '/repos/alice/proj/git/notes/main?verification=false&files=false');
      expect(byBranch.status).to.equal(200);
      expect(byBranch.body.commit).to.not.have.property('files');
    });

    it('answers 404 for a commit without a note or an unknown one, 422 for a malformed sha', async () => {
      expectError(await w.raw('GET', `/repos/alice/proj/git/notes/${main}`), 404);
      expectError(await w.raw('GET', `/repos/alice/proj/git/notes/${'0'.repeat(40)}`), 404);
      expectError(await w.raw('GET', '/repos/alice/proj/git/notes/a..b'), 422);
      expectError(await w.raw('GET', '/repos/alice/lic/git/notes/main'), 404);
    });
  });

  describe('file-contents', () => {
    it('reads many paths at once: files with content, directories without, null for what cannot be read', async () => {
      await put(alice, 'proj', 'docs/guide.md', '# Guide\n');
      const files = ['README.md', 'docs', 'docs/guide.md', 'missing.txt', '../etc/passwd', '.git/config'];
      const r = await w.raw('POST', '/repos/alice/proj/file-contents', { files }, { token: bob.token });
      expect(r.status, r.text).to.equal(200);
      const out = r.body as ({ path: string; type: string; content: string | null; encoding: string | null; last_commit_sha: string } | null)[];
      expect(out).to.have.length(6);
      expect(out[0]).to.include({ path: 'README.md', type: 'file', encoding: 'base64' });
      expect(Buffer.from(out[0]!.content!, 'base64').toString().trim()).to.equal(await file('alice', 'proj', 'main', 'README.md'));
      expect(out[1]).to.include({ path: 'docs', type: 'dir', content: null });
      expect(Buffer.from(out[2]!.content!, 'base64').toString()).to.equal('# Guide\n');
      expect(out[2]!.last_commit_sha).to.equal(await head('alice', 'proj'));
      expect(out.slice(3)).to.deep.equal([null, null, null]);
      const get = await w.raw('GET', `/repos/alice/proj/file-contents?ref=${main}&body=${encodeURIComponent(JSON.stringify({ files: ['README.md', 'docs/guide.md'] }))}`);
      expect(get.status).to.equal(200);
      expect(get.body[0]).to.include({ path: 'README.md', type: 'file', last_commit_sha: main });
      expect(get.body[1]).to.equal(null);
    });

    it('answers 400 for a body that is not JSON, 404 for an unknown ref or an unreadable repository', async () => {
      expectError(await w.raw('GET', '/repos/alice/proj/file-contents?body=%7Bfiles'), 400);
      expectError(await w.raw('POST', '/repos/alice/proj/file-contents?ref=nope', { files: ['README.md'] }), 404);
      expectError(await w.raw('POST', '/repos/alice/secret-lic/file-contents', { files: ['LICENSE'] }, { token: bob.token }), 404);
    });
  });

  describe('diffpatch', () => {
    const patch = (p: string, from: string, to: string) => [
      `diff --git a/${p} b/${p}`, `--- a/${p}`, `+++ b/${p}`, '@@ -1 +1 @@', `-${from}`, `+${to}`, '',
    ].join('\n');
    const newFile = (p: string, text: string) => [
      `diff --git a/${p} b/${p}`, 'new file mode 100644', '--- /dev/null', `+++ b/${p}`, '@@ -0,0 +1 @@', `+${text}`, '',
    ].join('\n');

    it('applies a patch as one commit on the branch, or on a new branch', async () => {
      await put(alice, 'proj', 'notes.txt', 'first\n');
      const before = await head('alice', 'proj');
      const r = await carol.api.repos.repoApplyDiffPatch('alice', 'proj', {
        content: patch('notes.txt', 'first', 'second') + newFile('src/new.txt', 'hello'), message: 'Patch it', sha: '', signoff: true,
      });
      expect(r.status).to.equal(201);
      const after = await head('alice', 'proj');
      expect(r.data.commit!.sha).to.equal(after);
      expect(r.data.commit!.parents![0].sha).to.equal(before);
      expect(r.data.content).to.equal(null);
      expect(await file('alice', 'proj', 'main', 'notes.txt')).to.equal('second');
      expect(await file('alice', 'proj', 'main', 'src/new.txt')).to.equal('hello');
      expect(await g.bare('alice', 'proj', ['log', '-1', '--format=%B', 'main'])).to.match(/^Patch it\n\nSigned-off-by: carol/);
      const nb = await w.raw('POST', '/repos/alice/proj/diffpatch', { content: b64(patch('notes.txt', 'second', 'third')), new_branch: 'patched', sha: '' }, { token: alice.token });
      expect(nb.status, nb.text).to.equal(201);
      expect(await file('alice', 'proj', 'patched', 'notes.txt')).to.equal('third');
      expect(await head('alice', 'proj')).to.equal(after);
      expect(await g.bare('alice', 'proj', ['log', '-1', '--format=%s', 'patched'])).to.equal('apply-patch');
    });

    it('refuses a patch that does not apply, hostile paths, and bad branches; nothing changes', async () => {
      const before = await g.serverRefs('alice', 'proj');
      const objects = await count(w.server, 'SELECT COUNT(*) AS n FROM branch WHERE repo_id = (SELECT id FROM repository WHERE lower_name = $1)', ['proj']);
      const send = (body: Record<string, unknown>) => w.raw('POST', '/repos/alice/proj/diffpatch', { sha: '', ...body }, { token: alice.token });
      expectError(await send({ content: patch('notes.txt', 'not there', 'x') }), 422, /^patch does not apply/);
      expectError(await send({ content: 'this is not a patch' }), 422);
      expectError(await send({ content: '' }), 422);
      for (const p of ['.git/config', '.GIT/hooks/pre-receive', 'a/../../x', 'docs/../../../etc/x']) {
        const res = await send({ content: newFile(p, 'evil') });
        expect(res.status, `${p}: ${res.text}`).to.equal(422);
      }
      expectError(await send({ content: patch('notes.txt', 'second', 'x'), branch: 'nope' }), 404);
      expectError(await send({ content: patch('notes.txt', 'second', 'x'), new_branch: 'patched' }), 422, 'branch already exists [name: patched]');
      expectError(await send({ content: patch('notes.txt', 'second', 'x'), new_branch: 'bad..name' }), 422);
      expect(await g.serverRefs('alice', 'proj')).to.equal(before);
      expect(await count(w.server, 'SELECT COUNT(*) AS n FROM branch WHERE repo_id = (SELECT id FROM repository WHERE lower_name = $1)', ['proj'])).to.equal(objects);
      await g.bare('alice', 'proj', ['fsck', '--no-progress']);
    });

    it('needs code write and a branch the rules let the caller change; refusals change nothing', async () => {
      const before = await g.serverRefs('alice', 'proj');
      const body = { content: patch('notes.txt', 'second', 'x'), sha: '' };
      expectError(await w.raw('POST', '/repos/alice/proj/diffpatch', body, { token: bob.token }), 403);
      expectError(await w.raw('POST', '/repos/alice/proj/diffpatch', body), 401);
      const rule = await w.raw('POST', '/repos/alice/proj/branch_protections', { rule_name: 'main', enable_push: true, enable_push_whitelist: true, push_whitelist_usernames: ['alice'], protected_file_patterns: 'src/*.txt' }, { token: alice.token });
      expect(rule.status, rule.text).to.equal(201);
      expectError(await w.raw('POST', '/repos/alice/proj/diffpatch', body, { token: carol.token }), 403, 'user cannot commit to repo [user: carol]');
      expectError(await w.raw('POST', '/repos/alice/proj/diffpatch', { content: newFile('src/other.txt', 'x'), sha: '' }, { token: alice.token }), 403, 'path is protected and can not be changed [path: src/other.txt]');
      expect(await g.serverRefs('alice', 'proj')).to.equal(before);
      expect((await w.raw('DELETE', '/repos/alice/proj/branch_protections/main', undefined, { token: alice.token })).status).to.equal(204);
      expect((await alice.api.repos.repoEdit('alice', 'proj', { archived: true })).status).to.equal(200);
      expectError(await w.raw('POST', '/repos/alice/proj/diffpatch', body, { token: alice.token }), 423);
      expect((await alice.api.repos.repoEdit('alice', 'proj', { archived: false })).status).to.equal(200);
      expect(await g.serverRefs('alice', 'proj')).to.equal(before);
    });
  });

  describe('unadopted repositories', () => {
    const dirOf = (owner: string, name: string) => serverRepoDir(w.server, owner, name);
    const rows = (owner: string, name: string) => count(w.server, 'SELECT COUNT(*) AS n FROM repository WHERE owner_name = $1 AND lower_name = $2', [owner, name]);

    before(async () => {
      // Bare repositories put on disk by hand (a restored backup): one copied from alice/lic with a hook of its own.
      await g.ok(['clone', '--bare', '-q', dirOf('alice', 'lic'), dirOf('bob', 'orphan')]);
      fs.mkdirSync(path.join(dirOf('bob', 'orphan'), 'hooks'), { recursive: true });
      fs.writeFileSync(path.join(dirOf('bob', 'orphan'), 'hooks', 'pre-receive'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
      await g.bare('bob', 'orphan', ['config', 'core.hooksPath', '/tmp/elsewhere']);
      await g.ok(['init', '--bare', '-q', dirOf('bob', 'junk')]);
      await g.ok(['init', '--bare', '-q', path.join(path.dirname(dirOf('bob', 'x')), '..', 'nosuchowner', 'lost.git')]);
    });

    it('lists them to site administrators only, by owner and name globs, with paging headers', async () => {
      const r = await w.admin.api.admin.adminUnadoptedList({});
      expect(r.status).to.equal(200);
      expect(r.data).to.deep.equal(['bob/junk', 'bob/orphan']);
      const byGlob = await w.raw('GET', '/admin/unadopted?pattern=b*%2Forph*', undefined, { token: w.admin.token });
      expect(byGlob.body).to.deep.equal(['bob/orphan']);
      expect((await w.raw('GET', '/admin/unadopted?query=alice', undefined, { token: w.admin.token })).body).to.deep.equal([]);
      const paged = await w.raw('GET', '/admin/unadopted?limit=1&page=2', undefined, { token: w.admin.token });
      expect(paged.body).to.deep.equal(['bob/orphan']);
      expect(paged.headers.get('x-total-count')).to.equal('2');
      expectError(await w.raw('GET', '/admin/unadopted', undefined, { token: bob.token }), 403);
    });

    it('refuses to create a repository whose name has unadopted files; the files stay', async () => {
      expectError(await w.raw('POST', '/user/repos', { name: 'orphan' }, { token: bob.token }), 409, 'repository files already exist [uname: bob, name: orphan]');
      expect(await rows('bob', 'orphan')).to.equal(0);
      expect(fs.existsSync(path.join(dirOf('bob', 'orphan'), 'hooks', 'pre-receive'))).to.equal(true);
    });

    it('refuses adoption by others, of unknown owners, of registered repositories and of missing files; nothing changes', async () => {
      expectError(await w.raw('POST', '/admin/unadopted/bob/orphan', undefined, { token: bob.token }), 403);
      expectError(await w.raw('POST', '/admin/unadopted/nosuchowner/lost', undefined, { token: w.admin.token }), 404);
      expectError(await w.raw('POST', '/admin/unadopted/alice/proj', undefined, { token: w.admin.token }), 404);
      expectError(await w.raw('POST', '/admin/unadopted/bob/nothing', undefined, { token: w.admin.token }), 404);
      expectError(await w.raw('DELETE', '/admin/unadopted/alice/proj', undefined, { token: w.admin.token }), 404);
      expectError(await w.raw('DELETE', '/admin/unadopted/bob/junk', undefined, { token: bob.token }), 403);
      expect(await rows('bob', 'orphan')).to.equal(0);
      expect(fs.existsSync(dirOf('alice', 'proj'))).to.equal(true);
      expect(fs.existsSync(dirOf('bob', 'junk'))).to.equal(true);
    });

    it('adopts one as a private repository: branches, default branch and licenses from disk, the server\'s hooks', async () => {
      const r = await w.admin.api.admin.adminAdoptRepository('bob', 'orphan');
      expect(r.status).to.equal(204);
      const repo = (await bob.api.repos.repoGet('bob', 'orphan')).data;
      expect(repo).to.include({ private: true, empty: false, default_branch: 'gpl', full_name: 'bob/orphan' });
      const branches = (await bob.api.repos.repoListBranches('bob', 'orphan')).data.map((b) => b.name).sort();
      expect(branches).to.deep.equal(['gpl', 'main']);
      expect(await licenses('orphan', 'bob')).to.deep.equal(['GPL-3.0-only']);
      expect(fs.readFileSync(path.join(dirOf('bob', 'orphan'), 'hooks', 'pre-receive'), 'utf8')).to.not.equal('#!/bin/sh\nexit 0\n');
      expect((await g.run(['--git-dir', dirOf('bob', 'orphan'), 'config', 'core.hooksPath'])).stdout).to.equal('');
      expect(await g.bare('bob', 'orphan', ['config', 'receive.fsckObjects'])).to.equal('true');
      expect((await w.admin.api.admin.adminUnadoptedList({})).data).to.deep.equal(['bob/junk']);
      expectError(await w.raw('POST', '/admin/unadopted/bob/orphan', undefined, { token: w.admin.token }), 404);
      const clone = await g.clone(bob, 'bob', 'orphan');
      expect(fs.readFileSync(path.join(clone, 'LICENSE'), 'utf8')).to.equal(spdx['GPL-3.0-only'].licenseText);
    });

    it('lists, adopts and deletes them on the administrator\'s page; others get a 404 and change nothing', async () => {
      await g.ok(['clone', '--bare', '-q', dirOf('alice', 'proj'), dirOf('carol', 'restored')]);
      await g.ok(['init', '--bare', '-q', dirOf('carol', 'scrap')]);
      const admin = await WebClient.signedIn(w, w.admin);
      const list = await admin.get('admin/repos/unadopted?q=carol');
      expect(list.status).to.equal(200);
      expect(list.text).to.include('carol/restored').and.include('carol/scrap').and.include('Adopt files');
      expect((await admin.get('admin/repos')).text).to.include('href="/admin/repos/unadopted"');
      const other = await WebClient.signedIn(w, carol);
      expect((await other.get('admin/repos/unadopted')).status).to.equal(404);
      await other.get('user/settings');
      expect((await other.form('admin/repos/unadopted/carol/scrap/delete', {})).status).to.equal(404);
      expect((await admin.form('admin/repos/unadopted/carol/scrap/delete', {}, { csrf: null })).status).to.equal(403);
      expect(fs.existsSync(dirOf('carol', 'scrap'))).to.equal(true);
      await admin.get('admin/repos/unadopted');
      const adopted = await admin.form('admin/repos/unadopted/carol/restored/adopt', {});
      expect(adopted.status).to.equal(303);
      const after = await admin.get(adopted.location!);
      expect(after.text).to.include('The files of carol/restored have been adopted as a repository.');
      expect((await carol.api.repos.repoGet('carol', 'restored')).data).to.include({ private: true, default_branch: 'main' });
      const deleted = await admin.form('admin/repos/unadopted/carol/scrap/delete', {});
      expect((await admin.get(deleted.location!)).text).to.include('The files of carol/scrap have been deleted.').and.not.include('<td>carol/scrap</td>');
      expect(fs.existsSync(dirOf('carol', 'scrap'))).to.equal(false);
      const again = await admin.form('admin/repos/unadopted/carol/scrap/delete', {});
      expect((await admin.get(again.location!)).text).to.include('be found.');
    });

    it('shows the unadopted page and a repository\'s licenses accessibly, at 1280 and 375 px', async () => {
      const browser = await launchBrowser();
      try {
        const wp = await watchedPage(browser);
        const url = (p = '') => `${w.server.rootUrl}${p}`;
        await wp.page.goto(url('user/login'));
        await wp.page.fill('input[name=user_name]', w.admin.name);
        await wp.page.fill('input[name=password]', w.admin.password);
        await Promise.all([wp.page.waitForURL(url()), wp.page.click('form[action$="/user/login"] button[type=submit]')]);
        await wp.page.goto(url('admin/repos/unadopted'));
        expect(await wp.page.textContent('table.admin')).to.include('bob/junk');
        await look(wp.page, 'admin-unadopted');
        await wp.page.goto(url('alice/lic'));
        expect(await wp.page.textContent('.repo-licenses')).to.include('GPL-3.0-only license');
        await look(wp.page, 'repo-licenses');
        expect(wp.problems).to.deep.equal([]);
      } finally {
        await browser.close();
      }
    });

    it('deletes the files of one', async () => {
      const r = await w.admin.api.admin.adminDeleteUnadoptedRepository('bob', 'junk');
      expect(r.status).to.equal(204);
      expect(fs.existsSync(dirOf('bob', 'junk'))).to.equal(false);
      expect((await w.admin.api.admin.adminUnadoptedList({})).data).to.deep.equal([]);
      expectError(await w.raw('DELETE', '/admin/unadopted/bob/junk', undefined, { token: w.admin.token }), 404);
    });
  });
});
