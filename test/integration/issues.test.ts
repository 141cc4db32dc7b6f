/**
 * The issue tracker through gitea-js and raw HTTP against the real server: numbering under
 * concurrency, counters, create/get/list/edit/delete, labels (scoped, organization, templates),
 * milestones, comments, the timeline, reactions, keyword search, cross-repository search, and the
 * refusals (each with the data read again to show nothing changed).
 */
import { expect } from 'chai';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { count, sql } from '../helpers/db';

describe('issues', () => {
  let w: World;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;

  const ok = async (method: string, p: string, body: unknown, token: string, want = [200, 201, 204]) => {
    const r = await w.raw(method, p, body, { token });
    expect(want, `${method} ${p}: ${r.status} ${r.text}`).to.include(r.status);
    return r.body;
  };
  const issueRow = async (index: number) => (await sql(w.server, 'SELECT * FROM issue WHERE "index" = $1 AND repo_id = (SELECT id FROM repository WHERE lower_name = $2)', [index, 'proj']))[0];

  before(async () => {
    w = await startWorld();
    [alice, bob, carol] = [await w.user('alice'), await w.user('bob'), await w.user('carol')];
    await ok('POST', '/user/repos', { name: 'proj', issue_labels: 'Advanced' }, alice.token);
    // bob writes, carol only reads (a public repository)
    await ok('PUT', '/repos/alice/proj/collaborators/bob', { permission: 'write' }, alice.token);
  });
  after(async () => { await w?.stop(); });

  describe('numbering and counters', () => {
    it('gives 100 parallel creates the numbers 1..100 and counts them', async () => {
      const made = await Promise.all(Array.from({ length: 100 }, (_, i) =>
        w.raw('POST', '/repos/alice/proj/issues', { title: `parallel ${i}` }, { token: i % 2 ? bob.token : carol.token })));
      for (const r of made) expect(r.status, r.text).to.equal(201);
      const numbers = made.map((r) => r.body.number as number).sort((a, b) => a - b);
      expect(numbers).to.deep.equal(Array.from({ length: 100 }, (_, i) => i + 1));
      // each creator is answered with its own row, though creations that arrive together are written together
      const rows = await sql(w.server, 'SELECT id, "index" AS n, name FROM issue');
      const byNumber = new Map(rows.map((r) => [Number(r.n), r]));
      for (const r of made) expect({ id: Number(byNumber.get(r.body.number)?.id), title: byNumber.get(r.body.number)?.name }).to.deep.equal({ id: r.body.id, title: r.body.title });
      const repo = await ok('GET', '/repos/alice/proj', undefined, alice.token);
      expect(repo.open_issues_count).to.equal(100);
      const list = await w.raw('GET', '/repos/alice/proj/issues?limit=5', undefined, { token: carol.token });
      expect(list.headers.get('x-total-count')).to.equal('100');
      // newest first by creation time (whole seconds, then id): parallel creations need not be created in the order of their numbers
      const newest = await sql(w.server, 'SELECT "index" AS n FROM issue ORDER BY created_unix DESC, id DESC LIMIT 5');
      expect(list.body.map((i: { number: number }) => i.number)).to.deep.equal(newest.map((r) => Number(r.n)));
    });

    it('keeps the counts exact under parallel closes and reopens of the same issues', async () => {
      const close = (n: number, state: string) => w.raw('PATCH', `/repos/alice/proj/issues/${n}`, { state }, { token: bob.token });
      await Promise.all([1, 2, 3, 4, 5].flatMap((n) => [close(n, 'closed'), close(n, 'closed'), close(n, 'closed')]));
      let repo = await ok('GET', '/repos/alice/proj', undefined, alice.token);
      expect(repo.open_issues_count).to.equal(95);
      await Promise.all([1, 2].flatMap((n) => [close(n, 'open'), close(n, 'open')]));
      repo = await ok('GET', '/repos/alice/proj', undefined, alice.token);
      expect(repo.open_issues_count).to.equal(97);
      const closed = await w.raw('GET', '/repos/alice/proj/issues?state=closed', undefined, { token: carol.token });
      expect(closed.headers.get('x-total-count')).to.equal('3');
      const row = await sql(w.server, 'SELECT num_issues, num_closed_issues FROM repo_issue_counter');
      expect(Number(row[0].num_issues)).to.equal(100);
      expect(Number(row[0].num_closed_issues)).to.equal(3);
    });
  });

  describe('create, get, edit, delete', () => {
    let milestoneId: number;
    let bugLabel: number;

    before(async () => {
      milestoneId = (await ok('POST', '/repos/alice/proj/milestones', { title: 'v1', description: 'first' }, bob.token)).id;
      const labels = await ok('GET', '/repos/alice/proj/labels', undefined, carol.token);
      bugLabel = labels.find((l: { name: string }) => l.name === 'Kind/Bug').id;
    });

    it('creates an issue with labels, milestone, assignees and due date (writer) in Gitea\'s shape', async () => {
      const r = await bob.api.repos.issueCreateIssue('alice', 'proj', {
        title: '  Crash on start  ', body: 'It crashes, @carol look', labels: [bugLabel], milestone: milestoneId, assignees: ['alice'],
        due_date: '2030-01-02T03:04:05Z',
      });
      expect(r.status).to.equal(201);
      const i = r.data;
      expect(i).to.include({ title: 'Crash on start', body: 'It crashes, @carol look', state: 'open', comments: 0, is_locked: false, pin_order: 0 });
      expect(i.url).to.equal(`${w.server.url}api/v1/repos/alice/proj/issues/${i.number}`);
      expect(i.html_url).to.equal(`${w.server.url}alice/proj/issues/${i.number}`);
      expect(i.user!.login).to.equal('bob');
      expect(i.labels!.map((l) => l.name)).to.deep.equal(['Kind/Bug']);
      expect(i.labels![0].color).to.equal('ee0701');
      expect(i.milestone).to.include({ id: milestoneId, title: 'v1', open_issues: 1, closed_issues: 0 });
      expect(i.assignee!.login).to.equal('alice');
      expect(i.assignees!.map((u) => u.login)).to.deep.equal(['alice']);
      expect(i.due_date).to.equal('2030-01-02T03:04:05Z');
      expect(i.closed_at).to.equal(null);
      expect(i.pull_request).to.equal(null);
      expect(i.repository).to.deep.equal({ id: i.repository!.id, name: 'proj', owner: 'alice', full_name: 'alice/proj' });
      const got = await bob.api.repos.issueGetIssue('alice', 'proj', i.number!);
      expect(got.data).to.deep.equal(i);
      const mentioned = await w.raw('GET', '/repos/alice/proj/issues?mentioned_by=carol', undefined, { token: carol.token });
      expect(mentioned.body.map((x: { number: number }) => x.number)).to.deep.equal([i.number]);
    });

    it('keeps only the title and body of a reader\'s issue (milestone, labels, assignees dropped)', async () => {
      const r = await w.raw('POST', '/repos/alice/proj/issues', { title: 'reader', labels: [bugLabel], milestone: milestoneId, assignees: ['alice'] }, { token: carol.token });
      expect(r.status).to.equal(201);
      expect(r.body.labels).to.deep.equal([]);
      expect(r.body.milestone).to.equal(null);
      expect(r.body.assignees).to.equal(null);
    });

    it('lets the poster edit title and body, answers 201, and records the history', async () => {
      const made = await ok('POST', '/repos/alice/proj/issues', { title: 'typo tilte' }, carol.token);
      const r = await w.raw('PATCH', `/repos/alice/proj/issues/${made.number}`, { title: 'typo title', body: 'fixed', state: 'closed' }, { token: carol.token });
      expect(r.status, r.text).to.equal(201);
      expect(r.body).to.include({ title: 'typo title', body: 'fixed', state: 'closed' });
      expect(r.body.closed_at).to.be.a('string');
      const tl = await ok('GET', `/repos/alice/proj/issues/${made.number}/timeline`, undefined, carol.token);
      expect(tl.map((c: { type: string }) => c.type)).to.deep.equal(['change_title', 'close']);
      expect(tl[0]).to.include({ old_title: 'typo tilte', new_title: 'typo title' });
    });

    it('refuses another reader\'s edit with 403 and changes nothing', async () => {
      const made = await ok('POST', '/repos/alice/proj/issues', { title: 'mine' }, bob.token);
      const r = await w.raw('PATCH', `/repos/alice/proj/issues/${made.number}`, { title: 'yours' }, { token: carol.token });
      expect(r.status).to.equal(403);
      expect((await issueRow(made.number)).name).to.equal('mine');
    });

    it('refuses bad input with Gitea\'s 4xx and changes nothing', async () => {
      const before = await count(w.server, 'SELECT COUNT(*) AS n FROM issue');
      const cases: [unknown, number, RegExp][] = [
        [{ title: '   ' }, 422, /Title/],
        [{ title: 'x', assignees: ['nobody-here'] }, 422, /Assignee does not exist/],
        [{ title: 'x', due_date: 'tomorrow' }, 422, /parsing time/],
      ];
      for (const [body, status, msg] of cases) {
        const r = await w.raw('POST', '/repos/alice/proj/issues', body, { token: bob.token });
        expect(r.status, JSON.stringify(body)).to.equal(status);
        expect(r.body.message).to.match(msg);
        expect(r.body.url).to.be.a('string');
      }
      expect(await count(w.server, 'SELECT COUNT(*) AS n FROM issue')).to.equal(before);
      const edit = await w.raw('PATCH', '/repos/alice/proj/issues/1', { state: 'sideways' }, { token: bob.token });
      expect(edit.status).to.equal(412);
      expect(edit.body.message).to.equal('unknown state: sideways');
    });

    it('sets and removes a deadline (23:59:59 of the date) with timeline entries', async () => {
      const made = await ok('POST', '/repos/alice/proj/issues', { title: 'deadline' }, bob.token);
      const set = await w.raw('POST', `/repos/alice/proj/issues/${made.number}/deadline`, { due_date: '2031-05-06T10:00:00Z' }, { token: bob.token });
      expect(set.status).to.equal(201);
      expect(set.body).to.deep.equal({ due_date: '2031-05-06T23:59:59Z' });
      const unset = await w.raw('POST', `/repos/alice/proj/issues/${made.number}/deadline`, { due_date: null }, { token: bob.token });
      expect(unset.body).to.deep.equal({ due_date: null });
      const refused = await w.raw('POST', `/repos/alice/proj/issues/${made.number}/deadline`, { due_date: '2031-05-06T10:00:00Z' }, { token: carol.token });
      expect(refused.status).to.equal(403);
      const tl = await ok('GET', `/repos/alice/proj/issues/${made.number}/timeline`, undefined, carol.token);
      expect(tl.map((c: { type: string; body: string }) => [c.type, c.body])).to.deep.equal([['added_deadline', '2031-05-06'], ['removed_deadline', '2031-05-06']]);
    });

    it('deletes an issue for repository admins only, with its counts', async () => {
      const made = await ok('POST', '/repos/alice/proj/issues', { title: 'to delete', labels: [bugLabel] }, bob.token);
      const open = (await ok('GET', '/repos/alice/proj', undefined, alice.token)).open_issues_count;
      expect((await w.raw('DELETE', `/repos/alice/proj/issues/${made.number}`, undefined, { token: bob.token })).status).to.equal(403);
      expect(await issueRow(made.number)).to.not.equal(undefined);
      expect((await w.raw('DELETE', `/repos/alice/proj/issues/${made.number}`, undefined, { token: alice.token })).status).to.equal(204);
      expect(await issueRow(made.number)).to.equal(undefined);
      expect((await ok('GET', '/repos/alice/proj', undefined, alice.token)).open_issues_count).to.equal(open - 1);
      expect((await w.raw('GET', `/repos/alice/proj/issues/${made.number}`, undefined, { token: alice.token })).status).to.equal(404);
    });
  });

  describe('labels', () => {
    it('validates colours and normalizes them', async () => {
      const n = await count(w.server, 'SELECT COUNT(*) AS n FROM label');
      const bad = await w.raw('POST', '/repos/alice/proj/labels', { name: 'x', color: '#12345g' }, { token: bob.token });
      expect(bad.status).to.equal(422);
      expect(bad.body.message).to.equal('bad color code: #12345g');
      expect(await count(w.server, 'SELECT COUNT(*) AS n FROM label')).to.equal(n);
      const good = await ok('POST', '/repos/alice/proj/labels', { name: 'area/ui', color: 'ABC', exclusive: true }, bob.token);
      expect(good.color).to.equal('aabbcc');
      expect((await w.raw('POST', '/repos/alice/proj/labels', { name: 'y', color: 'fff' }, { token: carol.token })).status).to.equal(403);
    });

    it('keeps one exclusive label per scope: the last by name wins', async () => {
      const made = await ok('POST', '/repos/alice/proj/issues', { title: 'scoped' }, bob.token);
      const a = await ok('POST', '/repos/alice/proj/labels', { name: 'prio/a', color: '111111', exclusive: true }, bob.token);
      const b = await ok('POST', '/repos/alice/proj/labels', { name: 'prio/b', color: '222222', exclusive: true }, bob.token);
      const plain = await ok('POST', '/repos/alice/proj/labels', { name: 'plain', color: '333333' }, bob.token);
      let labels = await ok('POST', `/repos/alice/proj/issues/${made.number}/labels`, { labels: [b.id, a.id, plain.id] }, bob.token);
      expect(labels.map((l: { name: string }) => l.name)).to.deep.equal(['plain', 'prio/b']);
      labels = await ok('POST', `/repos/alice/proj/issues/${made.number}/labels`, { labels: ['prio/a'] }, bob.token);
      expect(labels.map((l: { name: string }) => l.name)).to.deep.equal(['plain', 'prio/a']);
      labels = await ok('PUT', `/repos/alice/proj/issues/${made.number}/labels`, { labels: [plain.id] }, bob.token);
      expect(labels.map((l: { name: string }) => l.name)).to.deep.equal(['plain']);
      const mixed = await w.raw('POST', `/repos/alice/proj/issues/${made.number}/labels`, { labels: [a.id, 'prio/b'] }, { token: bob.token });
      expect(mixed.status).to.equal(400);
      expect((await w.raw('POST', `/repos/alice/proj/issues/${made.number}/labels`, { labels: [a.id] }, { token: carol.token })).status).to.equal(403);
      expect((await ok('GET', `/repos/alice/proj/issues/${made.number}/labels`, undefined, carol.token)).map((l: { name: string }) => l.name)).to.deep.equal(['plain']);
      const unknown = await w.raw('DELETE', `/repos/alice/proj/issues/${made.number}/labels/999999`, undefined, { token: bob.token });
      expect(unknown.status).to.equal(422);
      expect((await w.raw('DELETE', `/repos/alice/proj/issues/${made.number}/labels`, undefined, { token: bob.token })).status).to.equal(204);
      const tl = await ok('GET', `/repos/alice/proj/issues/${made.number}/timeline`, undefined, carol.token);
      const labelEntries = tl.filter((c: { type: string }) => c.type === 'label');
      expect(labelEntries.map((c: { body: string; label: { name: string } }) => `${c.body === '1' ? '+' : '-'}${c.label.name}`)).to.deep.equal(
        ['+plain', '+prio/b', '-prio/b', '+prio/a', '-prio/a', '-plain']);
      const counts = await sql(w.server, 'SELECT name, num_issues FROM label WHERE name IN ($1, $2, $3) ORDER BY name', ['plain', 'prio/a', 'prio/b']);
      expect(counts.map((r) => Number(r.num_issues))).to.deep.equal([0, 0, 0]);
    });

    it('applies organization labels to the organization\'s repositories', async () => {
      await ok('POST', '/orgs', { username: 'acme' }, alice.token);
      await ok('POST', '/orgs/acme/repos', { name: 'tool' }, alice.token);
      const label = await ok('POST', '/orgs/acme/labels', { name: 'org-wide', color: ' #00ff00 ' }, alice.token);
      expect(label.url).to.equal(`${w.server.url}api/v1/orgs/acme/labels/${label.id}`);
      expect((await w.raw('POST', '/orgs/acme/labels', { name: 'no', color: '000' }, { token: bob.token })).status).to.equal(403);
      const made = await ok('POST', '/repos/acme/tool/issues', { title: 'org issue', labels: [label.id] }, alice.token);
      expect(made.labels.map((l: { url: string }) => l.url)).to.deep.equal([label.url]);
      const other = await ok('POST', '/repos/alice/proj/issues', { title: 'foreign label', labels: [label.id] }, alice.token);
      expect(other.labels).to.deep.equal([]);
    });

    it('refuses an unknown label template at repository creation, before creating anything', async () => {
      const r = await w.raw('POST', '/user/repos', { name: 'nolabels', issue_labels: 'Nope' }, { token: alice.token });
      expect(r.status).to.equal(422);
      expect((await w.raw('GET', '/repos/alice/nolabels', undefined, { token: alice.token })).status).to.equal(404);
    });
  });

  describe('milestones', () => {
    it('counts open and closed issues and filters by state and name', async () => {
      const m = await ok('POST', '/repos/alice/proj/milestones', { title: 'Sprint 7', due_on: '2030-03-04T05:06:07Z' }, bob.token);
      expect(m).to.include({ title: 'Sprint 7', state: 'open', open_issues: 0, closed_issues: 0, due_on: '2030-03-04T05:06:07Z' });
      const a = await ok('POST', '/repos/alice/proj/issues', { title: 'in sprint', milestone: m.id }, bob.token);
      await ok('POST', '/repos/alice/proj/issues', { title: 'in sprint too', milestone: m.id }, bob.token);
      await ok('PATCH', `/repos/alice/proj/issues/${a.number}`, { state: 'closed' }, bob.token);
      const got = await ok('GET', '/repos/alice/proj/milestones/Sprint 7', undefined, carol.token);
      expect(got).to.include({ id: m.id, open_issues: 1, closed_issues: 1 });
      const closed = await ok('PATCH', `/repos/alice/proj/milestones/${m.id}`, { state: 'closed' }, bob.token);
      expect(closed.state).to.equal('closed');
      expect(closed.closed_at).to.be.a('string');
      expect(closed.due_on).to.equal(null);
      const byName = await ok('GET', '/repos/alice/proj/milestones?state=closed&name=sprint', undefined, carol.token);
      expect(byName.map((x: { id: number }) => x.id)).to.deep.equal([m.id]);
      const listed = await ok('GET', `/repos/alice/proj/issues?milestones=Sprint 7&state=all`, undefined, carol.token);
      expect(listed.length).to.equal(2);
      expect((await w.raw('DELETE', `/repos/alice/proj/milestones/${m.id}`, undefined, { token: carol.token })).status).to.equal(403);
      expect((await w.raw('DELETE', `/repos/alice/proj/milestones/${m.id}`, undefined, { token: bob.token })).status).to.equal(204);
      expect((await ok('GET', `/repos/alice/proj/issues/${a.number}`, undefined, carol.token)).milestone).to.equal(null);
    });
  });

  describe('comments and the timeline', () => {
    it('creates, lists, edits and deletes comments, counting them on the issue', async () => {
      const made = await ok('POST', '/repos/alice/proj/issues', { title: 'discussion' }, carol.token);
      const c1 = await carol.api.repos.issueCreateComment('alice', 'proj', made.number, { body: 'first' });
      expect(c1.status).to.equal(201);
      expect(c1.data.html_url).to.equal(`${made.html_url}#issuecomment-${c1.data.id}`);
      expect(c1.data.issue_url).to.equal(made.html_url);
      const c2 = (await bob.api.repos.issueCreateComment('alice', 'proj', made.number, { body: 'second' })).data;
      expect((await ok('GET', `/repos/alice/proj/issues/${made.number}`, undefined, carol.token)).comments).to.equal(2);
      const list = await carol.api.repos.issueGetComments('alice', 'proj', made.number);
      expect(list.data.map((c) => c.body)).to.deep.equal(['first', 'second']);
      expect((await w.raw('PATCH', `/repos/alice/proj/issues/comments/${c2.id}`, { body: 'hijack' }, { token: carol.token })).status).to.equal(403);
      const edited = await ok('PATCH', `/repos/alice/proj/issues/comments/${c1.data.id}`, { body: 'first, edited' }, carol.token);
      expect(edited.body).to.equal('first, edited');
      expect((await w.raw('PATCH', `/repos/alice/proj/issues/comments/${c1.data.id}`, { body: '' }, { token: carol.token })).status).to.equal(422);
      expect((await w.raw('DELETE', `/repos/alice/proj/issues/comments/${c2.id}`, undefined, { token: bob.token })).status).to.equal(204);
      expect((await ok('GET', `/repos/alice/proj/issues/${made.number}`, undefined, carol.token)).comments).to.equal(1);
      expect((await w.raw('GET', `/repos/alice/proj/issues/comments/${c2.id}`, undefined, { token: carol.token })).status).to.equal(404);
      const repoComments = await w.raw('GET', '/repos/alice/proj/issues/comments?limit=50', undefined, { token: carol.token });
      expect(repoComments.body.map((c: { body: string }) => c.body)).to.include('first, edited');
    });

    it('refuses comments from non-writers on a locked issue', async () => {
      const made = await ok('POST', '/repos/alice/proj/issues', { title: 'locked one' }, carol.token);
      await sql(w.server, 'UPDATE issue SET is_locked = $1 WHERE id = $2', [true, made.id]);
      const r = await w.raw('POST', `/repos/alice/proj/issues/${made.number}/comments`, { body: 'hello' }, { token: carol.token });
      expect(r.status).to.equal(403);
      expect(r.body.message).to.equal('You cannot comment on a locked issue.');
      expect((await w.raw('POST', `/repos/alice/proj/issues/${made.number}/comments`, { body: 'writer' }, { token: bob.token })).status).to.equal(201);
    });

    it('shows an empty timeline as null and walks the history entry types', async () => {
      const made = await ok('POST', '/repos/alice/proj/issues', { title: 'quiet' }, bob.token);
      expect((await w.raw('GET', `/repos/alice/proj/issues/${made.number}/timeline`, undefined, { token: carol.token })).body).to.equal(null);
      const m = await ok('POST', '/repos/alice/proj/milestones', { title: 'tl' }, bob.token);
      await ok('PATCH', `/repos/alice/proj/issues/${made.number}`, { milestone: m.id, assignees: ['bob'], ref: 'refs/heads/dev', title: 'loud' }, bob.token);
      await ok('PATCH', `/repos/alice/proj/issues/${made.number}`, { assignees: [], state: 'closed' }, bob.token);
      await ok('PATCH', `/repos/alice/proj/issues/${made.number}`, { state: 'open' }, bob.token);
      await ok('POST', `/repos/alice/proj/issues/${made.number}/comments`, { body: 'done' }, bob.token);
      const tl = await ok('GET', `/repos/alice/proj/issues/${made.number}/timeline`, undefined, carol.token);
      expect(tl.map((c: { type: string }) => c.type)).to.deep.equal(
        ['change_title', 'change_issue_ref', 'assignees', 'milestone', 'assignees', 'close', 'reopen', 'comment']);
      expect(tl[1]).to.include({ old_ref: '', new_ref: 'dev' });
      expect(tl[2].assignee.login).to.equal('bob');
      expect(tl[2].removed_assignee).to.equal(false);
      expect(tl[3].milestone.id).to.equal(m.id);
      expect(tl[4].removed_assignee).to.equal(true);
      const page = await ok('GET', `/repos/alice/proj/issues/${made.number}/timeline?page=2&limit=3`, undefined, carol.token);
      expect(page.map((c: { id: number }) => c.id)).to.deep.equal(tl.slice(3, 6).map((c: { id: number }) => c.id));
    });
  });

  describe('reactions', () => {
    it('adds (201, then 200), lists and removes reactions; refuses others with 422', async () => {
      const made = await ok('POST', '/repos/alice/proj/issues', { title: 'react' }, bob.token);
      const first = await w.raw('POST', `/repos/alice/proj/issues/${made.number}/reactions`, { content: 'heart' }, { token: carol.token });
      expect(first.status).to.equal(201);
      const again = await w.raw('POST', `/repos/alice/proj/issues/${made.number}/reactions`, { content: 'heart' }, { token: carol.token });
      expect(again.status).to.equal(200);
      expect(again.body.created_at).to.equal(first.body.created_at);
      const bad = await w.raw('POST', `/repos/alice/proj/issues/${made.number}/reactions`, { content: 'pizza' }, { token: carol.token });
      expect(bad.status).to.equal(422);
      expect(bad.body.message).to.equal("'pizza' is not an allowed reaction");
      const list = await ok('GET', `/repos/alice/proj/issues/${made.number}/reactions`, undefined, bob.token);
      expect(list.map((r: { content: string; user: { login: string } }) => `${r.user.login}:${r.content}`)).to.deep.equal(['carol:heart']);
      const c = await ok('POST', `/repos/alice/proj/issues/${made.number}/comments`, { body: 'c' }, bob.token);
      expect((await w.raw('POST', `/repos/alice/proj/issues/comments/${c.id}/reactions`, { content: '+1' }, { token: carol.token })).status).to.equal(201);
      expect((await ok('GET', `/repos/alice/proj/issues/comments/${c.id}/reactions`, undefined, bob.token)).length).to.equal(1);
      const del = await w.raw('DELETE', `/repos/alice/proj/issues/${made.number}/reactions`, { content: 'heart' }, { token: carol.token });
      expect(del.status).to.equal(200);
      expect((await w.raw('GET', `/repos/alice/proj/issues/${made.number}/reactions`, undefined, { token: bob.token })).body).to.equal(null);
    });
  });

  describe('search', () => {
    it('finds issues by words of the title, body and comments, and by number', async () => {
      const a = await ok('POST', '/repos/alice/proj/issues', { title: 'Frobnicator overheats', body: 'when idle' }, bob.token);
      const b = await ok('POST', '/repos/alice/proj/issues', { title: 'Unrelated' }, bob.token);
      await ok('POST', `/repos/alice/proj/issues/${b.number}/comments`, { body: 'the frobnicator again' }, bob.token);
      const hits = async (q: string) => (await ok('GET', `/repos/alice/proj/issues?state=all&q=${encodeURIComponent(q)}`, undefined, carol.token))
        .map((i: { number: number }) => i.number);
      expect(await hits('frobnicator')).to.have.members([a.number, b.number]);
      expect(await hits('frobnic overheat')).to.deep.equal([a.number]);
      expect(await hits('idle')).to.deep.equal([a.number]);
      expect(await hits(String(b.number))).to.include(b.number);
      await ok('PATCH', `/repos/alice/proj/issues/${a.number}`, { title: 'Renamed' }, bob.token);
      expect(await hits('overheats')).to.deep.equal([]);
    });

    it('keeps a keyword search in step with the state, and combines it with other filters', async () => {
      const a = await ok('POST', '/repos/alice/proj/issues', { title: 'Quuxwidget leaks' }, bob.token);
      const b = await ok('POST', '/repos/alice/proj/issues', { title: 'Something else' }, bob.token);
      await ok('POST', `/repos/alice/proj/issues/${b.number}/comments`, { body: 'quuxwidget here too' }, bob.token);
      const found = async (state: string, extra = '') => {
        const res = await w.raw('GET', `/repos/alice/proj/issues?state=${state}&q=quuxwidget${extra}`, undefined, { token: carol.token });
        expect(res.status).to.equal(200);
        const numbers = (res.body as { number: number }[]).map((i) => i.number);
        expect(Number(res.headers.get('x-total-count'))).to.equal(numbers.length);
        return numbers;
      };
      expect(await found('open')).to.deep.equal([b.number, a.number]);
      await ok('PATCH', `/repos/alice/proj/issues/${a.number}`, { state: 'closed' }, bob.token);
      await ok('PATCH', `/repos/alice/proj/issues/${b.number}`, { state: 'closed' }, bob.token);
      expect(await found('open')).to.deep.equal([]);
      expect(await found('closed')).to.deep.equal([b.number, a.number]);
      await ok('PATCH', `/repos/alice/proj/issues/${b.number}`, { state: 'open' }, bob.token);
      expect(await found('open')).to.deep.equal([b.number]);
      expect(await found('all', '&created_by=carol')).to.deep.equal([]);
      expect(await found('all', '&created_by=bob')).to.deep.equal([b.number, a.number]);
    });

    it('searches across the repositories the caller may read, most recently closed first', async () => {
      await ok('POST', '/user/repos', { name: 'secret', private: true }, alice.token);
      await ok('POST', '/repos/alice/secret/issues', { title: 'hidden zebra' }, alice.token);
      const pub = await ok('POST', '/repos/alice/proj/issues', { title: 'public zebra' }, alice.token);
      const mine = await ok('GET', '/repos/issues/search?q=zebra', undefined, alice.token);
      expect(mine.map((i: { title: string }) => i.title)).to.have.members(['hidden zebra', 'public zebra']);
      const theirs = await ok('GET', '/repos/issues/search?q=zebra', undefined, carol.token);
      expect(theirs.map((i: { title: string }) => i.title)).to.deep.equal(['public zebra']);
      const anon = await w.raw('GET', '/repos/issues/search?q=zebra');
      expect(anon.body.map((i: { title: string }) => i.title)).to.deep.equal(['public zebra']);
      const x = await ok('POST', '/repos/alice/proj/issues', { title: 'close order x' }, alice.token);
      await ok('PATCH', `/repos/alice/proj/issues/${pub.number}`, { state: 'closed' }, alice.token);
      await ok('PATCH', `/repos/alice/proj/issues/${x.number}`, { state: 'closed' }, alice.token);
      // x was closed last, yet its close time is moved before pub's: the order follows the close time
      await sql(w.server, 'UPDATE issue SET closed_unix = closed_unix - 1000 WHERE id = $1', [x.id]);
      const closed = await ok('GET', '/repos/issues/search?state=closed&sort=recentclose&limit=2', undefined, alice.token);
      expect(closed[0].number).to.equal(pub.number);
      const all = await ok('GET', '/repos/issues/search?state=closed&sort=recentclose&limit=50', undefined, alice.token);
      expect(all[all.length - 1].number).to.equal(x.number);
    });
  });

  describe('search by milestone', () => {
    it('finds issues by milestone names of any repository, ignoring case', async () => {
      const m = await ok('POST', '/repos/alice/proj/milestones', { title: 'Orion' }, bob.token);
      const i = await ok('POST', '/repos/alice/proj/issues', { title: 'in orion', milestone: m.id }, bob.token);
      const found = await ok('GET', '/repos/issues/search?milestones=ORION&state=all', undefined, carol.token);
      expect(found.map((x: { number: number }) => x.number)).to.deep.equal([i.number]);
      expect(await ok('GET', '/repos/issues/search?milestones=nothing-like-it&state=all', undefined, carol.token)).to.deep.equal([]);
    });
  });

  describe('deep pages', () => {
    it('answers deep pages exactly, also right after a write', async () => {
      await ok('POST', '/user/repos', { name: 'deep' }, alice.token);
      await ok('POST', '/repos/alice/deep/issues', { title: 'first' }, alice.token);
      const repoId = (await ok('GET', '/repos/alice/deep', undefined, alice.token)).id;
      // 3,100 issues, three to a second, so the order's tie-break (id) matters
      await sql(w.server, `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3100)
        INSERT INTO issue (repo_id, "index", poster_id, name, content, created_unix, updated_unix)
        SELECT $1, 1 + i, $2, 'bulk', '', 1000000 + i / 3, 1000000 FROM n`, [repoId, alice.id]);
      const expected = async () => (await sql(w.server, 'SELECT "index" AS n FROM issue WHERE repo_id = $1 ORDER BY created_unix DESC, id DESC', [repoId]))
        .map((r) => Number(r.n));
      const page = async (p: number) => (await ok('GET', `/repos/alice/deep/issues?page=${p}&limit=50`, undefined, alice.token)).map((i: { number: number }) => i.number);
      let all = await expected();
      for (const p of [1, 30, 31, 59, 60, 61, 62, 63]) expect(await page(p), `page ${p}`).to.deep.equal(all.slice((p - 1) * 50, p * 50));
      // a row between anchors moves every later page by one
      await sql(w.server, 'UPDATE issue SET is_closed = $1 WHERE repo_id = $2 AND "index" = $3', [true, repoId, all[100]]);
      all = (await expected()).filter((n) => n !== all[100]);
      for (const p of [31, 60, 62]) expect(await page(p), `page ${p} after the write`).to.deep.equal(all.slice((p - 1) * 50, p * 50));
    });
  });

  describe('permissions', () => {
    it('answers 404 for a disabled issues unit and for a private repository', async () => {
      await ok('PATCH', '/repos/alice/secret', { has_issues: false }, alice.token);
      // why: with pull requests still on, the list answers (pull requests only), as Gitea's does.
      expect((await w.raw('GET', '/repos/alice/secret/issues', undefined, { token: alice.token })).body).to.deep.equal([]);
      expect((await w.raw('GET', '/repos/alice/secret/issues/1', undefined, { token: alice.token })).status).to.equal(404);
      await ok('PATCH', '/repos/alice/secret', { has_pull_requests: false }, alice.token);
      expect((await w.raw('GET', '/repos/alice/secret/issues', undefined, { token: alice.token })).status).to.equal(404);
      await ok('PATCH', '/repos/alice/secret', { has_issues: true, has_pull_requests: true }, alice.token);
      const refused = await w.raw('POST', '/repos/alice/secret/issues', { title: 'x', assignees: ['carol'] }, { token: alice.token });
      expect(refused.status).to.equal(422);
      expect(refused.body.message).to.match(/doesn't have access to repo/);
      expect((await w.raw('GET', '/repos/alice/secret/issues/1', undefined, { token: carol.token })).status).to.equal(404);
      expect((await w.raw('GET', '/repos/alice/secret/issues/1', undefined, { token: alice.token })).status).to.equal(200);
    });

    it('refuses a user the owner blocked', async () => {
      await ok('PUT', '/user/blocks/carol', undefined, alice.token);
      const n = await count(w.server, 'SELECT COUNT(*) AS n FROM issue');
      const r = await w.raw('POST', '/repos/alice/proj/issues', { title: 'blocked' }, { token: carol.token });
      expect(r.status).to.equal(403);
      expect(r.body.message).to.equal('user is blocked');
      expect(await count(w.server, 'SELECT COUNT(*) AS n FROM issue')).to.equal(n);
      expect((await w.raw('POST', '/repos/alice/proj/issues/1/comments', { body: 'x' }, { token: carol.token })).status).to.equal(403);
      expect((await w.raw('POST', '/repos/alice/proj/issues/1/reactions', { content: 'eyes' }, { token: carol.token })).status).to.equal(403);
      await ok('DELETE', '/user/blocks/carol', undefined, alice.token);
    });
  });
});
