/**
 * Stars, watches, collaborators and topics (Gitea 1.24): counters kept in step, permission rules,
 * blocks, topic validation and pagination headers. Every refusal is shown to change nothing.
 */
import { expect } from 'chai';
import { startWorld, type World, type TestUser, type RawResponse } from '../helpers/world';
import { sql, count, insertRepo, insertOrg } from '../helpers/db';

function expectError(res: RawResponse, status: number, message?: string): void {
  expect(res.status, res.text).to.equal(status);
  if (message !== undefined) expect(res.body.message).to.equal(message);
}

describe('stars, watches, collaborators and topics', () => {
  let w: World;
  let ann: TestUser;
  let ben: TestUser;
  let cat: TestUser;
  let dan: TestUser;
  before(async () => {
    w = await startWorld();
    [ann, ben, cat, dan] = [await w.user('ann'), await w.user('ben'), await w.user('cat'), await w.user('dan')];
    await insertRepo(w.server, ann.id, 'ann', 'pub');
    await insertRepo(w.server, ann.id, 'ann', 'pub2');
    await insertRepo(w.server, ann.id, 'ann', 'priv', true);
  });
  after(async () => { await w?.stop(); });

  const repoCounters = async (name: string) => {
    const [r] = await sql(w.server, 'SELECT num_stars, num_watches FROM repository WHERE owner_id = $1 AND lower_name = $2', [ann.id, name]);
    return { stars: Number(r.num_stars), watches: Number(r.num_watches) };
  };
  const userStars = async (u: TestUser) => Number((await sql(w.server, 'SELECT num_stars FROM users WHERE id = $1', [u.id]))[0].num_stars);

  describe('stars', () => {
    it('stars and unstars, keeping both counters consistent', async () => {
      expect((await ben.api.user.userCurrentPutStar('ann', 'pub')).status).to.equal(204);
      expect((await ben.api.user.userCurrentPutStar('ann', 'pub')).status).to.equal(204);
      expect(await repoCounters('pub')).to.deep.include({ stars: 1 });
      expect(await userStars(ben)).to.equal(1);
      expect((await w.client().users.userGet('ben')).data.starred_repos_count).to.equal(1);
      expect((await ben.api.user.userCurrentCheckStarring('ann', 'pub')).status).to.equal(204);
      const gazers = await ann.api.repos.repoListStargazers('ann', 'pub');
      expect(gazers.data.map((u) => u.login)).to.deep.equal(['ben']);
      expect(gazers.headers.get('x-total-count')).to.equal('1');
      const mine = await ben.api.user.userCurrentListStarred();
      expect(mine.data.map((r) => r.full_name)).to.deep.equal(['ann/pub']);
      expect(mine.data[0].stars_count).to.equal(1);
      expect((await w.client().users.userListStarred('ben')).data.map((r) => r.full_name)).to.deep.equal(['ann/pub']);

      expect((await ben.api.user.userCurrentDeleteStar('ann', 'pub')).status).to.equal(204);
      expect(await repoCounters('pub')).to.deep.include({ stars: 0 });
      expect(await userStars(ben)).to.equal(0);
      expectError(await w.raw('GET', '/user/starred/ann/pub', undefined, { token: ben.token }), 404);
    });

    it('paginates starred repositories with X-Total-Count and Link', async () => {
      await ben.api.user.userCurrentPutStar('ann', 'pub');
      await ben.api.user.userCurrentPutStar('ann', 'pub2');
      const page = await ben.api.user.userCurrentListStarred({ page: 1, limit: 1 });
      expect(page.data.map((r) => r.full_name)).to.deep.equal(['ann/pub2']);
      expect(page.headers.get('x-total-count')).to.equal('2');
      expect(page.headers.get('link')).to.contain('rel="next"').and.contain('page=2');
      const second = await ben.api.user.userCurrentListStarred({ page: 2, limit: 1 });
      expect(second.data.map((r) => r.full_name)).to.deep.equal(['ann/pub']);
      await ben.api.user.userCurrentDeleteStar('ann', 'pub');
      await ben.api.user.userCurrentDeleteStar('ann', 'pub2');
    });

    it('hides private repositories: 404 to star, absent from other users\' lists', async () => {
      expectError(await w.raw('PUT', '/user/starred/ann/priv', undefined, { token: ben.token }), 404);
      expect(await count(w.server, 'SELECT COUNT(*) AS n FROM star WHERE uid = $1', [ben.id])).to.equal(0);
      expect(await userStars(ben)).to.equal(0);
      await ann.api.user.userCurrentPutStar('ann', 'priv');
      expect((await ben.api.users.userListStarred('ann')).data).to.deep.equal([]);
      expect((await ann.api.users.userListStarred('ann')).data.map((r) => r.full_name)).to.deep.equal(['ann/priv']);
      expectError(await w.raw('GET', '/repos/ann/priv/stargazers', undefined, { token: ben.token }), 404);
      expectError(await w.raw('GET', '/user/starred'), 401);
    });
  });

  describe('watches', () => {
    it('requires a token for the subscription', async () => {
      expectError(await w.raw('GET', '/repos/ann/pub/subscription'), 401);
      expectError(await w.raw('PUT', '/repos/ann/pub/subscription'), 401);
      // the administrator who created it watches it (AUTO_WATCH_NEW_REPOS)
      expect(await repoCounters('pub')).to.deep.include({ watches: 1 });
    });

    it('watches and unwatches, keeping num_watches consistent', async () => {
      expectError(await w.raw('GET', '/repos/ann/pub/subscription', undefined, { token: ben.token }), 404);
      const put = await ben.api.repos.userCurrentPutSubscription('ann', 'pub');
      expect(put.status).to.equal(200);
      expect(put.data).to.include({ subscribed: true, ignored: false, reason: null });
      expect(put.data.url).to.match(/\/api\/v1\/repos\/ann\/pub\/subscription$/);
      expect(put.data.repository_url).to.match(/\/api\/v1\/repos\/ann\/pub$/);
      await ben.api.repos.userCurrentPutSubscription('ann', 'pub');
      expect(await repoCounters('pub')).to.deep.include({ watches: 2 });
      expect((await ben.api.repos.userCurrentCheckSubscription('ann', 'pub')).data.subscribed).to.equal(true);
      const subs = await w.client().repos.repoListSubscribers('ann', 'pub');
      expect(subs.data.map((u) => u.login)).to.deep.equal(['root', 'ben']);
      expect(subs.headers.get('x-total-count')).to.equal('2');
      expect((await ben.api.user.userCurrentListSubscriptions()).data.map((r) => r.full_name)).to.deep.equal(['ann/pub']);
      const theirs = await cat.api.users.userListSubscriptions('ben');
      expect(theirs.data.map((r) => r.watchers_count)).to.deep.equal([2]);
      expect(theirs.headers.get('x-total-count')).to.equal('1');

      expect((await ben.api.repos.userCurrentDeleteSubscription('ann', 'pub')).status).to.equal(204);
      expect(await repoCounters('pub')).to.deep.include({ watches: 1 });
      expectError(await w.raw('GET', '/repos/ann/pub/subscription', undefined, { token: ben.token }), 404);
    });

    it('hides private repositories', async () => {
      expectError(await w.raw('PUT', '/repos/ann/priv/subscription', undefined, { token: ben.token }), 404);
      expect(await repoCounters('priv')).to.deep.include({ watches: 1 });
    });
  });

  describe('collaborators', () => {
    const collaborators = async (repo = 'pub') => (await ann.api.repos.repoListCollaborators('ann', repo)).data.map((u) => u.login);

    it('refuses non-admins (403) and unknown users (422), changing nothing', async () => {
      expectError(await w.raw('PUT', '/repos/ann/pub/collaborators/cat', { permission: 'write' }, { token: ben.token }), 403);
      expectError(await w.raw('PUT', '/repos/ann/pub/collaborators/nobody', {}, { token: ann.token }), 422);
      expectError(await w.raw('PUT', '/repos/ann/pub/collaborators/cat', { permission: 'owner' }, { token: ann.token }), 422);
      expectError(await w.raw('PUT', '/repos/ann/priv/collaborators/cat', {}, { token: ben.token }), 404);
      expect(await collaborators()).to.deep.equal([]);
      expect(await count(w.server, 'SELECT COUNT(*) AS n FROM collaboration')).to.equal(0);
    });

    it('adds, lists, checks, reports permissions and removes', async () => {
      expect((await ann.api.repos.repoAddCollaborator('ann', 'pub', 'ben', { permission: 'write' })).status).to.equal(204);
      expect(await collaborators()).to.deep.equal(['ben']);
      const list = await ann.api.repos.repoListCollaborators('ann', 'pub');
      expect(list.headers.get('x-total-count')).to.equal('1');
      expect((await ann.api.repos.repoCheckCollaborator('ann', 'pub', 'ben')).status).to.equal(204);
      expectError(await w.raw('GET', '/repos/ann/pub/collaborators/cat', undefined, { token: ann.token }), 404);

      const perm = await ben.api.repos.repoGetRepoPermissions('ann', 'pub', 'ben');
      expect(perm.data).to.include({ permission: 'write', role_name: 'write' });
      expect(perm.data.user?.login).to.equal('ben');
      expect((await ann.api.repos.repoGetRepoPermissions('ann', 'pub', 'cat')).data.permission).to.equal('read');
      expectError(await w.raw('GET', '/repos/ann/pub/collaborators/cat/permission', undefined, { token: ben.token }), 403);

      // a write collaborator is not an admin; an admin collaborator may add others
      expectError(await w.raw('PUT', '/repos/ann/pub/collaborators/cat', {}, { token: ben.token }), 403);
      await ann.api.repos.repoAddCollaborator('ann', 'pub', 'ben', { permission: 'admin' });
      expect((await ann.api.repos.repoGetRepoPermissions('ann', 'pub', 'ben')).data.permission).to.equal('admin');
      expect((await ben.api.repos.repoAddCollaborator('ann', 'pub', 'cat', { permission: 'read' })).status).to.equal(204);
      expect(await collaborators()).to.deep.equal(['ben', 'cat']);

      // a collaborator of a private repository can see it
      await ann.api.repos.repoAddCollaborator('ann', 'priv', 'cat', { permission: 'read' });
      expect((await cat.api.repos.repoListCollaborators('ann', 'priv')).data.map((u) => u.login)).to.deep.equal(['cat']);
      expectError(await w.raw('GET', '/repos/ann/priv/collaborators', undefined, { token: ben.token }), 404);

      expect((await ann.api.repos.repoDeleteCollaborator('ann', 'pub', 'cat')).status).to.equal(204);
      expect((await ann.api.repos.repoDeleteCollaborator('ann', 'priv', 'cat')).status).to.equal(204);
      expect(await collaborators()).to.deep.equal(['ben']);
    });

    it('lists assignees: the owner, write collaborators, and team members for organizations', async () => {
      await ann.api.repos.repoAddCollaborator('ann', 'pub', 'cat', { permission: 'read' });
      const names = async (owner: string, repo: string) => (await cat.api.repos.repoGetAssignees(owner, repo)).data.map((u) => u.login);
      expect(await names('ann', 'pub')).to.deep.equal(['ann', 'ben']);
      await ann.api.repos.repoDeleteCollaborator('ann', 'pub', 'cat');
      const orgId = await insertOrg(w.server, 'guild', [ann.id]);
      await insertRepo(w.server, orgId, 'guild', 'tools');
      expect(await names('guild', 'tools')).to.deep.equal(['ann']);
      await ann.api.repos.repoAddCollaborator('guild', 'tools', 'cat', {});
      expect(await names('guild', 'tools')).to.deep.equal(['ann', 'cat']);
      expect((await ann.api.repos.repoGetRepoPermissions('guild', 'tools', 'cat')).data.permission).to.equal('write');
      await ann.api.repos.repoDeleteCollaborator('guild', 'tools', 'cat');
    });
  });

  describe('blocks', () => {
    before(async () => { await ann.api.user.userBlockUser('dan'); });

    it('a user blocked by the owner cannot become a collaborator', async () => {
      expectError(await w.raw('PUT', '/repos/ann/pub/collaborators/dan', { permission: 'read' }, { token: ann.token }), 403, 'user is blocked');
      expect(await count(w.server, 'SELECT COUNT(*) AS n FROM collaboration WHERE user_id = $1', [dan.id])).to.equal(0);
    });

    it('cannot star or watch the blocker\'s repositories', async () => {
      const before = await repoCounters('pub');
      expectError(await w.raw('PUT', '/user/starred/ann/pub', undefined, { token: dan.token }), 403, 'user is blocked');
      expectError(await w.raw('PUT', '/repos/ann/pub/subscription', undefined, { token: dan.token }), 403, 'user is blocked');
      expect(await repoCounters('pub')).to.deep.equal(before);
      expect(await userStars(dan)).to.equal(0);
      expect(await count(w.server, 'SELECT COUNT(*) AS n FROM star WHERE uid = $1', [dan.id])).to.equal(0);
      expect(await count(w.server, 'SELECT COUNT(*) AS n FROM watch WHERE user_id = $1', [dan.id])).to.equal(0);
    });

    it('blocking the owner works the same way', async () => {
      await cat.api.user.userBlockUser('ann');
      expectError(await w.raw('PUT', '/user/starred/ann/pub', undefined, { token: cat.token }), 403, 'user is blocked');
      expectError(await w.raw('PUT', '/repos/ann/pub/collaborators/cat', {}, { token: ann.token }), 403, 'user is blocked');
      expect(await count(w.server, 'SELECT COUNT(*) AS n FROM star WHERE uid = $1', [cat.id])).to.equal(0);
      await cat.api.user.userUnblockUser('ann');
    });
  });

  describe('topics', () => {
    const topics = async (repo = 'pub') => (await w.client().repos.repoListTopics('ann', repo)).data.topics;

    it('replaces topics, normalized and deduplicated', async () => {
      expect((await ann.api.repos.repoUpdateTopics('ann', 'pub', { topics: ['Go', 'web-app', ' go ', 'v1.2'] })).status).to.equal(204);
      expect(await topics()).to.deep.equal(['go', 'v1.2', 'web-app']);
      const res = await w.raw('GET', '/repos/ann/pub/topics?limit=2');
      expect(res.body.topics).to.deep.equal(['go', 'v1.2']);
      expect(res.headers.get('x-total-count')).to.equal('3');
    });

    it('refuses invalid names and too many topics with 422, changing nothing', async () => {
      const bad = await w.raw('PUT', '/repos/ann/pub/topics', { topics: ['ok', '-bad', 'a_b', 'x'.repeat(36)] }, { token: ann.token });
      expectError(bad, 422, 'Topic names are invalid');
      expect(bad.body.invalidTopics).to.deep.equal(['-bad', 'a_b', 'x'.repeat(36)]);
      const many = Array.from({ length: 26 }, (_, i) => `t${i}`);
      const tooMany = await w.raw('PUT', '/repos/ann/pub/topics', { topics: many }, { token: ann.token });
      expectError(tooMany, 422, 'Exceeding maximum number of topics per repo');
      const one = await w.raw('PUT', '/repos/ann/pub/topics/Not%20Valid', undefined, { token: ann.token });
      expectError(one, 422, 'Topic name is invalid');
      expect(one.body.invalidTopics).to.equal('not valid');
      expectError(await w.raw('PUT', '/repos/ann/pub/topics', { topics: { a: 1 }, extra: 1 }, { token: ann.token }), 422);
      expect(await topics()).to.deep.equal(['go', 'v1.2', 'web-app']);
    });

    it('allows exactly 25 topics and refuses a 26th one', async () => {
      await ann.api.repos.repoUpdateTopics('ann', 'pub2', { topics: Array.from({ length: 25 }, (_, i) => `t${i}`) });
      expect(await topics('pub2')).to.have.length(25);
      expectError(await w.raw('PUT', '/repos/ann/pub2/topics/extra', undefined, { token: ann.token }), 422, 'Exceeding maximum allowed topics per repo.');
      const both = await w.raw('PUT', '/repos/ann/pub2/topics', { topics: [...Array.from({ length: 26 }, (_, i) => `n${i}`), 'bad_'] }, { token: ann.token });
      expectError(both, 422, 'Exceeding maximum number of topics per repo');
      expect(both.body.invalidTopics).to.equal(null);
      expect(await topics('pub2')).to.have.length(25);
      await ann.api.repos.repoUpdateTopics('ann', 'pub2', { topics: ['go'] });
      expect(await topics('pub2')).to.deep.equal(['go']);
    });

    it('only repository admins change topics', async () => {
      expectError(await w.raw('PUT', '/repos/ann/pub/topics', { topics: ['x'] }, { token: cat.token }), 403);
      expectError(await w.raw('PUT', '/repos/ann/pub/topics/x', undefined, { token: cat.token }), 403);
      expectError(await w.raw('DELETE', '/repos/ann/pub/topics/go', undefined, { token: cat.token }), 403);
      expectError(await w.raw('GET', '/repos/ann/priv/topics', undefined, { token: cat.token }), 404);
      expect(await topics()).to.deep.equal(['go', 'v1.2', 'web-app']);
    });

    it('adds and removes single topics and searches them with repository counts', async () => {
      expect((await ann.api.repos.repoAddTopic('ann', 'pub', 'Rust')).status).to.equal(204);
      expect((await ann.api.repos.repoDeleteTopic('ann', 'pub', 'web-app')).status).to.equal(204);
      expectError(await w.raw('DELETE', '/repos/ann/pub/topics/web-app', undefined, { token: ann.token }), 404);
      expect(await topics()).to.deep.equal(['go', 'rust', 'v1.2']);
      const found = await w.client().topics.topicSearch({ q: 'go' });
      // why: gitea-js types this as an array, but Gitea (and we) answer {topics: [...]}.
      const body = found.data as unknown as { topics: { topic_name: string; repo_count: number }[] };
      expect(body.topics.map((t) => [t.topic_name, t.repo_count])).to.deep.equal([['go', 2]]);
      expect(found.headers.get('x-total-count')).to.equal('1');
      const web = await w.raw('GET', '/topics/search?q=web');
      expect(web.body.topics.map((t: { repo_count: number }) => t.repo_count)).to.deep.equal([0]);
      expect((await w.raw('GET', '/topics/search?q=%25')).body.topics).to.deep.equal([]);
    });
  });
});
