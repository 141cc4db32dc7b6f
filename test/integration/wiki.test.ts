/**
 * The wiki: the API through gitea-js (create, get, list, edit, rename, delete, revisions, Gitea's
 * page name <-> file name mapping, sidebar and footer), every refusal with its body and proof that
 * nothing changed (hostile names, reserved and empty titles, malformed base64, permissions, a
 * disabled wiki unit, an archived repository), the wiki cloned and pushed with the stock git client
 * over HTTP and SSH (created on first push, the same permission rules on the wiki unit, deploy keys,
 * no push processing for the code repository), and the wiki following repository rename and delete.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { git, gitHome, serverRepoDir, type GitResult } from '../helpers/repo-fixture';
import { gitSshCommand, runSsh, sshKeyFile, type SshKeyFile } from '../helpers/ssh';
import { count, sql } from '../helpers/db';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const unb64 = (s: string | undefined) => Buffer.from(s ?? '', 'base64').toString();
const NOT_FOUND = "The target couldn't be found.";

describe('wiki', () => {
  let w: World;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  let dave: TestUser;
  let aliceKey: SshKeyFile;
  let carolKey: SshKeyFile;
  let home: string;
  let tmp: string;
  let n = 0;

  const A = () => ({ token: alice.token });
  const wikiApi = (repo: string, tail: string, owner = 'alice') => `/repos/${owner}/${repo}/wiki/${tail}`;
  const wikiDir = (repo: string, owner = 'alice') => serverRepoDir(w.server, owner, repo).replace(/\.git$/, '.wiki.git');
  const dir = () => path.join(tmp, `d${++n}`);
  const g = (args: string[], cwd?: string, env: Record<string, string> = {}) => git(args, { cwd, home, env });
  const ok = (r: GitResult) => { expect(r.code, r.stderr).to.equal(0); return r; };
  const httpUrl = (u: TestUser | null, repo: string, owner = 'alice') =>
    `http://${u ? `${u.name}:${u.token}@` : ''}${new URL(w.server.url).host}/${owner}/${repo}.wiki.git`;
  const sshUrl = (repo: string, owner = 'alice') => `ssh://git@127.0.0.1:${w.server.sshPort}/${owner}/${repo}.wiki.git`;
  const sshEnv = (key: SshKeyFile) => ({ GIT_SSH_COMMAND: gitSshCommand(w.server.sshPort, key) });

  /** The wiki's refs on disk, or null when the wiki does not exist (no permission involved). */
  const wikiRefs = async (repo: string, owner = 'alice'): Promise<string | null> => {
    if (!fs.existsSync(wikiDir(repo, owner))) return null;
    return ok(await g(['--git-dir', wikiDir(repo, owner), 'for-each-ref', '--format=%(refname) %(objectname)'])).stdout;
  };
  /** The files of the wiki branch, as git sees them on the server. */
  const wikiFiles = async (repo: string, branch = 'main') =>
    ok(await g(['--git-dir', wikiDir(repo), 'ls-tree', '-r', '--name-only', '-z', branch])).stdout.split('\0').filter(Boolean).sort();
  const newRepo = async (name: string, opts: Record<string, unknown> = {}) => {
    const r = await w.raw('POST', '/user/repos', { name, auto_init: true, ...opts }, A());
    expect(r.status, r.text).to.equal(201);
    return r.body.id as number;
  };
  const create = async (repo: string, title: string, content: string, message?: string) => {
    const r = await alice.api.repos.repoCreateWikiPage('alice', repo, { title, content_base64: b64(content), message });
    expect(r.status).to.equal(201);
    return r.data;
  };
  /** Expect a refusal with `status` and a message matching `msg`, and the wiki exactly as before. */
  const refused = async (repo: string, method: string, tail: string, body: unknown, status: number, msg: RegExp, token: string | null = alice.token) => {
    const before = await wikiRefs(repo);
    const r = await w.raw(method, wikiApi(repo, tail), body, token ? { token } : {});
    expect(r.status, r.text).to.equal(status);
    expect(r.body.message, r.text).to.match(msg);
    expect(await wikiRefs(repo)).to.equal(before);
    return r;
  };

  before(async () => {
    w = await startWorld();
    [alice, bob, carol, dave] = [await w.user('alice'), await w.user('bob'), await w.user('carol'), await w.user('dave')];
    aliceKey = sshKeyFile('ed25519');
    carolKey = sshKeyFile('ed25519');
    expect((await alice.api.user.userCurrentPostKey({ title: 'a', key: aliceKey.pub })).status).to.equal(201);
    expect((await carol.api.user.userCurrentPostKey({ title: 'c', key: carolKey.pub })).status).to.equal(201);
    home = gitHome();
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'forge-wiki-'));
    await newRepo('docs');
    for (const [who, permission] of [['bob', 'write'], ['carol', 'read']]) {
      expect((await w.raw('PUT', `/repos/alice/docs/collaborators/${who}`, { permission }, A())).status).to.equal(204);
    }
  });
  after(async () => { await w?.stop(); });

  describe('API', () => {
    it('answers 404 before the wiki exists, and creates it (configured like every repository) with the first page', async () => {
      const none = await w.raw('GET', wikiApi('docs', 'pages'), undefined, A());
      expect(none.status).to.equal(404);
      expect(none.body).to.include({ message: NOT_FOUND });
      expect(none.body.errors).to.deep.equal(['no such file or directory']);
      expect((await w.raw('GET', wikiApi('docs', 'page/Home'), undefined, A())).status).to.equal(404);
      expect(fs.existsSync(wikiDir('docs'))).to.equal(false);

      const page = await create('docs', 'Home', '# Welcome\n');
      expect(page).to.include({ title: 'Home', sub_url: 'Home', html_url: `${w.server.url}alice/docs/wiki/Home`, commit_count: 1, sidebar: '', footer: '' });
      expect(unb64(page.content_base64)).to.equal('# Welcome\n');
      const c = page.last_commit!;
      expect(c.sha).to.match(/^[0-9a-f]{40}$/);
      expect(c.message).to.equal('Add "Home"\n');
      expect(c.author).to.include({ name: 'alice', email: 'alice@example.com' });
      expect(c.author!.date).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      expect(c.commiter).to.deep.equal(c.author);

      const gd = wikiDir('docs');
      expect(ok(await g(['--git-dir', gd, 'symbolic-ref', 'HEAD'])).stdout.trim()).to.equal('refs/heads/main');
      expect(ok(await g(['--git-dir', gd, 'rev-parse', 'refs/heads/main'])).stdout.trim()).to.equal(c.sha);
      expect(ok(await g(['--git-dir', gd, 'config', 'receive.fsckObjects'])).stdout.trim()).to.equal('true');
      expect(fs.readdirSync(path.join(gd, 'hooks')).sort()).to.deep.equal(['post-receive', 'pre-receive', 'proc-receive']);
      expect(fs.readFileSync(path.join(gd, 'hooks', 'pre-receive'), 'utf8')).to.contain('FORGE_HOOK_SCRIPT');
      expect(await wikiFiles('docs')).to.deep.equal(['Home.md']);
      expect((await sql(w.server, "SELECT default_wiki_branch FROM repository WHERE lower_name = 'docs'"))[0].default_wiki_branch).to.equal('main');
    });

    it("maps titles to web paths and file names as Gitea's wiki_path.go", async () => {
      const cases: [string, string, string][] = [
        ['Page With Spaces', 'Page-With-Spaces', 'Page-With-Spaces.md'],
        ['2000-01-02 meeting', '2000-01-02+meeting.-', '2000-01-02 meeting.-.md'],
        ['100% Free', '100%25-Free', '100%25-Free.md'],
        ['notes.md', 'notes.md.-', 'notes.md.-.md'],
        ['a/b', 'a%2Fb', 'a%2Fb.md'],
        ['Ünïcode', '%C3%9Cn%C3%AFcode', '%C3%9Cn%C3%AFcode.md'],
      ];
      for (const [title, sub, file] of cases) {
        const p = await create('docs', title, `content of ${title}`);
        expect(p, title).to.include({ title, sub_url: sub, html_url: `${w.server.url}alice/docs/wiki/${sub}` });
        expect(await wikiFiles('docs'), title).to.include(file);
        const got = await alice.api.repos.repoGetWikiPage('alice', 'docs', sub);
        expect(got.data.title, title).to.equal(title);
        expect(unb64(got.data.content_base64), title).to.equal(`content of ${title}`);
      }
      // a `.md` web path names the file itself
      const raw = await w.raw('GET', wikiApi('docs', 'page/Page-With-Spaces.md'), undefined, A());
      expect(raw.status).to.equal(200);
      expect(unb64(raw.body.content_base64)).to.equal('content of Page With Spaces');
      expect(raw.body.title).to.equal('Page With Spaces');
      // the title surrounding spaces are trimmed
      expect((await create('docs', '  Trimmed  ', 't')).sub_url).to.equal('Trimmed');
    });

    it('returns the sidebar and footer with every page, and the given commit message', async () => {
      await create('docs', '_Sidebar', 'side');
      await create('docs', '_Footer', 'foot', 'my own message');
      const home = await alice.api.repos.repoGetWikiPage('alice', 'docs', 'Home');
      expect(unb64(home.data.sidebar)).to.equal('side');
      expect(unb64(home.data.footer)).to.equal('foot');
      const footer = await alice.api.repos.repoGetWikiPage('alice', 'docs', '_Footer');
      expect(footer.data.last_commit!.message).to.equal('my own message\n');
    });

    it('lists the pages with paging headers', async () => {
      const all = await alice.api.repos.repoGetWikiPages('alice', 'docs');
      const titles = all.data.map((p) => p.title);
      expect(titles).to.include.members(['Home', 'Page With Spaces', '2000-01-02 meeting', '_Sidebar', '_Footer']);
      const files = await wikiFiles('docs');
      expect(all.headers.get('x-total-count')).to.equal(String(files.length));
      for (const p of all.data) expect(p.last_commit!.sha).to.match(/^[0-9a-f]{40}$/);
      const first = await w.raw('GET', `${wikiApi('docs', 'pages')}?limit=2`, undefined, A());
      expect(first.body).to.have.length(2);
      expect(first.headers.get('link')).to.contain('rel="next"');
      const second = await w.raw('GET', `${wikiApi('docs', 'pages')}?limit=2&page=2`, undefined, A());
      expect(second.body.map((p: { title: string }) => p.title)).to.not.include.members(first.body.map((p: { title: string }) => p.title));
    });

    it('edits a page in place (empty title keeps the name) and lists its revisions', async () => {
      const before = await alice.api.repos.repoGetWikiPage('alice', 'docs', 'Home');
      const r = await alice.api.repos.repoEditWikiPage('alice', 'docs', 'Home', { content_base64: b64('# Welcome, again\n') });
      expect(r.status).to.equal(200);
      expect(r.data).to.include({ title: 'Home', sub_url: 'Home', commit_count: 2 });
      expect(unb64(r.data.content_base64)).to.equal('# Welcome, again\n');
      expect(r.data.last_commit!.message).to.equal('Update "Home"\n');
      const revs = await alice.api.repos.repoGetWikiPageRevisions('alice', 'docs', 'Home');
      expect(revs.data.count).to.equal(2);
      expect(revs.headers.get('x-total-count')).to.equal('2');
      expect(revs.data.commits!.map((c) => c.sha)).to.deep.equal([r.data.last_commit!.sha, before.data.last_commit!.sha]);
      const parent = ok(await g(['--git-dir', wikiDir('docs'), 'rev-parse', `${r.data.last_commit!.sha}^`])).stdout.trim();
      expect(parent).to.not.equal('');
    });

    it('renames a page with a new title, and creates a page that does not exist yet (as Gitea)', async () => {
      const r = await alice.api.repos.repoEditWikiPage('alice', 'docs', 'Page-With-Spaces', { title: 'Renamed Page', content_base64: b64('moved'), message: 'rename it' });
      expect(r.data).to.include({ title: 'Renamed Page', sub_url: 'Renamed-Page' });
      const files = await wikiFiles('docs');
      expect(files).to.include('Renamed-Page.md');
      expect(files).to.not.include('Page-With-Spaces.md');
      expect((await w.raw('GET', wikiApi('docs', 'page/Page-With-Spaces'), undefined, A())).status).to.equal(404);
      const made = await bob.api.repos.repoEditWikiPage('alice', 'docs', 'Brand-New', { content_base64: b64('new') });
      expect(made.data).to.include({ title: 'Brand New', commit_count: 1 });
      expect(made.data.last_commit!.author).to.include({ name: 'bob' });
    });

    it('deletes a page; a missing page answers 404 with nothing changed', async () => {
      const r = await alice.api.repos.repoDeleteWikiPage('alice', 'docs', 'Brand-New');
      expect(r.status).to.equal(204);
      expect(await wikiFiles('docs')).to.not.include('Brand-New.md');
      expect((await w.raw('GET', wikiApi('docs', 'page/Brand-New'), undefined, A())).status).to.equal(404);
      const head = ok(await g(['--git-dir', wikiDir('docs'), 'log', '-1', '--format=%B', 'main'])).stdout;
      expect(head.trim()).to.equal('Delete page "Brand-New"');
      const gone = await refused('docs', 'DELETE', 'page/Brand-New', undefined, 404, /^The target couldn't be found\.$/);
      expect(gone.body.errors).to.deep.equal(['file does not exist']);
      const missing = await refused('docs', 'GET', 'page/Nope', undefined, 404, /^The target couldn't be found\.$/);
      expect(missing.body.errors).to.equal(null);
      await refused('docs', 'GET', 'revisions/Nope', undefined, 404, /couldn't be found/);
    });

    it('refuses bad titles and content with 400, changing nothing', async () => {
      await refused('docs', 'POST', 'new', { title: '', content_base64: b64('x') }, 400, /^title is empty$/);
      await refused('docs', 'POST', 'new', { title: '   ', content_base64: b64('x') }, 400, /^title is empty$/);
      await refused('docs', 'POST', 'new', { content_base64: b64('x') }, 400, /^title is empty$/);
      await refused('docs', 'POST', 'new', { title: 'B64', content_base64: 'not base64!' }, 400, /^illegal base64 data at input byte 3$/);
      await refused('docs', 'POST', 'new', { title: 'B64', content_base64: 'YQ' }, 400, /^illegal base64 data at input byte 0$/);
      await refused('docs', 'PATCH', 'page/Home', { content_base64: 'Y=Q=' }, 400, /^illegal base64 data at input byte/);
      for (const t of ['_pages', '_new', '_edit', 'raw']) {
        await refused('docs', 'POST', 'new', { title: t, content_base64: b64('x') }, 400, new RegExp(`^wiki title is reserved: ${t}$`));
        await refused('docs', 'PATCH', 'page/Home', { title: t, content_base64: b64('x') }, 400, /^wiki title is reserved/);
      }
      await refused('docs', 'POST', 'new', { title: 'Home', content_base64: b64('x') }, 400, /^wiki page already exists \[title: Home\.md\]$/);
      await refused('docs', 'POST', 'new', { title: 'Page', content_base64: 7, extra: 1 }, 422, /content_base64/i);
      expect((await w.raw('GET', wikiApi('docs', 'page/Page'), undefined, A())).status).to.equal(404);
    });

    it('refuses hostile page names (.., .git, NUL, leading -) with 4xx, changing nothing', async () => {
      for (const t of ['.', '..', '.git', '.GIT', '.git.', 'git~1', 'a\nb', '-rf', '--upload-pack=x']) {
        await refused('docs', 'POST', 'new', { title: t, content_base64: b64('x') }, 400, /^Invalid wiki filename: /);
        await refused('docs', 'PATCH', 'page/Home', { title: t, content_base64: b64('x') }, 400, /^Invalid wiki filename: /);
      }
      // a NUL never reaches the wiki: the body is refused as a whole (422), the URL names nothing (404)
      await refused('docs', 'POST', 'new', { title: 'a\u0000b', content_base64: b64('x') }, 422, /^title: must not contain a NUL character$/);
      await refused('docs', 'PATCH', 'page/Home', { title: 'a\u0000b', content_base64: b64('x') }, 422, /^title: must not contain a NUL character$/);
      for (const [method, tail] of [['PATCH', 'page/%00.md'], ['GET', 'page/%00.md'], ['DELETE', 'page/%00.md'], ['GET', 'revisions/%00.md']]) {
        await refused('docs', method, tail, method === 'PATCH' ? { content_base64: b64('x') } : undefined, 404, /^The target couldn't be found\.$/);
      }
      // names in the URL that would reach a hostile file (a `.md` web path names the file directly)
      for (const name of ['.git%2Fconfig.md', '.GIT%2Fhooks%2Fpre-receive.md', 'a%5C..%5C.git%2Fx.md', '-x.md', '--help.md']) {
        await refused('docs', 'PATCH', `page/${name}`, { content_base64: b64('x') }, 400, /^Invalid wiki filename: /);
      }
      for (const name of ['.git%2Fconfig.md']) {
        await refused('docs', 'GET', `page/${name}`, undefined, 400, /^Invalid wiki filename: /);
        await refused('docs', 'DELETE', `page/${name}`, undefined, 400, /^Invalid wiki filename: /);
        await refused('docs', 'GET', `revisions/${name}`, undefined, 400, /^Invalid wiki filename: /);
      }
      // `..` can never climb out: these are plain (missing) pages
      for (const name of ['..%2F..%2F..%2Fetc%2Fpasswd', '%2E%2E%2Fdocs']) {
        await refused('docs', 'GET', `page/${name}`, undefined, 404, /couldn't be found/);
      }
      expect(await wikiFiles('docs')).to.not.include.members(['-rf.md', '.git.md', 'x.md']);
    });

    it('takes its branch from the repository (default_wiki_branch)', async () => {
      const id = await newRepo('oldwiki');
      await sql(w.server, "UPDATE repository SET default_wiki_branch = 'master' WHERE id = $1", [id]);
      await create('oldwiki', 'Home', 'on master');
      expect(ok(await g(['--git-dir', wikiDir('oldwiki'), 'symbolic-ref', 'HEAD'])).stdout.trim()).to.equal('refs/heads/master');
      expect(await wikiFiles('oldwiki', 'master')).to.deep.equal(['Home.md']);
      expect(unb64((await alice.api.repos.repoGetWikiPage('alice', 'oldwiki', 'Home')).data.content_base64)).to.equal('on master');
    });

    it('serializes concurrent writes: every page lands, one commit each', async () => {
      await newRepo('busy');
      await create('busy', 'Home', 'h');
      const titles = Array.from({ length: 6 }, (_, i) => `Parallel ${i}`);
      const res = await Promise.all(titles.map((t) => w.raw('POST', wikiApi('busy', 'new'), { title: t, content_base64: b64(t) }, A())));
      for (const r of res) expect(r.status, r.text).to.equal(201);
      expect(await wikiFiles('busy')).to.have.members(['Home.md', ...titles.map((t) => `${t.replace(' ', '-')}.md`)]);
      expect(ok(await g(['--git-dir', wikiDir('busy'), 'rev-list', '--count', 'main'])).stdout.trim()).to.equal('7');
    });
  });

  describe('permissions', () => {
    it('lets readers read and refuses writes to readers, strangers and anonymous callers', async () => {
      expect((await carol.api.repos.repoGetWikiPage('alice', 'docs', 'Home')).status).to.equal(200);
      expect((await w.client().repos.repoGetWikiPages('alice', 'docs')).status).to.equal(200);
      for (const [method, tail, body] of [['POST', 'new', { title: 'X', content_base64: b64('x') }], ['PATCH', 'page/Home', { content_base64: b64('x') }], ['DELETE', 'page/Home', undefined]] as const) {
        await refused('docs', method, tail, body, 403, /^user should have a permission to write to a repo$/, carol.token);
        await refused('docs', method, tail, body, 403, /^user should have a permission to write to a repo$/, dave.token);
        await refused('docs', method, tail, body, 401, /^token is required$/, null);
      }
      const t = await w.raw('POST', '/users/alice/tokens', { name: 'ro', scopes: ['read:repository'] }, { basic: ['alice', alice.password] });
      await refused('docs', 'POST', 'new', { title: 'X', content_base64: b64('x') }, 403, /^token does not have at least one of required scope/, t.body.sha1);
      expect((await w.raw('GET', wikiApi('docs', 'page/Home'), undefined, { token: t.body.sha1 })).status).to.equal(200);
    });

    it('hides the wiki of a private repository like the repository', async () => {
      await newRepo('secret', { private: true });
      await create('secret', 'Home', 's');
      for (const token of [dave.token, undefined]) {
        for (const tail of ['pages', 'page/Home', 'revisions/Home']) {
          expect((await w.raw('GET', wikiApi('secret', tail), undefined, token ? { token } : {})).status).to.equal(404);
        }
      }
      await refused('secret', 'POST', 'new', { title: 'X', content_base64: b64('x') }, 404, /repository does not exist|couldn't be found/, dave.token);
    });

    it('answers 404 for everything when the wiki unit is disabled, creating nothing', async () => {
      await newRepo('nowiki');
      expect((await alice.api.repos.repoEdit('alice', 'nowiki', { has_wiki: false })).data.has_wiki).to.equal(false);
      for (const [method, tail, body] of [['GET', 'pages', undefined], ['GET', 'page/Home', undefined], ['GET', 'revisions/Home', undefined],
        ['POST', 'new', { title: 'X', content_base64: b64('x') }], ['PATCH', 'page/Home', { content_base64: b64('x') }], ['DELETE', 'page/Home', undefined]] as const) {
        const r = await refused('nowiki', method, tail, body, 404, /^The target couldn't be found\.$/);
        expect(r.body.errors).to.equal(null);
      }
      expect(fs.existsSync(wikiDir('nowiki'))).to.equal(false);
    });

    it('answers 423 for changes to an archived repository (before the write check), reads still work', async () => {
      await newRepo('frozen');
      await create('frozen', 'Home', 'cold');
      expect((await w.raw('PUT', '/repos/alice/frozen/collaborators/carol', { permission: 'read' }, A())).status).to.equal(204);
      expect((await w.raw('PATCH', '/repos/alice/frozen', { archived: true }, A())).status).to.equal(200);
      for (const token of [alice.token, carol.token]) {
        await refused('frozen', 'POST', 'new', { title: 'X', content_base64: b64('x') }, 423, /^repo is archived$/, token);
        await refused('frozen', 'PATCH', 'page/Home', { content_base64: b64('x') }, 423, /^repo is archived$/, token);
        await refused('frozen', 'DELETE', 'page/Home', undefined, 423, /^repo is archived$/, token);
      }
      expect(unb64((await alice.api.repos.repoGetWikiPage('alice', 'frozen', 'Home')).data.content_base64)).to.equal('cold');
    });
  });

  describe('git over HTTP', () => {
    const pushJobs = () => count(w.server, "SELECT COUNT(*) AS n FROM outbox WHERE topic = 'repo.push'");

    it('clones the wiki, pushes a page, and the API reads it; the push records nothing for the code repository', async () => {
      const c = dir();
      ok(await g(['clone', '-q', httpUrl(alice, 'docs'), c]));
      expect(fs.readFileSync(path.join(c, 'Home.md'), 'utf8')).to.equal('# Welcome, again\n');
      fs.writeFileSync(path.join(c, 'From-Git.md'), 'pushed over http');
      ok(await g(['add', '.'], c));
      ok(await g(['commit', '-q', '-m', 'from git'], c));
      const jobs = await pushJobs();
      const branches = await sql(w.server, "SELECT name FROM branch WHERE repo_id = (SELECT id FROM repository WHERE lower_name = 'docs') ORDER BY name");
      ok(await g(['push', '-q', 'origin', 'main', 'main:refs/heads/wiki-only'], c));
      const page = await alice.api.repos.repoGetWikiPage('alice', 'docs', 'From-Git');
      expect(unb64(page.data.content_base64)).to.equal('pushed over http');
      expect(page.data.last_commit!.message).to.equal('from git\n');
      expect(await pushJobs()).to.equal(jobs);
      expect(await sql(w.server, "SELECT name FROM branch WHERE repo_id = (SELECT id FROM repository WHERE lower_name = 'docs') ORDER BY name")).to.deep.equal(branches);
      ok(await g(['push', '-q', 'origin', ':refs/heads/wiki-only'], c));
    });

    it('creates the wiki on the first push of a writer', async () => {
      await newRepo('fresh');
      expect((await w.raw('PUT', '/repos/alice/fresh/collaborators/bob', { permission: 'write' }, A())).status).to.equal(204);
      expect(fs.existsSync(wikiDir('fresh'))).to.equal(false);
      const c = dir();
      ok(await g(['init', '-q', '-b', 'main', c]));
      fs.writeFileSync(path.join(c, 'Home.md'), 'first push');
      fs.mkdirSync(path.join(c, 'sub'));
      fs.writeFileSync(path.join(c, 'sub', 'Nested.md'), 'nested');
      fs.writeFileSync(path.join(c, 'notes.txt'), 'not a page');
      fs.writeFileSync(path.join(c, 'Script.md'), 'exec');
      fs.chmodSync(path.join(c, 'Script.md'), 0o755);
      ok(await g(['add', '.'], c));
      ok(await g(['commit', '-q', '-m', 'start'], c));
      ok(await g(['push', '-q', httpUrl(bob, 'fresh'), 'main'], c));
      expect(ok(await g(['--git-dir', wikiDir('fresh'), 'config', 'receive.fsckObjects'])).stdout.trim()).to.equal('true');
      const list = await alice.api.repos.repoGetWikiPages('alice', 'fresh');
      // only regular top-level .md files are pages; every top-level entry counts (as Gitea)
      expect(list.data.map((p) => p.title)).to.deep.equal(['Home']);
      expect(list.headers.get('x-total-count')).to.equal('4');
      // a file in a real subdirectory is reached through the %2F name
      const nested = await w.raw('GET', wikiApi('fresh', 'page/sub%2FNested'), undefined, A());
      expect(nested.status).to.equal(200);
      expect(unb64(nested.body.content_base64)).to.equal('nested');
    });

    it('does not create a wiki for readers and anonymous callers; readers may not push', async () => {
      await newRepo('quiet');
      await w.raw('PUT', '/repos/alice/quiet/collaborators/carol', { permission: 'read' }, A());
      const r1 = await g(['clone', httpUrl(carol, 'quiet'), dir()]);
      expect(r1.code).to.not.equal(0);
      expect(r1.stderr).to.match(/not found|does not exist/i);
      const r2 = await g(['clone', httpUrl(null, 'quiet'), dir()]);
      expect(r2.code).to.not.equal(0);
      expect(fs.existsSync(wikiDir('quiet'))).to.equal(false);

      const before = await wikiRefs('docs');
      const c = dir();
      ok(await g(['clone', '-q', httpUrl(carol, 'docs'), c]));
      fs.writeFileSync(path.join(c, 'Carol.md'), 'no');
      ok(await g(['add', '.'], c));
      ok(await g(['commit', '-q', '-m', 'carol'], c));
      const push = await g(['push', 'origin', 'main'], c);
      expect(push.code).to.not.equal(0);
      expect(push.stderr).to.contain('User permission denied');
      expect(await wikiRefs('docs')).to.equal(before);
    });

    it('answers like a missing repository when the wiki unit is disabled, and refuses pushes to an archived repository', async () => {
      const r = await g(['clone', httpUrl(alice, 'nowiki'), dir()]);
      expect(r.code).to.not.equal(0);
      expect(r.stderr).to.match(/not found|does not exist/i);
      expect(fs.existsSync(wikiDir('nowiki'))).to.equal(false);

      const before = await wikiRefs('frozen');
      const c = dir();
      ok(await g(['clone', '-q', httpUrl(alice, 'frozen'), c]));
      fs.writeFileSync(path.join(c, 'Thaw.md'), 'no');
      ok(await g(['add', '.'], c));
      ok(await g(['commit', '-q', '-m', 'thaw'], c));
      const push = await g(['push', 'origin', 'main'], c);
      expect(push.code).to.not.equal(0);
      expect(push.stderr).to.contain('repo is archived');
      expect(await wikiRefs('frozen')).to.equal(before);
    });

    it('pages the revisions of a page 50 at a time', async () => {
      const c = dir();
      ok(await g(['clone', '-q', httpUrl(alice, 'docs'), c]));
      for (let i = 0; i < 55; i++) {
        fs.writeFileSync(path.join(c, 'Many.md'), `v${i}`);
        ok(await g(['add', 'Many.md'], c));
        ok(await g(['commit', '-q', '-m', `v${i}`], c));
      }
      ok(await g(['push', '-q', 'origin', 'main'], c));
      const p1 = await alice.api.repos.repoGetWikiPageRevisions('alice', 'docs', 'Many');
      expect(p1.data.count).to.equal(55);
      expect(p1.data.commits).to.have.length(50);
      expect(p1.data.commits![0].message).to.equal('v54\n');
      expect(p1.headers.get('x-total-count')).to.equal('55');
      expect(p1.headers.get('link')).to.contain('page=2');
      const p2 = await alice.api.repos.repoGetWikiPageRevisions('alice', 'docs', 'Many', { page: 2 });
      expect(p2.data.commits!.map((x) => x.message)).to.deep.equal(['v4\n', 'v3\n', 'v2\n', 'v1\n', 'v0\n']);
      expect((await alice.api.repos.repoGetWikiPage('alice', 'docs', 'Many')).data.commit_count).to.equal(55);
    });
  });

  describe('internal hook API for wiki pushes', () => {
    const internal = (kind: string, body: unknown) => {
      const token = (JSON.parse(fs.readFileSync(path.join(w.server.dataDir, 'secrets.json'), 'utf8')) as { internalToken: string }).internalToken;
      return w.raw('POST', `//api/internal/hook/${kind}`, body, { headers: { Authorization: `Bearer ${token}` } });
    };
    const ZERO = '0'.repeat(40);
    const repoId = async (name: string) => (await sql(w.server, 'SELECT id FROM repository WHERE lower_name = $1', [name]))[0].id as number;

    it('skips the code repository rules and queues nothing, but still refuses an archived repository', async () => {
      const docs = await repoId('docs');
      const jobs = await count(w.server, "SELECT COUNT(*) AS n FROM outbox WHERE topic = 'repo.push'");
      // deleting `main` is refused for the code repository's default branch, allowed for the wiki
      const del = { repo_id: docs, pusher_id: alice.id, deploy_key_id: 0, transport: 'http', updates: [{ old: 'a'.repeat(40), new: ZERO, ref: 'refs/heads/main' }] };
      expect((await internal('pre-receive', del)).status).to.equal(403);
      expect((await internal('pre-receive', { ...del, repo_kind: 'wiki' })).status).to.equal(200);
      expect(await count(w.server, "SELECT COUNT(*) AS n FROM outbox WHERE topic = 'repo.push'")).to.equal(jobs);
      const frozen = await internal('pre-receive', { ...del, repo_id: await repoId('frozen'), repo_kind: 'wiki' });
      expect(frozen.status).to.equal(403);
      expect(frozen.body.message).to.contain('is archived');
      const bogus = await internal('pre-receive', { ...del, repo_kind: 'bogus' });
      expect(bogus.status).to.equal(422);
      expect(bogus.body.message).to.equal('malformed hook request');
    });
  });

  describe('git over SSH', () => {
    it('clones and pushes the wiki; the API reads the pushed page', async () => {
      const c = dir();
      ok(await g(['clone', '-q', sshUrl('docs'), c], undefined, sshEnv(aliceKey)));
      fs.writeFileSync(path.join(c, 'Over-Ssh.md'), 'pushed over ssh');
      ok(await g(['add', '.'], c));
      ok(await g(['commit', '-q', '-m', 'ssh page'], c));
      ok(await g(['push', '-q', 'origin', 'main'], c, sshEnv(aliceKey)));
      const page = await alice.api.repos.repoGetWikiPage('alice', 'docs', 'Over-Ssh');
      expect(unb64(page.data.content_base64)).to.equal('pushed over ssh');
    });

    it('creates a missing wiki for a writer who clones it, then takes the first push', async () => {
      await newRepo('sshfresh');
      const c = dir();
      const clone = ok(await g(['clone', sshUrl('sshfresh'), c], undefined, sshEnv(aliceKey)));
      expect(clone.stderr).to.contain('empty repository');
      fs.writeFileSync(path.join(c, 'Home.md'), 'ssh first');
      ok(await g(['add', '.'], c));
      ok(await g(['commit', '-q', '-m', 'first'], c));
      ok(await g(['push', '-q', 'origin', 'HEAD:main'], c, sshEnv(aliceKey)));
      expect(unb64((await alice.api.repos.repoGetWikiPage('alice', 'sshfresh', 'Home')).data.content_base64)).to.equal('ssh first');
    });

    it('applies the wiki unit: readers clone but cannot push, a disabled wiki is missing, no LFS for wikis', async () => {
      const before = await wikiRefs('docs');
      const c = dir();
      ok(await g(['clone', '-q', sshUrl('docs'), c], undefined, sshEnv(carolKey)));
      fs.writeFileSync(path.join(c, 'Carol.md'), 'no');
      ok(await g(['add', '.'], c));
      ok(await g(['commit', '-q', '-m', 'carol'], c));
      const push = await g(['push', 'origin', 'main'], c, sshEnv(carolKey));
      expect(push.code).to.not.equal(0);
      expect(push.stderr).to.contain('User permission denied');
      expect(await wikiRefs('docs')).to.equal(before);

      const nowiki = await g(['clone', sshUrl('nowiki'), dir()], undefined, sshEnv(aliceKey));
      expect(nowiki.code).to.not.equal(0);
      expect(nowiki.stderr).to.contain('repository does not exist');
      expect(fs.existsSync(wikiDir('nowiki'))).to.equal(false);

      const lfs = await runSsh(w.server.sshPort, aliceKey, ['git-lfs-authenticate', 'alice/docs.wiki', 'download']);
      expect(lfs.code).to.equal(1);
      expect(lfs.stderr).to.contain('LFS is not available for wikis');
    });

    it('lets deploy keys read (read-only) and write (read-write) the wiki of their repository', async () => {
      const ro = sshKeyFile('ed25519');
      const rw = sshKeyFile('ed25519');
      for (const [key, readOnly, title] of [[ro, true, 'ro'], [rw, false, 'rw']] as const) {
        expect((await alice.api.repos.repoCreateKey('alice', 'docs', { title, key: key.pub, read_only: readOnly })).status).to.equal(201);
      }
      const before = await wikiRefs('docs');
      const c = dir();
      ok(await g(['clone', '-q', sshUrl('docs'), c], undefined, sshEnv(ro)));
      fs.writeFileSync(path.join(c, 'Deployed.md'), 'by key');
      ok(await g(['add', '.'], c));
      ok(await g(['commit', '-q', '-m', 'deploy'], c));
      const denied = await g(['push', 'origin', 'main'], c, sshEnv(ro));
      expect(denied.code).to.not.equal(0);
      expect(await wikiRefs('docs')).to.equal(before);
      ok(await g(['push', '-q', 'origin', 'main'], c, sshEnv(rw)));
      expect(unb64((await alice.api.repos.repoGetWikiPage('alice', 'docs', 'Deployed')).data.content_base64)).to.equal('by key');
    });
  });

  describe('repository lifecycle', () => {
    it('moves the wiki with a rename and removes it with the repository', async () => {
      await newRepo('moving');
      await create('moving', 'Home', 'travels');
      const oldDir = wikiDir('moving');
      expect((await alice.api.repos.repoEdit('alice', 'moving', { name: 'moved' })).status).to.equal(200);
      expect(fs.existsSync(oldDir)).to.equal(false);
      expect(fs.existsSync(wikiDir('moved'))).to.equal(true);
      expect(unb64((await alice.api.repos.repoGetWikiPage('alice', 'moved', 'Home')).data.content_base64)).to.equal('travels');
      const c = dir();
      ok(await g(['clone', '-q', httpUrl(alice, 'moved'), c]));
      expect(fs.readFileSync(path.join(c, 'Home.md'), 'utf8')).to.equal('travels');

      expect((await alice.api.repos.repoDelete('alice', 'moved')).status).to.equal(204);
      expect(fs.existsSync(wikiDir('moved'))).to.equal(false);
      expect(fs.existsSync(serverRepoDir(w.server, 'alice', 'moved'))).to.equal(false);
    });
  });
});
