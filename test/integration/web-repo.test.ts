/**
 * Repository pages against the real server, as a browser's HTTP side sees them: the home page with
 * its README rendered and clone URLs, folders and files at a branch (highlighted source, rendered
 * Markdown with a source view, images through /media), the history and a commit's diff, explore and
 * profiles; private repositories answer 404 to others and open with the owner's session (raw links
 * too); text users wrote comes back escaped.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { GitTool, apiRepo } from '../helpers/refs';
import { WebClient } from '../helpers/web';

const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');

describe('repository pages', () => {
  let w: World;
  let alice: TestUser;
  let bob: TestUser;
  let g: GitTool;
  let head = '';
  const anon = () => new WebClient(w);

  before(async () => {
    w = await startWorld();
    [alice, bob] = [await w.user('alice'), await w.user('bob')];
    g = new GitTool(w);
    await apiRepo(w, alice, 'proj', { auto_init: false, description: 'A <script>alert(1)</script> project' });
    await w.raw('PUT', '/repos/alice/proj/topics', { topics: ['forge', 'demo'] }, { token: alice.token });
    const dir = await g.clone(alice, 'alice', 'proj');
    await g.commit(dir, 'README.md', '# Project Title\n\nSee #1 and [the guide](docs/guide.md).\n\n<img src=x onerror=alert(1)>\n');
    fs.mkdirSync(path.join(dir, 'docs'), { recursive: true });
    fs.mkdirSync(path.join(dir, 'src'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'docs', 'guide.md'), '## Guide\n\n![logo](../logo.png)\n');
    fs.writeFileSync(path.join(dir, 'src', 'app.ts'), 'export function add(a: number, b: number): number {\n  return a + b; // <b>sum</b>\n}\n');
    fs.writeFileSync(path.join(dir, 'logo.png'), PNG);
    fs.writeFileSync(path.join(dir, '<b>odd<b>.txt'), 'odd name\n');
    await g.ok(['add', '-A'], dir);
    await g.ok(['commit', '-q', '-m', 'Add the guide, the app and a logo\n\nWith a body line.'], dir);
    await g.ok(['push', '-q', 'origin', 'HEAD:refs/heads/main'], dir);
    head = (await g.ok(['rev-parse', 'HEAD'], dir)).trim();
    await apiRepo(w, alice, 'hidden', { auto_init: true, private: true });
  });
  after(async () => { await w?.stop(); });

  it('the home page lists the root, renders the README, shows clone URLs, topics and the escaped description', async () => {
    const res = await anon().get('alice/proj');
    expect(res.status, res.text).to.equal(200);
    expect(res.text).to.include('<h1 id="user-content-project-title">Project Title</h1>');
    expect(res.text).to.include(`href="${w.server.url}alice/proj/issues/1" class="ref-issue"`);
    expect(res.text).to.include(`href="${w.server.url}alice/proj/src/branch/main/docs/guide.md"`);
    expect(res.text).not.to.include('onerror');
    expect(res.text).to.include(`value="${w.server.url}alice/proj.git"`);
    expect(res.text).to.match(/value="ssh:\/\/git@[^"]+\/alice\/proj\.git"/);
    expect(res.text).to.include('A &lt;script&gt;alert(1)&lt;/script&gt; project');
    expect(res.text).to.include('>forge</a>');
    for (const name of ['docs', 'src', 'README.md', 'logo.png']) expect(res.text).to.include(`>${name}</a>`);
    expect(res.text).to.include('&lt;b&gt;odd&lt;b&gt;.txt').and.not.include('<b>odd<b>');
    // why: folders come first.
    expect(res.text.indexOf('>docs</a>')).to.be.lessThan(res.text.indexOf('>README.md</a>'));
  });

  it('shows a source file highlighted with line numbers, and a Markdown file rendered or as source', async () => {
    const code = await anon().get('alice/proj/src/branch/main/src/app.ts');
    expect(code.status).to.equal(200);
    expect(code.text).to.include('<span class="hljs-keyword">export</span>');
    expect(code.text).to.include('&lt;b&gt;sum&lt;/b&gt;');
    expect(code.text).to.include('id="L3"').and.not.include('id="L4"');
    expect(code.text).to.include('href="/alice/proj/raw/branch/main/src/app.ts"');
    const md = await anon().get('alice/proj/src/branch/main/docs/guide.md');
    expect(md.text).to.include('<h2 id="user-content-guide">Guide</h2>');
    expect(md.text).to.include(`src="${w.server.url}alice/proj/media/branch/main/logo.png"`);
    const src = await anon().get('alice/proj/src/branch/main/docs/guide.md?display=source');
    expect(src.text).to.include('## Guide').and.not.include('<h2 id="user-content-guide">');
    const img = await anon().get('alice/proj/src/branch/main/logo.png');
    expect(img.text).to.include('<img src="/alice/proj/media/branch/main/logo.png"');
    const dir = await anon().get('alice/proj/src/branch/main/docs');
    expect(dir.text).to.include('>guide.md</a>');
    expect((await anon().get(`alice/proj/src/commit/${head}/src/app.ts`)).status).to.equal(200);
  });

  it('answers a missing path, branch or repository with the 404 page', async () => {
    for (const p of ['alice/proj/src/branch/main/nope.txt', 'alice/proj/src/branch/nope/README.md', 'alice/nope', 'nobody']) {
      const res = await anon().get(p);
      expect(res.status, p).to.equal(404);
      expect(res.text, p).to.include('<h1>404</h1>');
    }
  });

  it('lists the history and shows a commit with its diff', async () => {
    const list = await anon().get('alice/proj/commits/branch/main');
    expect(list.status).to.equal(200);
    expect(list.text).to.include('2 commits on main');
    expect(list.text).to.include(`href="/alice/proj/commit/${head}"`);
    const c = await anon().get(`alice/proj/commit/${head}`);
    expect(c.status).to.equal(200);
    expect(c.text).to.include('Add the guide, the app and a logo').and.include('With a body line.');
    expect(c.text).to.include('src/app.ts <span class="badge">added</span>');
    expect(c.text).to.include('<code>+  return a + b; // &lt;b&gt;sum&lt;/b&gt;</code>');
    const fileHistory = await anon().get('alice/proj/commits/branch/main/src/app.ts');
    expect(fileHistory.text).to.include('1 commits on main touching src/app.ts');
  });

  it('keeps a private repository to those who may read it; the owner browses and downloads with the session', async () => {
    expect((await anon().get('alice/hidden')).status).to.equal(404);
    const b = new WebClient(w);
    await b.signIn('bob', bob.password);
    expect((await b.get('alice/hidden')).status).to.equal(404);
    expect((await b.get('alice/hidden/raw/branch/main/README.md')).status).to.equal(404);
    const a = new WebClient(w);
    await a.signIn('alice', alice.password);
    const home = await a.get('alice/hidden');
    expect(home.status).to.equal(200);
    expect(home.text).to.include('<span class="badge">Private</span>');
    const raw = await a.get('alice/hidden/raw/branch/main/README.md');
    expect(raw.status).to.equal(200);
    expect(raw.text).to.include('# hidden');
  });

  it('explore lists what the caller may see, with search; a profile lists its repositories', async () => {
    const all = await anon().get('explore/repos');
    expect(all.text).to.include('>alice/proj</a>').and.not.include('alice/hidden');
    const found = await anon().get('explore/repos?q=pro');
    expect(found.text).to.include('>alice/proj</a>');
    const none = await anon().get('explore/repos?q=zzz');
    expect(none.text).to.include('No repositories.');
    const profile = await anon().get('alice');
    expect(profile.status).to.equal(200);
    expect(profile.text).to.include('>alice/proj</a>').and.not.include('alice/hidden');
    const a = new WebClient(w);
    await a.signIn('alice', alice.password);
    expect((await a.get('alice')).text).to.include('>alice/hidden</a>');
  });
});
