/**
 * Notifications: real actions through gitea-js and git (issues, comments with mentions, closing,
 * pull requests merged, review requests, transfers) make threads for the repository's watchers,
 * the issue's participants and subscribers, and the users mentioned, assigned or asked, never the
 * doer; threads are listed, marked and counted with Gitea's shapes and filters; nobody gets or keeps
 * seeing a thread of a repository they cannot read; bad input is a clear 4xx that changes nothing.
 */
import http from 'node:http';
import { expect } from 'chai';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { apiRepo, GitTool, waitFor } from '../helpers/refs';
import { count } from '../helpers/db';

type Thread = {
  id: number; unread: boolean; pinned: boolean; updated_at: string; url: string;
  repository: { full_name: string; permissions?: unknown } | null;
  subject: { title: string; url: string; html_url: string; latest_comment_url: string; latest_comment_html_url: string; type: string; state: string } | null;
};

describe('notifications', () => {
  let w: World;
  let ann: TestUser;
  let ben: TestUser;
  let cat: TestUser;
  let dan: TestUser;
  let g: GitTool;
  const get = (u: TestUser, path: string) => w.raw('GET', path, undefined, { token: u.token });
  /** A PUT or PATCH answered 205 with a body, which fetch drops (205 is a null-body status there), read with node:http. */
  const reset = (u: TestUser, method: string, path: string): Promise<{ status: number; body: Thread[] & Thread }> => new Promise((resolve, reject) => {
    const req = http.request(`${w.server.url}api/v1${path}`, { method, headers: { Authorization: `token ${u.token}` } }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(parts).toString() || 'null') }));
    });
    req.once('error', reject);
    req.end();
  });
  const threads = async (u: TestUser, q = ''): Promise<Thread[]> => {
    const r = await get(u, `/notifications${q}`);
    expect(r.status, r.text).to.equal(200);
    return r.body as Thread[];
  };
  /** Notifications are written after the change commits; wait until `u` has `n` threads (of any status). */
  const settle = (u: TestUser, n: number, q = '?all=true') => waitFor(`${u.name}'s ${n} threads`, async () => (await threads(u, q)).length === n);
  const unreadCount = async (u: TestUser) => (await u.api.notifications.notifyNewAvailable()).data.new;
  /** Wait until every queued notification is written. */
  const drained = () => waitFor('notifications written', async () => (await count(w.server, 'SELECT COUNT(*) AS n FROM outbox WHERE topic = $1 AND status <> $2', ['notification.issue', 'done'])) === 0);

  before(async () => {
    w = await startWorld();
    [ann, ben, cat, dan] = [await w.user('ann'), await w.user('ben'), await w.user('cat'), await w.user('dan')];
    g = new GitTool(w);
    await apiRepo(w, ann, 'pub');
    await apiRepo(w, ann, 'priv', { auto_init: true, private: true });
    expect((await w.raw('PUT', '/repos/ann/priv/collaborators/ben', { permission: 'write' }, { token: ann.token })).status).to.equal(204);
  });
  after(() => w.stop());

  it('tells the repository\'s watchers and the mentioned of a new issue, never its author', async () => {
    const issue = (await ben.api.repos.issueCreateIssue('ann', 'pub', { title: 'Broken', body: 'see @cat and @nobody' })).data;
    await settle(ann, 1);
    await settle(cat, 1);
    const [t] = await threads(ann);
    expect(t).to.deep.include({ unread: true, pinned: false });
    expect(t.url).to.equal(`${w.server.url}api/v1/notifications/threads/${t.id}`);
    expect(t.repository?.full_name).to.equal('ann/pub');
    expect(t.repository).to.not.have.property('permissions');
    expect(t.subject).to.deep.equal({
      title: 'Broken', url: `${w.server.url}api/v1/repos/ann/pub/issues/${issue.number}`, html_url: `${w.server.url}ann/pub/issues/${issue.number}`,
      latest_comment_url: '', latest_comment_html_url: '', type: 'Issue', state: 'open',
    });
    expect(await unreadCount(ann)).to.equal(1);
    expect((await get(ann, '/notifications')).headers.get('x-total-count')).to.equal('1');
    expect(await threads(ben, '?all=true')).to.deep.equal([]);

    // the author is a participant: ann's comment reaches ben, and points at the latest comment
    const c = (await ann.api.repos.issueCreateComment('ann', 'pub', issue.number!, { body: 'looking' })).data;
    await settle(ben, 1);
    const [b] = await threads(ben);
    expect(b.subject).to.deep.include({ latest_comment_url: `${w.server.url}api/v1/repos/ann/pub/issues/comments/${c.id}`, latest_comment_html_url: `${w.server.url}ann/pub/issues/${issue.number}#issuecomment-${c.id}` });
    expect((await threads(ann)).map((x) => x.id)).to.deep.equal([t.id]);
  });

  it('marks threads read, unread and pinned, brings them up, and counts only unread ones', async () => {
    const [t] = await threads(ann);
    const read = await reset(ann, 'PATCH', `/notifications/threads/${t.id}`);
    expect(read.status).to.equal(205);
    expect(read.body).to.deep.include({ id: t.id, unread: false, pinned: false });
    expect([await threads(ann), await unreadCount(ann)]).to.deep.equal([[], 0]);
    expect(await threads(ann, '?all=true')).to.have.length(1);
    expect(await threads(ann, '?status-types=read')).to.have.length(1);

    const pinned = await reset(ann, 'PUT', '/notifications?status-types=read&to-status=pinned');
    expect(pinned.status).to.equal(205);
    expect(pinned.body.map((x) => [x.id, x.pinned, x.unread])).to.deep.equal([[t.id, true, false]]);
    expect((await threads(ann)).map((x) => x.pinned)).to.deep.equal([true]);
    expect(await unreadCount(ann)).to.equal(0);

    // a new comment brings a pinned thread up but leaves it pinned; a read one becomes unread
    await ben.api.repos.issueCreateComment('ann', 'pub', 1, { body: 'more' });
    await drained();
    expect((await threads(ann)).map((x) => [x.pinned, x.unread])).to.deep.equal([[true, false]]);
    const unpinned = await reset(ann, 'PATCH', `/notifications/threads/${t.id}?to-status=read`);
    expect(unpinned.body).to.deep.include({ pinned: false, unread: false });
    await ben.api.repos.issueCreateComment('ann', 'pub', 1, { body: 'again' });
    await waitFor('ann\'s thread unread again', async () => (await unreadCount(ann)) === 1);

    // PUT marks unread ones read by default, up to last_read_at
    const early = await reset(ann, 'PUT', '/notifications?last_read_at=2001-01-01T00:00:00Z');
    expect([early.status, early.body]).to.deep.equal([205, []]);
    expect(await unreadCount(ann)).to.equal(1);
    const all = await reset(ann, 'PUT', '/notifications');
    expect(all.body.map((x) => x.unread)).to.deep.equal([false]);
    expect(await unreadCount(ann)).to.equal(0);
  });

  it('refuses bad input and other users\' threads with a clear 4xx, changing nothing', async () => {
    const [t] = await threads(ann, '?all=true');
    const bad = await get(ann, '/notifications?since=yesterday');
    expect([bad.status, bad.body.message]).to.deep.equal([422, 'parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"']);
    expect((await w.raw('PUT', '/notifications?all=true&to-status=unread&last_read_at=soon', undefined, { token: ann.token })).status).to.equal(400);
    expect(await unreadCount(ann)).to.equal(0);
    const theirs = await get(ben, `/notifications/threads/${t.id}`);
    expect([theirs.status, theirs.body.message]).to.deep.equal([403, `only user itself and admin are allowed to read/change this thread ${t.id}`]);
    expect((await w.raw('PATCH', `/notifications/threads/${t.id}?to-status=unread`, undefined, { token: ben.token })).status).to.equal(403);
    expect((await w.raw('PATCH', `/notifications/threads/${t.id}?to-status=unread`, undefined, { token: w.admin.token })).status).to.equal(403);
    expect(await unreadCount(ann)).to.equal(0);
    expect((await get(w.admin, `/notifications/threads/${t.id}`)).status).to.equal(200);
    expect((await get(ann, '/notifications/threads/999999')).body.message).to.equal('notification does not exist [id: 999999]');
    expect((await get(ann, '/notifications/threads/abc')).status).to.equal(404);
    expect((await w.raw('GET', '/notifications')).status).to.equal(401);
    const narrow = await w.raw('POST', '/users/ann/tokens', { name: 'narrow', scopes: ['read:repository'] }, { basic: ['ann', ann.password] });
    expect((await w.raw('GET', '/notifications', undefined, { token: narrow.body.sha1 })).status).to.equal(403);
    // unknown status and subject names are dropped (Gitea): only unknown ones filter nothing
    expect(await threads(ann, '?status-types=bogus')).to.have.length(1);
    expect(await threads(ann, '?all=true&subject-type=pull')).to.deep.equal([]);
  });

  it('never notifies of, nor shows, a repository the user cannot read', async () => {
    const issue = (await ann.api.repos.issueCreateIssue('ann', 'priv', { title: 'Private matter', body: '@ben @dan please look' })).data;
    await waitFor('ben told', async () => (await threads(ben)).some((t) => t.repository?.full_name === 'ann/priv'));
    await drained();
    expect(await threads(dan, '?all=true')).to.deep.equal([]);
    const thread = (await threads(ben)).find((t) => t.repository?.full_name === 'ann/priv')!;
    expect(thread.subject?.title).to.equal('Private matter');
    expect((await ben.api.repos.notifyGetRepoList('ann', 'priv')).data.map((t) => t.id)).to.deep.equal([thread.id]);
    expect((await w.raw('DELETE', '/repos/ann/priv/collaborators/ben', undefined, { token: ann.token })).status).to.equal(204);
    expect((await threads(ben, '?all=true')).some((t) => t.repository?.full_name === 'ann/priv')).to.equal(false);
    expect((await get(ben, `/notifications/threads/${thread.id}`)).status).to.equal(404);
    expect((await get(ben, '/repos/ann/priv/notifications')).status).to.equal(404);
    expect(issue.number).to.equal(1);
  });

  it('tells of pull requests merged and review requests, per repository, and of an offered repository', async () => {
    const d = await g.clone(ann, 'ann', 'pub');
    await g.ok(['checkout', '-q', '-b', 'topic'], d);
    await g.commit(d, 'x.txt', 'x');
    await g.ok(['push', '-q', 'origin', 'topic'], d);
    const pr = await w.raw('POST', '/repos/ann/pub/pulls', { head: 'topic', base: 'main', title: 'Add x', reviewers: ['cat'] }, { token: ann.token });
    expect(pr.status, pr.text).to.equal(201);
    await waitFor('cat asked to review', async () => (await threads(cat)).some((t) => t.subject?.type === 'Pull'));
    await ben.api.repos.userCurrentPutSubscription('ann', 'pub');
    expect((await w.raw('POST', `/repos/ann/pub/pulls/${pr.body.number}/merge`, { Do: 'merge' }, { token: ann.token })).status).to.equal(200);
    await waitFor('ben told of the merge', async () => (await threads(ben, '?subject-type=pull')).length === 1);
    const [merged] = await threads(ben, '?subject-type=pull');
    expect(merged.subject).to.deep.include({ type: 'Pull', state: 'merged', title: 'Add x', url: `${w.server.url}api/v1/repos/ann/pub/issues/${pr.body.number}`, html_url: `${w.server.url}ann/pub/pulls/${pr.body.number}` });
    const repoRead = await reset(ben, 'PUT', '/repos/ann/pub/notifications?to-status=read');
    expect(repoRead.status).to.equal(205);
    expect(repoRead.body.every((t) => t.repository?.full_name === 'ann/pub' && !t.unread)).to.equal(true);
    expect((await ben.api.repos.notifyGetRepoList('ann', 'pub')).data).to.deep.equal([]);

    await apiRepo(w, ann, 'gift');
    expect((await w.raw('POST', '/repos/ann/gift/transfer', { new_owner: 'dan' }, { token: ann.token })).status).to.equal(201);
    await settle(dan, 1);
    const [offer] = await threads(dan);
    expect(offer.subject).to.deep.include({ type: 'Repository', title: 'ann/gift', url: '/ann/gift', html_url: `${w.server.url}ann/gift`, state: '' });
  });

  it('leaves out users who unsubscribed from an issue', async () => {
    const issue = (await ben.api.repos.issueCreateIssue('ann', 'pub', { title: 'Quiet please' })).data;
    await waitFor('ann told', async () => (await threads(ann)).some((t) => t.subject?.title === 'Quiet please'));
    expect((await w.raw('PUT', '/notifications', undefined, { token: ann.token })).status).to.equal(205);
    expect((await w.raw('DELETE', `/repos/ann/pub/issues/${issue.number}/subscriptions/ann`, undefined, { token: ann.token })).status).to.equal(201);
    await ben.api.repos.issueCreateComment('ann', 'pub', issue.number!, { body: 'ping' });
    await drained();
    expect(await unreadCount(ann)).to.equal(0);
  });
});
