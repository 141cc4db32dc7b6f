/**
 * Branches, tags and releases pages against the real server through their forms: lists, creating
 * and deleting branches and tags (the default branch refused), releases written, edited and
 * deleted with their notes rendered, assets uploaded from a multipart form (refused without the
 * CSRF token) and downloaded; a reader sees no forms and is refused, and nothing changes.
 */
import { expect } from 'chai';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { apiRepo } from '../helpers/refs';
import { WebClient } from '../helpers/web';

describe('branch, tag and release pages', () => {
  let w: World;
  let alice: TestUser;
  let bob: TestUser;
  let a: WebClient;
  let b: WebClient;
  const api = (method: string, p: string, body?: unknown, u: TestUser = alice) => w.raw(method, `/repos/alice/proj${p}`, body, { token: u.token });
  const names = async (p: string) => ((await api('GET', p)).body as { name: string }[]).map((x) => x.name).sort();

  before(async () => {
    w = await startWorld();
    [alice, bob] = [await w.user('alice'), await w.user('bob')];
    await apiRepo(w, alice, 'proj');
    a = await WebClient.signedIn(w, alice);
    b = await WebClient.signedIn(w, bob);
  });
  after(async () => { await w?.stop(); });

  it('creates and deletes branches; refuses the default branch, a bad name and a reader', async () => {
    const page = await a.get('alice/proj/branches');
    expect(page.status).to.equal(200);
    expect(page.text).to.include(' Branches</a>').and.include('<strong>main</strong>').and.include('action="/alice/proj/branches/new"');
    expect((await a.form('alice/proj/branches/new', { name: 'feature/x', from: 'main' })).location).to.equal('/alice/proj/branches');
    expect(await names('/branches')).to.deep.equal(['feature/x', 'main']);
    for (const [fields, words] of [[{ name: 'bad..name', from: 'main' }, 'BranchName'], [{ name: 'feature/x', from: 'main' }, 'already exists']] as const) {
      await a.form('alice/proj/branches/new', fields);
      expect((await a.get('alice/proj/branches')).text).to.match(new RegExp(`class="flash error"[^>]*>[^<]*${words}`));
    }
    await a.form('alice/proj/branches/delete', { name: 'main' });
    expect((await a.get('alice/proj/branches')).text).to.match(/class="flash error"/);
    // a branch one commit ahead says so and offers a pull request; a branch level with main offers none
    expect((await w.raw('POST', '/repos/alice/proj/contents/ahead.txt', { content: Buffer.from('ahead\n').toString('base64'), branch: 'feature/x', message: 'Go ahead' }, { token: alice.token })).status).to.equal(201);
    const counted = await a.get('alice/proj/branches');
    expect(counted.text).to.match(/<span class="behind">0 behind<\/span><span class="ahead">1 ahead<\/span>/);
    expect(counted.text).to.include('href="/alice/proj/compare/main...feature/x"');
    const seen = await b.get('alice/proj/branches');
    expect(seen.text).to.include('feature/x').and.not.include('action="/alice/proj/branches/delete"');
    await b.form('alice/proj/branches/delete', { name: 'feature/x' });
    expect(await names('/branches')).to.deep.equal(['feature/x', 'main']);
    await a.form('alice/proj/branches/delete', { name: 'feature/x' });
    expect(await names('/branches')).to.deep.equal(['main']);
  });

  it('creates and deletes tags, with archive links', async () => {
    await a.get('alice/proj/tags');
    await a.form('alice/proj/tags/new', { name: 'v0.1', target: 'main', message: 'first <cut>' });
    const page = await a.get('alice/proj/tags');
    expect(page.text).to.include('<strong>v0.1</strong>').and.include('first &lt;cut&gt;').and.include('href="/alice/proj/archive/v0.1.tar.gz"');
    expect(await names('/tags')).to.deep.equal(['v0.1']);
    await b.get('alice/proj/tags');
    await b.form('alice/proj/tags/delete', { name: 'v0.1' });
    expect(await names('/tags')).to.deep.equal(['v0.1']);
    await a.form('alice/proj/tags/delete', { name: 'v0.1' });
    expect(await names('/tags')).to.deep.equal([]);
  });

  it('publishes, edits and deletes a release with its notes rendered; refuses a reader', async () => {
    expect((await b.get('alice/proj/releases/new')).status).to.equal(404);
    const form = await a.get('alice/proj/releases/new');
    expect(form.status).to.equal(200);
    const made = await a.form('alice/proj/releases/new', { tag_name: 'v1.0', target: 'main', title: 'One <b>', content: '**bold** <script>alert(1)</script>', prerelease: 'on' });
    expect(made.location).to.equal('/alice/proj/releases');
    const rel = (await api('GET', '/releases')).body[0];
    expect(rel).to.include({ tag_name: 'v1.0', name: 'One <b>', prerelease: true, draft: false });
    const list = await a.get('alice/proj/releases');
    expect(list.text).to.include('One &lt;b&gt;').and.include('<strong>bold</strong>').and.not.include('<script>alert');
    expect((await a.get('alice/proj/releases/tag/v1.0')).text).to.include('One &lt;b&gt;');
    await a.get(`alice/proj/releases/edit/${rel.id}`);
    await a.form(`alice/proj/releases/edit/${rel.id}`, { tag_name: 'v1.0', title: 'One', content: 'notes' });
    expect((await api('GET', `/releases/${rel.id}`)).body).to.include({ name: 'One', body: 'notes', prerelease: false });
    await a.form('alice/proj/releases/new', { tag_name: 'v1.0', title: 'again' });
    expect((await a.get('alice/proj/releases')).text).to.match(/class="flash error"/);
    await b.get('alice/proj/releases');
    await b.form(`alice/proj/releases/${rel.id}/delete`, {});
    expect((await api('GET', '/releases')).body).to.have.length(1);
  });

  it('uploads an asset from the form, downloads it, refuses a forged upload, and deletes it', async () => {
    const rel = (await api('GET', '/releases')).body[0];
    await a.get('alice/proj/releases');
    const up = await a.upload(`alice/proj/releases/${rel.id}/assets`, { field: 'attachment', name: 'notes.txt', content: 'hello asset' });
    expect(up.status, up.text).to.equal(303);
    const assets = (await api('GET', `/releases/${rel.id}/assets`)).body;
    expect(assets.map((x: { name: string }) => x.name)).to.deep.equal(['notes.txt']);
    const page = await a.get('alice/proj/releases');
    expect(page.text).to.include('notes.txt is uploaded.').and.include(`href="${assets[0].browser_download_url}"`);
    const got = await fetch(assets[0].browser_download_url);
    expect(await got.text()).to.equal('hello asset');
    await a.upload(`alice/proj/releases/${rel.id}/assets`, { field: 'attachment', name: 'forged.txt', content: 'x' }, {}, { csrf: null });
    await a.upload(`alice/proj/releases/${rel.id}/assets`, { field: 'attachment', name: 'forged2.txt', content: 'x' }, {}, { csrf: 'wrong' });
    await b.get('alice/proj/releases');
    await b.upload(`alice/proj/releases/${rel.id}/assets`, { field: 'attachment', name: 'reader.txt', content: 'x' });
    expect((await api('GET', `/releases/${rel.id}/assets`)).body).to.have.length(1);
    await a.get('alice/proj/releases');
    await a.form(`alice/proj/releases/${rel.id}/assets/${assets[0].id}/delete`, {});
    expect((await api('GET', `/releases/${rel.id}/assets`)).body).to.have.length(0);
    await a.form(`alice/proj/releases/${rel.id}/delete`, {});
    expect((await api('GET', '/releases')).body).to.have.length(0);
  });
});
