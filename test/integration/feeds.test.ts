/**
 * Activity feeds: events made by real actions (git pushes over HTTP, issues, comments, releases,
 * pull requests, repository changes through the API) show in the repository's, the user's, the
 * organization's and the team's feeds with Gitea's Activity shape, newest first; nobody sees an
 * event of a repository they cannot read, and other people's feeds hold no private events.
 */
import { expect } from 'chai';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { apiRepo, GitTool, waitFor } from '../helpers/refs';

type Act = { id: number; user_id: number; op_type: string; act_user_id: number; act_user: { login: string } | null; repo_id: number; repo: { full_name: string } | null; comment_id: number; comment: { body: string; user: unknown; html_url: string } | null; ref_name: string; is_private: boolean; content: string; created: string };

describe('activity feeds', () => {
  let w: World;
  let ann: TestUser;
  let ben: TestUser;
  let cat: TestUser;
  let g: GitTool;
  const feed = async (path: string, u?: TestUser): Promise<Act[]> => {
    const r = await w.raw('GET', path, undefined, u ? { token: u.token } : {});
    expect(r.status, r.text).to.equal(200);
    expect(Number(r.headers.get('x-total-count'))).to.be.at.least((r.body as Act[]).length);
    return r.body as Act[];
  };
  const ops = (acts: Act[]) => acts.map((a) => a.op_type);

  before(async () => {
    w = await startWorld();
    [ann, ben, cat] = [await w.user('ann'), await w.user('ben'), await w.user('cat')];
    g = new GitTool(w);
    await apiRepo(w, ann, 'pub');
    await apiRepo(w, ann, 'priv', { auto_init: true, private: true });
  });
  after(() => w.stop());

  it('records pushes over HTTP: a new branch twice, its commits as Gitea\'s JSON, tags and deletions', async () => {
    const d = await g.clone(ann, 'ann', 'pub');
    const base = await g.ok(['rev-parse', 'HEAD'], d);
    await g.ok(['checkout', '-q', '-b', 'feat'], d);
    await g.commit(d, 'a.txt', 'a', 'first change');
    const tip = await g.commit(d, 'b.txt', 'b', 'second change');
    // why: a push is recorded after it returns; each is awaited so the feed's order is the pushes'.
    const settled = (n: number) => waitFor(`${n} events`, async () => (await feed('/repos/ann/pub/activities/feeds', ann)).length === n);
    await g.ok(['push', '-q', 'origin', 'feat'], d);
    await settled(3);
    await g.ok(['tag', 'v1'], d);
    await g.ok(['push', '-q', 'origin', 'v1'], d);
    await settled(4);
    await g.ok(['push', '-q', 'origin', ':feat'], d);
    await settled(5);
    const acts = await feed('/repos/ann/pub/activities/feeds', ann);
    expect(ops(acts)).to.deep.equal(['delete_branch', 'push_tag', 'commit_repo', 'commit_repo', 'create_repo']);
    const [deleted, tag, pushed, created] = acts;
    expect(deleted).to.deep.include({ ref_name: 'refs/heads/feat', content: '', act_user_id: ann.id, user_id: ann.id, is_private: false, comment_id: 0, comment: null });
    expect(deleted.act_user?.login).to.equal('ann');
    expect(deleted.repo?.full_name).to.equal('ann/pub');
    expect(created).to.deep.include({ op_type: 'commit_repo', ref_name: 'refs/heads/feat', content: '' });
    const json = JSON.parse(pushed.content);
    expect(json.Len).to.equal(3);
    expect(json.Commits.map((c: { Message: string }) => c.Message.trim())).to.deep.equal(['second change', 'first change', 'Initial commit']);
    expect(json.HeadCommit.Sha1).to.equal(tip);
    expect(json.Commits[0]).to.have.keys(['Sha1', 'Message', 'AuthorEmail', 'AuthorName', 'CommitterEmail', 'CommitterName', 'Timestamp']);
    expect(json.CompareURL).to.equal('ann/pub/compare/main...' + tip);
    expect(base).to.have.length(40);
    const t = JSON.parse(tag.content);
    expect([tag.ref_name, t.Commits, t.HeadCommit.Sha1, t.Len]).to.deep.equal(['refs/tags/v1', null, tip, 0]);
    expect(Date.parse(pushed.created)).to.be.closeTo(Date.now(), 120_000);
  });

  it('records issues, comments, closing and releases; a deleted comment leaves the feed', async () => {
    const issue = (await ben.api.repos.issueCreateIssue('ann', 'pub', { title: 'It breaks' })).data;
    const c = (await ben.api.repos.issueCreateComment('ann', 'pub', issue.number!, { body: 'more detail' })).data;
    const gone = (await ben.api.repos.issueCreateComment('ann', 'pub', issue.number!, { body: 'oops' })).data;
    await ann.api.repos.issueEditIssue('ann', 'pub', issue.number!, { state: 'closed' });
    await ann.api.repos.repoCreateRelease('ann', 'pub', { tag_name: 'v2', name: 'Second', target_commitish: 'main' });
    expect((await w.raw('DELETE', `/repos/ann/pub/issues/comments/${gone.id}`, undefined, { token: ben.token })).status).to.equal(204);
    const acts = await feed('/repos/ann/pub/activities/feeds', ann);
    const issueOps = ops(acts).filter((o) => ['publish_release', 'close_issue', 'comment_issue', 'create_issue'].includes(o));
    expect(issueOps).to.deep.equal(['publish_release', 'close_issue', 'comment_issue', 'create_issue']);
    const of = (op: string) => acts.find((a) => a.op_type === op)!;
    expect(of('publish_release')).to.deep.include({ ref_name: 'refs/tags/v2', content: 'Second', act_user_id: ann.id });
    expect(of('close_issue')).to.deep.include({ content: `${issue.number}|` });
    expect(of('close_issue').comment_id).to.be.above(0);
    expect(of('comment_issue')).to.deep.include({ content: `${issue.number}|more detail`, comment_id: c.id, act_user_id: ben.id, user_id: ben.id });
    expect(of('comment_issue').comment).to.deep.include({ body: 'more detail', user: null });
    expect(of('comment_issue').comment!.html_url).to.match(new RegExp(`/ann/pub/issues/${issue.number}#issuecomment-${c.id}$`));
    expect(of('create_issue')).to.deep.include({ content: `${issue.number}|It breaks` });
  });

  it('gives a user its own acts and its watched repositories\' events (or only its acts)', async () => {
    const before = ops(await feed('/users/ben/activities/feeds', ben));
    expect(before).to.deep.equal(['comment_issue', 'create_issue']);
    await ben.api.repos.userCurrentPutSubscription('ann', 'pub');
    const watching = await feed('/users/ben/activities/feeds', ben);
    expect(watching.length).to.be.above(before.length);
    expect(watching.every((a) => a.user_id === ben.id)).to.equal(true);
    expect(ops(await feed('/users/ben/activities/feeds?only-performed-by=true', ben))).to.deep.equal(before);
    // ann's own feed: its repositories (it watches what it created), private ones included
    const mine = await feed('/users/ann/activities/feeds', ann);
    expect(mine.some((a) => a.repo?.full_name === 'ann/priv' && a.is_private)).to.equal(true);
  });

  it('never shows an event of a repository the caller cannot read, and keeps private events out of other people\'s feeds', async () => {
    const others = await feed('/users/ann/activities/feeds', ben);
    expect(others.length).to.be.above(0);
    expect(others.some((a) => a.repo?.full_name === 'ann/priv')).to.equal(false);
    expect((await feed('/users/ann/activities/feeds')).some((a) => a.is_private)).to.equal(false);
    expect((await w.raw('GET', '/repos/ann/priv/activities/feeds', undefined, { token: ben.token })).status).to.equal(404);
    expect((await w.raw('GET', '/repos/ann/priv/activities/feeds')).status).to.equal(404);
    // a collaborator reads it; the admin sees everything
    expect((await w.raw('PUT', '/repos/ann/priv/collaborators/ben', { permission: 'read' }, { token: ann.token })).status).to.equal(204);
    expect(ops(await feed('/repos/ann/priv/activities/feeds', ben))).to.deep.equal(['create_repo']);
    expect((await feed('/users/ann/activities/feeds', w.admin)).some((a) => a.repo?.full_name === 'ann/priv')).to.equal(true);
    // ben's own feed shows private events it can read only while it can read them
    await ben.api.repos.userCurrentPutSubscription('ann', 'priv');
    expect((await feed('/users/ben/activities/feeds', ben)).some((a) => a.repo?.full_name === 'ann/priv')).to.equal(true);
    expect((await w.raw('DELETE', '/repos/ann/priv/collaborators/ben', undefined, { token: ann.token })).status).to.equal(204);
    expect((await feed('/users/ben/activities/feeds', ben)).some((a) => a.repo?.full_name === 'ann/priv')).to.equal(false);
    expect((await w.raw('GET', '/users/nobody/activities/feeds')).status).to.equal(404);
  });

  it('hides the acts of a user who hides its activity from others, filters by day and pages', async () => {
    expect((await w.raw('PATCH', '/user/settings', { hide_activity: true }, { token: ben.token })).status).to.equal(200);
    const seen = await feed('/repos/ann/pub/activities/feeds', ann);
    expect(seen.some((a) => a.act_user_id === ben.id)).to.equal(false);
    expect((await feed('/repos/ann/pub/activities/feeds', ben)).some((a) => a.act_user_id === ben.id)).to.equal(true);
    expect((await w.raw('PATCH', '/user/settings', { hide_activity: false }, { token: ben.token })).status).to.equal(200);

    const all = await feed('/repos/ann/pub/activities/feeds', ann);
    const d = new Date();
    const today = `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
    expect(await feed(`/repos/ann/pub/activities/feeds?date=${today}`, ann)).to.have.length(all.length);
    expect(await feed('/repos/ann/pub/activities/feeds?date=2001-01-01', ann)).to.deep.equal([]);
    expect(await feed('/repos/ann/pub/activities/feeds?date=garbage', ann)).to.have.length(all.length);
    const page = await w.raw('GET', '/repos/ann/pub/activities/feeds?limit=2&page=2', undefined, { token: ann.token });
    expect(page.body.map((a: Act) => a.id)).to.deep.equal(all.slice(2, 4).map((a) => a.id));
    expect(page.headers.get('x-total-count')).to.equal(String(all.length));
  });

  it('records renames and transfers, and gives organizations and teams their repositories\' events', async () => {
    await apiRepo(w, ann, 'old');
    expect((await w.raw('PATCH', '/repos/ann/old', { name: 'renamed' }, { token: ann.token })).status).to.equal(200);
    expect((await feed('/repos/ann/renamed/activities/feeds', ann))[0]).to.deep.include({ op_type: 'rename_repo', content: 'old' });

    expect((await w.raw('POST', '/orgs', { username: 'acme' }, { token: ann.token })).status).to.equal(201);
    expect((await w.raw('POST', '/repos/ann/renamed/transfer', { new_owner: 'acme' }, { token: ann.token })).status).to.equal(202);
    expect((await feed('/repos/acme/renamed/activities/feeds', ann))[0]).to.deep.include({ op_type: 'transfer_repo', content: 'ann/renamed' });
    expect((await w.raw('POST', '/orgs/acme/repos', { name: 'secret', private: true }, { token: ann.token })).status).to.equal(201);

    const org = await feed('/orgs/acme/activities/feeds', ann);
    expect(org.every((a) => a.user_id !== ann.id && a.repo!.full_name.startsWith('acme/'))).to.equal(true);
    expect(org.some((a) => a.repo!.full_name === 'acme/secret')).to.equal(true);
    expect((await feed('/orgs/acme/activities/feeds', cat)).some((a) => a.repo!.full_name === 'acme/secret')).to.equal(false);

    const team = await w.raw('POST', '/orgs/acme/teams', { name: 'devs', permission: 'read', units: ['repo.code'], includes_all_repositories: false }, { token: ann.token });
    expect(team.status, team.text).to.equal(201);
    const tid = team.body.id as number;
    expect((await w.raw('PUT', `/teams/${tid}/repos/acme/secret`, undefined, { token: ann.token })).status).to.equal(204);
    expect((await w.raw('GET', `/teams/${tid}/activities/feeds`, undefined, { token: cat.token })).status).to.equal(404);
    expect((await w.raw('PUT', `/teams/${tid}/members/cat`, undefined, { token: ann.token })).status).to.equal(204);
    const teamFeed = await feed(`/teams/${tid}/activities/feeds`, cat);
    expect(teamFeed.map((a) => a.repo!.full_name)).to.deep.equal(['acme/secret']);
    expect(teamFeed[0]).to.deep.include({ op_type: 'create_repo', user_id: team.body.organization.id, is_private: true });
    expect((await w.raw('GET', `/teams/${tid}/activities/feeds`)).status).to.equal(401);
  });
});
