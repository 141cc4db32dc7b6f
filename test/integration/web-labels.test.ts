/**
 * The labels and milestones pages against the real server: a writer creates, edits and deletes
 * labels and milestones through the forms (checked through the API), starts from a label set,
 * closes and reopens milestones; a reader sees no write controls and each of their posts is
 * refused and changes nothing; bad input is refused with its message flashed; a private
 * repository's pages answer 404 to an outsider; an organization's labels show apart, read-only.
 */
import { expect } from 'chai';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { WebClient } from '../helpers/web';

describe('labels and milestones pages in the browser', () => {
  let w: World;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  let a: WebClient;
  let b: WebClient;
  let c: WebClient;
  const api = async (method: string, p: string, body?: unknown, as: TestUser = alice) => w.raw(method, p, body, { token: as.token });
  const labels = async (repo = 'alice/proj') => (await api('GET', `/repos/${repo}/labels`)).body as { id: number; name: string; color: string; description: string; exclusive: boolean; is_archived: boolean }[];
  const milestones = async (repo = 'alice/proj') => (await api('GET', `/repos/${repo}/milestones?state=all`)).body as { id: number; title: string; description: string; state: string; due_on: string | null; open_issues: number; closed_issues: number }[];
  /** The page after a form's redirect, with the flash the form left. */
  const follow = async (client: WebClient, res: { status: number; location: string | null }) => {
    expect(res.status).to.equal(303);
    return client.get(res.location!);
  };

  before(async () => {
    w = await startWorld();
    [alice, bob, carol] = [await w.user('alice'), await w.user('bob'), await w.user('carol')];
    for (const [name, priv] of [['proj', false], ['sets', false], ['secret', true]] as const) {
      expect((await api('POST', '/user/repos', { name, auto_init: true, private: priv })).status).to.equal(201);
    }
    expect((await api('PUT', '/repos/alice/proj/collaborators/carol', { permission: 'read' })).status).to.equal(204);
    [a, b, c] = [await WebClient.signedIn(w, alice), await WebClient.signedIn(w, bob), await WebClient.signedIn(w, carol)];
  });
  after(async () => { await w?.stop(); });

  it('links the labels and milestones pages from the issue list', async () => {
    const list = await b.get('alice/proj/issues');
    expect(list.status).to.equal(200);
    expect(list.text).to.include('href="/alice/proj/labels"').and.include('href="/alice/proj/milestones"');
  });

  it('offers a label set while there are no labels, and creates its labels', async () => {
    const empty = await a.get('alice/sets/labels');
    expect(empty.status).to.equal(200);
    expect(empty.text).to.include('action="/alice/sets/labels/initialize"').and.include('<option value="Default">').and.include('<option value="Advanced">');
    const unknown = await follow(a, await a.form('alice/sets/labels/initialize', { template_name: 'Nope' }));
    expect(unknown.text).to.match(/class="flash error"[^>]*>[^<]*label template does not exist/);
    expect(await labels('alice/sets')).to.deep.equal([]);
    const used = await follow(a, await a.form('alice/sets/labels/initialize', { template_name: 'Default' }));
    expect(used.text).to.include('class="flash success"');
    const made = await labels('alice/sets');
    expect(made.map((l) => l.name)).to.include('bug').and.include('enhancement');
    expect(used.text).to.not.include('labels/initialize');
    for (const l of made) expect(used.text).to.include(`action="/alice/sets/labels/${l.id}/edit"`);
  });

  it('creates, edits and deletes a label through the forms', async () => {
    await a.get('alice/proj/labels');
    const created = await follow(a, await a.form('alice/proj/labels/new', { name: 'kind/bug', color: '#D73A4A', description: 'Something is broken', exclusive: 'on' }));
    expect(created.text).to.include('is created.');
    const [l] = await labels();
    expect(l).to.include({ name: 'kind/bug', color: 'd73a4a', description: 'Something is broken', exclusive: true, is_archived: false });
    // drawn in its colour from the page's style block, its scope apart, its description, and the link to its issues
    expect(created.text).to.include('<span class="tag issue-label lc-d73a4a" title="Something is broken"><span class="scope">kind</span><span class="item">bug</span></span>');
    expect(created.text).to.match(/<style nonce="[^"]+">[^<]*\.lc-d73a4a\{background:#d73a4a;color:#[0f]{6}\}/);
    expect(created.text).to.not.match(/ style="/);
    expect(created.text).to.include(`href="/alice/proj/issues?labels=${l.id}"`).and.include('0 open issues');

    const edited = await follow(a, await a.form(`alice/proj/labels/${l.id}/edit`, { name: 'defect', color: '#00aa00', description: 'Broken' }));
    expect(edited.text).to.include('The label is saved.');
    expect((await labels())[0]).to.include({ id: l.id, name: 'defect', color: '00aa00', description: 'Broken', exclusive: false });

    const deleted = await follow(a, await a.form(`alice/proj/labels/${l.id}/delete`, {}));
    expect(deleted.text).to.include('The label is deleted.');
    expect(await labels()).to.deep.equal([]);
  });

  it('refuses a bad colour or an empty name with the reason, and changes nothing', async () => {
    await a.get('alice/proj/labels');
    const badColour = await follow(a, await a.form('alice/proj/labels/new', { name: 'x', color: 'nothex' }));
    expect(badColour.text).to.match(/class="flash error"[^>]*>bad color code/);
    const noName = await follow(a, await a.form('alice/proj/labels/new', { name: '  ', color: '#112233' }));
    expect(noName.text).to.match(/class="flash error"[^>]*>A label needs a name\./);
    expect(await labels()).to.deep.equal([]);
    const kept = (await api('POST', '/repos/alice/proj/labels', { name: 'keep', color: '#123456' })).body as { id: number };
    await follow(a, await a.form(`alice/proj/labels/${kept.id}/edit`, { name: 'keep2', color: '#12' }));
    await follow(a, await a.form(`alice/proj/labels/${kept.id}/edit`, { name: '', color: '#654321' }));
    expect((await labels())[0]).to.include({ name: 'keep', color: '123456' });
    expect((await api('DELETE', `/repos/alice/proj/labels/${kept.id}`)).status).to.equal(204);
  });

  it('counts the open issues of a label', async () => {
    const l = (await api('POST', '/repos/alice/proj/labels', { name: 'counted', color: '#abcdef' })).body as { id: number };
    const issue = (await api('POST', '/repos/alice/proj/issues', { title: 'Counted one', labels: [l.id] })).body as { number: number };
    expect((await b.get('alice/proj/labels')).text).to.include(`href="/alice/proj/issues?labels=${l.id}"><svg`).and.include('1 open issue<');
    expect((await api('PATCH', `/repos/alice/proj/issues/${issue.number}`, { state: 'closed' })).status).to.equal(201);
    expect((await b.get('alice/proj/labels')).text).to.include('0 open issues');
    expect((await api('DELETE', `/repos/alice/proj/labels/${l.id}`)).status).to.equal(204);
  });

  it('shows readers no write controls and refuses their posts without a change', async () => {
    const l = (await api('POST', '/repos/alice/proj/labels', { name: 'mine', color: '#111111' })).body as { id: number };
    const m = (await api('POST', '/repos/alice/proj/milestones', { title: 'Mine' })).body as { id: number };
    for (const reader of [b, c]) {
      const lp = await reader.get('alice/proj/labels');
      expect(lp.status).to.equal(200);
      expect(lp.text).to.include('mine').and.not.include('New label').and.not.include('/labels/new').and.not.include(`/labels/${l.id}/edit`).and.not.include('/delete"');
      const mp = await reader.get('alice/proj/milestones');
      expect(mp.status).to.equal(200);
      expect(mp.text).to.include('Mine').and.not.include('New milestone').and.not.include(`/milestones/${m.id}/`);
      const posts: [string, Record<string, string>][] = [
        ['alice/proj/labels/new', { name: 'evil', color: '#000000' }],
        [`alice/proj/labels/${l.id}/edit`, { name: 'evil', color: '#000000' }],
        [`alice/proj/labels/${l.id}/delete`, {}],
        ['alice/proj/labels/initialize', { template_name: 'Default' }],
        ['alice/proj/milestones/new', { title: 'Evil' }],
        [`alice/proj/milestones/${m.id}/edit`, { title: 'Evil' }],
        [`alice/proj/milestones/${m.id}/close`, {}],
        [`alice/proj/milestones/${m.id}/delete`, {}],
      ];
      for (const [path, fields] of posts) {
        const after = await follow(reader, await reader.form(path, fields));
        expect(after.text, path).to.match(/class="flash error"[^>]*>user should have a permission to write to a repo/);
      }
    }
    expect((await labels()).map((x) => x.name)).to.deep.equal(['mine']);
    expect((await milestones()).map((x) => [x.title, x.state])).to.deep.equal([['Mine', 'open']]);
    // signed out (no session, so no token), a post is refused and changes nothing
    const anon = new WebClient(w);
    await anon.get('alice/proj/labels');
    expect((await anon.form(`alice/proj/labels/${l.id}/delete`, {})).status).to.equal(403);
    expect((await labels()).map((x) => x.name)).to.deep.equal(['mine']);
    expect((await api('DELETE', `/repos/alice/proj/labels/${l.id}`)).status).to.equal(204);
    expect((await api('DELETE', `/repos/alice/proj/milestones/${m.id}`)).status).to.equal(204);
  });

  it('answers 404 to an outsider for a private repository\'s pages and posts', async () => {
    const l = (await api('POST', '/repos/alice/secret/labels', { name: 'hidden', color: '#222222' })).body as { id: number };
    for (const p of ['alice/secret/labels', 'alice/secret/milestones']) {
      expect((await b.get(p)).status, p).to.equal(404);
      expect((await new WebClient(w).get(p)).status, p).to.equal(404);
      expect((await a.get(p)).status, p).to.equal(200);
    }
    await b.get('alice/proj/labels');
    expect((await b.form('alice/secret/labels/new', { name: 'evil', color: '#000000' })).status).to.equal(404);
    expect((await b.form(`alice/secret/labels/${l.id}/delete`, {})).status).to.equal(404);
    expect((await b.form('alice/secret/milestones/new', { title: 'Evil' })).status).to.equal(404);
    expect((await labels('alice/secret')).map((x) => x.name)).to.deep.equal(['hidden']);
    expect(await milestones('alice/secret')).to.deep.equal([]);
  });

  it('creates, edits, closes, reopens and deletes a milestone through the forms', async () => {
    await a.get('alice/proj/milestones');
    const created = await follow(a, await a.form('alice/proj/milestones/new', { title: 'Version 1', content: 'Ship **soon**', deadline: '2001-02-03' }));
    expect(created.text).to.include('The milestone is created.');
    const [m] = await milestones();
    expect(m).to.include({ title: 'Version 1', description: 'Ship **soon**', state: 'open' });
    expect(new Date(m.due_on!).toISOString()).to.equal('2001-02-03T23:59:59.000Z');
    // the description as Markdown, the due date past and so overdue, the links to its issues
    expect(created.text).to.include('<strong>soon</strong>').and.include('class="milestone-due overdue"').and.include('datetime="2001-02-03T23:59:59.000Z"');
    expect(created.text).to.include(`href="/alice/proj/issues?state=open&milestone=${m.id}"`).and.include('1 Open').and.include('0 Closed');
    expect(created.text).to.include('value="2001-02-03"');

    const edited = await follow(a, await a.form(`alice/proj/milestones/${m.id}/edit`, { title: 'Version 1.0', content: 'Later', deadline: '' }));
    expect(edited.text).to.include('The milestone is saved.').and.include('No due date');
    expect((await milestones())[0]).to.include({ title: 'Version 1.0', description: 'Later', due_on: null });

    const closed = await follow(a, await a.form(`alice/proj/milestones/${m.id}/close`, { state: 'open' }));
    expect(closed.text).to.include('The milestone is closed.').and.include('0 Open').and.include('1 Closed').and.not.include('Version 1.0</a>');
    expect((await milestones())[0].state).to.equal('closed');
    const closedTab = await a.get('alice/proj/milestones?state=closed');
    expect(closedTab.text).to.include('Version 1.0</a>').and.include(`action="/alice/proj/milestones/${m.id}/open"`);
    const reopened = await follow(a, await a.form(`alice/proj/milestones/${m.id}/open`, { state: 'closed' }));
    expect(reopened.text).to.include('The milestone is reopened.').and.not.include('Version 1.0</a>');
    expect((await milestones())[0]).to.include({ state: 'open', description: 'Later' });

    const deleted = await follow(a, await a.form(`alice/proj/milestones/${m.id}/delete`, {}));
    expect(deleted.text).to.include('The milestone is deleted.').and.include('0 Open');
    expect(await milestones()).to.deep.equal([]);
  });

  it('refuses a milestone without a title or with a bad date, and changes nothing', async () => {
    await a.get('alice/proj/milestones');
    const noTitle = await follow(a, await a.form('alice/proj/milestones/new', { title: ' ', deadline: '2030-01-01' }));
    expect(noTitle.text).to.match(/class="flash error"[^>]*>A milestone needs a title\./);
    const badDate = await follow(a, await a.form('alice/proj/milestones/new', { title: 'Dated', deadline: 'tomorrow' }));
    expect(badDate.text).to.match(/class="flash error"[^>]*>The due date must be a date/);
    expect(await milestones()).to.deep.equal([]);
    const m = (await api('POST', '/repos/alice/proj/milestones', { title: 'Kept', due_on: '2030-05-06T23:59:59Z' })).body as { id: number };
    await follow(a, await a.form(`alice/proj/milestones/${m.id}/edit`, { title: 'Changed', deadline: '2030-13-45' }));
    await follow(a, await a.form(`alice/proj/milestones/${m.id}/edit`, { title: '', deadline: '' }));
    expect((await milestones())[0]).to.include({ title: 'Kept', due_on: (await api('GET', `/repos/alice/proj/milestones/${m.id}`)).body.due_on });
    expect((await milestones())[0].due_on).to.not.equal(null);
    expect((await api('DELETE', `/repos/alice/proj/milestones/${m.id}`)).status).to.equal(204);
  });

  it('shows the progress once an issue is closed, and sorts as Gitea does', async () => {
    const made: Record<string, number> = {};
    for (const [title, due] of [['Near', '2030-01-01'], ['Far', '2040-01-01'], ['Someday', ''], ['Busy', '2035-01-01']]) {
      made[title] = ((await api('POST', '/repos/alice/proj/milestones', { title, ...(due ? { due_on: `${due}T23:59:59Z` } : {}) })).body as { id: number }).id;
    }
    const numbers: number[] = [];
    for (const t of ['one', 'two', 'three']) numbers.push(((await api('POST', '/repos/alice/proj/issues', { title: t, milestone: made.Busy })).body as { number: number }).number);
    expect((await api('PATCH', `/repos/alice/proj/issues/${numbers[0]}`, { state: 'closed' })).status).to.equal(201);
    const near = (await api('POST', '/repos/alice/proj/issues', { title: 'near one', milestone: made.Near })).body as { number: number };
    expect((await api('PATCH', `/repos/alice/proj/issues/${near.number}`, { state: 'closed' })).status).to.equal(201);

    const pageText = (await b.get('alice/proj/milestones')).text;
    expect(pageText).to.include('<progress value="33" max="100" aria-label="Busy: 33% complete">').and.include('<progress value="100" max="100" aria-label="Near: 100% complete">');
    expect(pageText).to.include(' 2 open</a>').and.include(' 1 closed</a>');
    const order = async (q: string) => [...(await b.get(`alice/proj/milestones${q}`)).text.matchAll(/<h3 class="milestone-title">.*?<a [^>]+>([^<]+)<\/a>/g)].map((x) => x[1]);
    // the closest due date first, the milestones without one last (Gitea keeps them at year 9999)
    expect(await order('')).to.deep.equal(['Near', 'Busy', 'Far', 'Someday']);
    expect(await order('?sort=furthestduedate')).to.deep.equal(['Someday', 'Far', 'Busy', 'Near']);
    expect((await order('?sort=mostissues'))[0]).to.equal('Busy');
    expect((await order('?sort=mostcomplete'))[0]).to.equal('Near');
    expect((await order('?sort=leastcomplete')).slice(-1)).to.deep.equal(['Near']);
    expect(await order('?sort=constructor')).to.deep.equal(['Near', 'Busy', 'Far', 'Someday']);
    expect(await order('?q=ea')).to.deep.equal(['Near']);
  });

  it('lists an organization\'s labels apart and read-only', async () => {
    expect((await api('POST', '/orgs', { username: 'acme' })).status).to.equal(201);
    expect((await api('POST', '/orgs/acme/repos', { name: 'tools' })).status).to.equal(201);
    const org = (await api('POST', '/orgs/acme/labels', { name: 'team/web', color: '#0e8a16', exclusive: true, description: 'The web team' })).body as { id: number };
    const own = (await api('POST', '/repos/acme/tools/labels', { name: 'local', color: '#fbca04' })).body as { id: number };
    await api('POST', '/repos/acme/tools/issues', { title: 'Web thing', labels: [org.id] });
    const p = await a.get('acme/tools/labels');
    expect(p.status).to.equal(200);
    expect(p.text).to.include('Labels of the organization acme').and.include('<span class="scope">team</span><span class="item">web</span>');
    // an unknown sort (even one an object's prototype knows) lists by name, on the page and in the API
    expect((await a.get('acme/tools/labels?sort=constructor')).status).to.equal(200);
    expect((await api('GET', '/repos/acme/tools/labels?sort=constructor')).status).to.equal(200);
    expect((await api('GET', '/repos/acme/tools/milestones?sort=constructor')).status).to.equal(200);
    expect(p.text).to.include(`id="org-label-${org.id}"`).and.include(`action="/acme/tools/labels/${own.id}/edit"`).and.not.include(`/labels/${org.id}/edit`);
    expect(p.text.slice(p.text.indexOf(`id="org-label-${org.id}"`))).to.include('1 open issue<');
    // the organization's label cannot be changed through the repository
    const refused = await follow(a, await a.form(`acme/tools/labels/${org.id}/edit`, { name: 'hijacked', color: '#000000' }));
    expect(refused.text).to.match(/class="flash error"[^>]*>label does not exist/);
    expect((await api('GET', '/orgs/acme/labels')).body[0]).to.include({ name: 'team/web', color: '0e8a16' });
  });
});
