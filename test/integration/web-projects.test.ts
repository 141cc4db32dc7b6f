/**
 * Project boards through their pages and forms on the real server (issue 44): the projects unit's
 * mode in the API's repository get and edit; a project made from a template, its columns added,
 * recoloured, reordered and deleted (cards to the default column, which cannot be deleted); issues
 * put on it from their sidebars and moved by the page script's JSON and by the card's form, with
 * their timeline entries; every refusal (a reader, bad input, a card moved into another project's
 * column, an owner's project out of a repository's mode) shown to change nothing; an owner's board
 * never showing a card of a repository the viewer cannot read, for a user and for an organization
 * whose team plans with it; and the board page sending the same number of statements to the
 * database for 3 cards as for 30 (the JSON access line's count).
 */
import { expect } from 'chai';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { apiRepo, waitFor } from '../helpers/refs';
import { WebClient } from '../helpers/web';

/** The columns of a board page in order, each with its title and card ids in order. */
function boardOf(html: string): { id: number; title: string; cards: number[] }[] {
  return html.split('<section class="project-column').slice(1).map((part) => ({
    id: Number(/data-column="(\d+)"/.exec(part)![1]),
    title: /class="project-column-title"[^>]*>([^<]*)</.exec(part)![1],
    cards: [...part.matchAll(/<li class="project-card[^"]*" id="card-(\d+)"/g)].map((m) => Number(m[1])),
  }));
}

describe('project boards', function () {
  this.timeout(120_000);
  let w: World;
  let alice: TestUser;
  let bob: TestUser;
  let dave: TestUser;
  let a: WebClient;
  let b: WebClient;
  let d: WebClient;
  let roadmap: number;
  const issueIds: number[] = [];
  const api = (method: string, p: string, body?: unknown, u: TestUser = alice) => w.raw(method, p, body, { token: u.token });
  const board = async (c: WebClient, path: string) => boardOf((await c.get(path)).text);
  const flashError = async (c: WebClient, path: string) => /class="flash error"[^>]*>([^<]*)</.exec((await c.get(path)).text)?.[1] ?? '';
  const timelineTypes = async (repo: string, n: number) => ((await api('GET', `/repos/${repo}/issues/${n}/timeline`)).body as { type: string }[]).map((e) => e.type);

  before(async () => {
    w = await startWorld({ env: { FORGE__LOG__LEVEL: 'info', FORGE__LOG__FORMAT: 'json' } });
    [alice, bob, dave] = [await w.user('alice'), await w.user('bob'), await w.user('dave')];
    await apiRepo(w, alice, 'proj');
    await apiRepo(w, alice, 'secret', { auto_init: true, private: true });
    for (const title of ['first', 'second', 'third']) issueIds.push((await api('POST', '/repos/alice/proj/issues', { title })).body.id);
    await api('POST', '/repos/alice/secret/issues', { title: 'hidden plan' });
    a = await WebClient.signedIn(w, alice);
    b = await WebClient.signedIn(w, bob);
    d = await WebClient.signedIn(w, dave);
  });
  after(async () => { await w?.stop(); });

  it('carries projects_mode in the repository API, refusing an unknown mode', async () => {
    expect((await api('GET', '/repos/alice/proj')).body).to.include({ has_projects: true, projects_mode: 'all' });
    expect((await api('PATCH', '/repos/alice/proj', { projects_mode: 'owner' })).body).to.include({ has_projects: true, projects_mode: 'owner' });
    const bad = await api('PATCH', '/repos/alice/proj', { projects_mode: 'everything' });
    expect(bad.status).to.equal(422);
    expect(bad.body.message).to.match(/ProjectsMode/);
    expect((await api('GET', '/repos/alice/proj')).body.projects_mode).to.equal('owner');
    expect((await api('PATCH', '/repos/alice/proj', { has_projects: false })).body).to.include({ has_projects: false, projects_mode: 'all' });
    expect((await api('PATCH', '/repos/alice/proj', { has_projects: true, projects_mode: 'repo' })).body).to.include({ has_projects: true, projects_mode: 'repo' });
    expect((await api('PATCH', '/repos/alice/proj', { projects_mode: 'all' })).body.projects_mode).to.equal('all');
  });

  it('makes a board from the basic kanban template; a reader can neither make nor change one', async () => {
    await a.get('alice/proj/projects/new');
    const made = await a.form('alice/proj/projects/new', { title: 'Roadmap <b>', content: 'The **plan**', template_type: '1' });
    expect(made.status).to.equal(303);
    roadmap = Number(/\/projects\/(\d+)$/.exec(made.location!)![1]);
    const page = await a.get(`alice/proj/projects/${roadmap}`);
    expect(page.text).to.include('Roadmap &lt;b&gt;').and.include('<strong>plan</strong>');
    expect(boardOf(page.text).map((c) => c.title)).to.deep.equal(['Backlog', 'To Do', 'In Progress', 'Done']);
    const empty = await a.form('alice/proj/projects/new', { title: '  ', template_type: '1' });
    expect(empty.status).to.equal(422);
    expect(empty.text).to.include('A project needs a title.');

    expect((await b.get('alice/proj/projects')).text).to.include('Roadmap &lt;b&gt;').and.not.include('New project');
    expect((await b.get('alice/proj/projects/new')).status).to.equal(404);
    const refused = await b.form('alice/proj/projects/new', { title: 'Mine', template_type: '0' });
    expect(refused.status).to.equal(403);
    await b.form(`alice/proj/projects/${roadmap}`, { title: 'Sneaky', color: '#ffffff' });
    expect(await flashError(b, `alice/proj/projects/${roadmap}`)).to.match(/authorized/);
    await b.form(`alice/proj/projects/${roadmap}/close`, {});
    const list = await a.get('alice/proj/projects');
    expect(list.text).to.include('1 Open').and.include('0 Closed').and.not.include('Mine');
    expect((await board(a, `alice/proj/projects/${roadmap}`)).map((c) => c.title)).to.deep.equal(['Backlog', 'To Do', 'In Progress', 'Done']);
  });

  it('adds, recolours, reorders and deletes columns; the default column stays and takes the cards', async () => {
    const path = `alice/proj/projects/${roadmap}`;
    await a.get(path);
    await a.form(path, { title: 'Review', color: '#ff0000' });
    let cols = await board(a, path);
    const review = cols.find((c) => c.title === 'Review')!;
    expect((await a.get(path)).text).to.include('.pc-ff0000{border-top-color:#ff0000}');
    await a.form(path, { title: 'Bad', color: 'red' });
    expect(await flashError(a, path)).to.include('bad color code: red');
    await a.form(`${path}/${review.id}/left`, {});
    cols = await board(a, path);
    expect(cols.map((c) => c.title)).to.deep.equal(['Backlog', 'To Do', 'In Progress', 'Review', 'Done']);
    // The script's order: Done before Review.
    const done = cols.find((c) => c.title === 'Done')!;
    const moved = await a.json(`${path}/move`, { columns: cols.map((c) => ({ columnID: c.id, sorting: c.id === done.id ? 3 : c.id === review.id ? 4 : cols.indexOf(c) })) });
    expect(moved.status, moved.text).to.equal(200);
    expect((await board(a, path)).map((c) => c.title)).to.deep.equal(['Backlog', 'To Do', 'In Progress', 'Done', 'Review']);
    await a.form(`${path}/${review.id}/edit`, { title: 'In review', color: '#00ff00' });
    expect((await board(a, path)).map((c) => c.title)).to.include('In review');
    // at most 20 columns
    for (let i = (await board(a, path)).length; i < 20; i++) await a.form(path, { title: `Extra ${i}`, color: '' });
    await a.form(path, { title: 'One too many', color: '' });
    expect(await flashError(a, path)).to.include('at most 20 columns');
    cols = await board(a, path);
    expect(cols).to.have.length(20);
    for (const c of cols.filter((x) => x.title.startsWith('Extra'))) await a.form(`${path}/${c.id}/delete`, {});
    const backlog = cols[0];
    await a.form(`${path}/${backlog.id}/delete`, {});
    expect(await flashError(a, path)).to.include('The default column cannot be deleted');
    expect((await board(a, path)).map((c) => c.title)).to.deep.equal(['Backlog', 'To Do', 'In Progress', 'Done', 'In review']);
  });

  it('puts issues on the board from their sidebars, moves them by script and by form, with timeline entries', async () => {
    const path = `alice/proj/projects/${roadmap}`;
    const [backlog, todo, , done, review] = await board(a, path);
    const sidebar = (await a.get('alice/proj/issues/1')).text;
    expect(sidebar).to.include(`<option value="${roadmap}:${todo.id}" >Roadmap &lt;b&gt;: To Do</option>`);
    await a.form('alice/proj/issues/1/projects', { target: `${roadmap}:0` });
    await a.form('alice/proj/issues/2/projects', { target: `${roadmap}:${todo.id}` });
    await a.form('alice/proj/issues/3/projects', { target: `${roadmap}:${review.id}` });
    expect((await board(a, path)).map((c) => c.cards)).to.deep.equal([[issueIds[0]], [issueIds[1]], [], [], [issueIds[2]]]);
    expect((await api('GET', '/repos/alice/proj/issues/1/timeline')).body.find((e: { type: string }) => e.type === 'project')).to.include({ project_id: roadmap, old_project_id: 0 });

    // Deleting a column moves its cards after the default column's.
    await a.form(`${path}/${review.id}/delete`, {});
    expect((await board(a, path)).map((c) => c.cards)).to.deep.equal([[issueIds[0], issueIds[2]], [issueIds[1]], [], []]);

    // The script's move: issue 1 into Done; a reader's is refused and changes nothing.
    const before = await board(a, path);
    await b.get(path);
    const refused = await b.json(`${path}/${done.id}/move`, { issues: [{ issueID: issueIds[0], sorting: 0 }] });
    expect(refused.status).to.equal(403);
    expect(await board(a, path)).to.deep.equal(before);
    await a.get(path);
    const ok = await a.json(`${path}/${done.id}/move`, { issues: [{ issueID: issueIds[0], sorting: 0 }] });
    expect(ok.status, ok.text).to.equal(200);
    expect(await timelineTypes('alice/proj', 1)).to.include('project_board');
    expect((await a.get('alice/proj/issues/1')).text).to.include('moved this to &quot;Done&quot; in the project &quot;Roadmap &lt;b&gt;&quot;');

    // The card's form: issue 2 to the end of Backlog, then up above issue 3.
    await a.form(`${path}/cards/${issueIds[1]}/move`, { column: String(backlog.id) });
    expect((await board(a, path))[0].cards).to.deep.equal([issueIds[2], issueIds[1]]);
    await a.form(`${path}/cards/${issueIds[1]}/move`, { column: 'up' });
    expect((await board(a, path)).map((c) => c.cards)).to.deep.equal([[issueIds[1], issueIds[2]], [], [], [issueIds[0]]]);

    // Bad moves: an issue not on the board, a column of another project, a sidebar column of another project.
    const other = Number(/\/projects\/(\d+)$/.exec((await a.form('alice/proj/projects/new', { title: 'Other', template_type: '0' })).location!)![1]);
    const [otherDefault] = await board(a, `alice/proj/projects/${other}`);
    const snapshot = await board(a, path);
    const notOn = await a.json(`alice/proj/projects/${other}/${otherDefault.id}/move`, { issues: [{ issueID: issueIds[0], sorting: 0 }] });
    expect(notOn.status).to.equal(422);
    expect(JSON.parse(notOn.text).message).to.equal('all issues have to be added to the project first');
    expect((await a.json(`${path}/${otherDefault.id}/move`, { issues: [{ issueID: issueIds[0], sorting: 0 }] })).status).to.equal(404);
    await a.form('alice/proj/issues/1/projects', { target: `${roadmap}:${otherDefault.id}` });
    expect(await flashError(a, 'alice/proj/issues/1')).to.include('project column does not exist');
    expect(await board(a, path)).to.deep.equal(snapshot);
    expect((await board(a, `alice/proj/projects/${other}`))[0].cards).to.deep.equal([]);
    // a reader's sidebar offers nothing and its form changes nothing
    expect((await b.get('alice/proj/issues/1')).text).to.include('Roadmap &lt;b&gt;').and.not.include('name="target"');
    await b.form('alice/proj/issues/1/projects', { target: '0' });
    expect(await board(a, path)).to.deep.equal(snapshot);
  });

  it("follows projects_mode: owner-only hides the repository's tab, board and sidebar projects", async () => {
    await a.get('alice/-/projects/new');
    const owned = Number(/\/projects\/(\d+)$/.exec((await a.form('alice/-/projects/new', { title: 'Alice plans', template_type: '1' })).location!)![1]);
    expect((await api('PATCH', '/repos/alice/proj', { projects_mode: 'owner' })).status).to.equal(200);
    expect((await a.get('alice/proj')).text).not.to.include('href="/alice/proj/projects"');
    expect((await a.get(`alice/proj/projects/${roadmap}`)).status).to.equal(404);
    const sidebar = (await a.get('alice/proj/issues/2')).text;
    expect(sidebar).to.include('Alice plans').and.not.include('Roadmap &lt;b&gt;: Backlog');
    await a.form('alice/proj/issues/2/projects', { target: `${roadmap}:0` });
    expect(await flashError(a, 'alice/proj/issues/2')).to.include('project does not exist');
    await a.form('alice/proj/issues/2/projects', { target: `${owned}:0` });
    expect((await board(a, `alice/-/projects/${owned}`))[0].cards).to.deep.equal([issueIds[1]]);
    expect((await api('PATCH', '/repos/alice/proj', { projects_mode: 'all' })).status).to.equal(200);
    expect((await board(a, `alice/proj/projects/${roadmap}`)).flatMap((c) => c.cards)).not.to.include(issueIds[1]);
  });

  it("never shows a card of a repository the viewer cannot read on an owner's board", async () => {
    const [plans] = [...(await a.get('alice/-/projects')).text.matchAll(/href="\/alice\/-\/projects\/(\d+)"/g)].map((m) => Number(m[1]));
    await a.form('alice/secret/issues/1/projects', { target: `${plans}:0` });
    expect((await a.get(`alice/-/projects/${plans}`)).text).to.include('hidden plan');
    const seen = await b.get(`alice/-/projects/${plans}`);
    expect(seen.status).to.equal(200);
    expect(seen.text).not.to.include('hidden plan').and.not.include('alice/secret');
    expect(boardOf(seen.text)[0].cards).to.deep.equal([issueIds[1]]);
    expect((await b.get('alice/-/projects')).text).to.match(/1 open/);
    expect((await a.get('alice/-/projects')).text).to.match(/2 open/);
    // a reader of the private repository sees its card
    expect((await api('PUT', '/repos/alice/secret/collaborators/bob', { permission: 'read' })).status).to.equal(204);
    expect((await b.get(`alice/-/projects/${plans}`)).text).to.include('hidden plan');
    expect((await api('DELETE', '/repos/alice/secret/collaborators/bob')).status).to.equal(204);
    // only alice plans with her own projects
    expect((await b.get('alice/-/projects/new')).status).to.equal(404);
    expect((await b.form('alice/-/projects/new', { title: 'Bob was here', template_type: '0' })).status).to.equal(403);
    expect((await a.get('alice/-/projects')).text).not.to.include('Bob was here');
  });

  it("lets an organization's planning team move only cards it may read", async () => {
    expect((await api('POST', '/orgs', { username: 'acme' })).status).to.equal(201);
    const team = await api('POST', '/orgs/acme/teams', { name: 'planners', permission: 'read', units_map: { 'repo.projects': 'write' } });
    expect(team.status, team.text).to.equal(201);
    expect((await api('PUT', `/teams/${team.body.id}/members/dave`)).status).to.equal(204);
    expect((await api('POST', '/orgs/acme/repos', { name: 'open', auto_init: true })).status).to.equal(201);
    expect((await api('POST', '/orgs/acme/repos', { name: 'closed', auto_init: true, private: true })).status).to.equal(201);
    const pub = (await api('POST', '/repos/acme/open/issues', { title: 'public task' })).body.id as number;
    const priv = (await api('POST', '/repos/acme/closed/issues', { title: 'private task' })).body.id as number;
    await d.get('acme/-/projects/new');
    const made = await d.form('acme/-/projects/new', { title: 'Quarter', template_type: '1' });
    expect(made.status).to.equal(303);
    const quarter = Number(/\/projects\/(\d+)$/.exec(made.location!)![1]);
    await a.form('acme/open/issues/1/projects', { target: `${quarter}:0` });
    await a.form('acme/closed/issues/1/projects', { target: `${quarter}:0` });
    const path = `acme/-/projects/${quarter}`;
    const cols = await board(d, path);
    expect(cols[0].cards).to.deep.equal([pub]);
    expect((await a.get(path)).text).to.include('private task').and.include('acme/closed#1');
    const todo = cols[1];
    await d.get(path);
    const hidden = await d.json(`${path}/${todo.id}/move`, { issues: [{ issueID: priv, sorting: 0 }] });
    expect(hidden.status).to.equal(422);
    expect((await board(a, path))[0].cards).to.deep.equal([pub, priv]);
    const moved = await d.json(`${path}/${todo.id}/move`, { issues: [{ issueID: pub, sorting: 0 }] });
    expect(moved.status, moved.text).to.equal(200);
    expect((await board(a, path)).map((c) => c.cards).slice(0, 2)).to.deep.equal([[priv], [pub]]);
    // bob, outside the organization, reads the public card and changes nothing
    await b.get(path);
    expect((await b.json(`${path}/${cols[0].id}/move`, { issues: [{ issueID: pub, sorting: 0 }] })).status).to.equal(403);
    expect((await board(a, path))[1].cards).to.deep.equal([pub]);
  });

  it('sends as many statements for a board of 30 cards as for one of 3', async () => {
    // why: the fewest of four requests, so each worker's caches are warm (a cold cache reads more, however many cards).
    const queriesOf = async (path: string): Promise<number> => {
      let n = Infinity;
      for (let i = 0; i < 4; i++) {
        const id = `board-${path.replace(/\W/g, '-')}-${i}`;
        const res = await a.request('GET', path, { headers: { 'X-Request-Id': id } });
        expect(res.status).to.equal(200);
        await waitFor('the access line', async () => {
          const line = w.server.output.split('\n').find((l) => l.startsWith('{') && l.includes(`"request_id":"${id}"`));
          if (line) n = Math.min(n, (JSON.parse(line) as { queries: number }).queries);
          return !!line;
        });
      }
      return n;
    };
    const made = async (title: string) => Number(/\/projects\/(\d+)$/.exec((await a.form('alice/proj/projects/new', { title, template_type: '1' })).location!)![1]);
    await a.get('alice/proj/projects');
    const small = await made('Small');
    const large = await made('Large');
    const label = (await api('POST', '/repos/alice/proj/labels', { name: 'task', color: '#00aabb' })).body.id as number;
    for (let i = 0; i < 33; i++) {
      const n = (await api('POST', '/repos/alice/proj/issues', { title: `task ${i}`, labels: [label] })).body.number as number;
      await a.form(`alice/proj/issues/${n}/projects`, { target: `${i < 3 ? small : large}:0` });
    }
    expect((await board(a, `alice/proj/projects/${small}`))[0].cards).to.have.length(3);
    expect((await board(a, `alice/proj/projects/${large}`))[0].cards).to.have.length(30);
    const few = await queriesOf(`alice/proj/projects/${small}`);
    const many = await queriesOf(`alice/proj/projects/${large}`);
    expect(few).to.be.greaterThan(0);
    expect(many).to.equal(few);
  });
});
