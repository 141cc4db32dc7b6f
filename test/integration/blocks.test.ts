/**
 * Blocking (Gitea 1.24): a user's own blocks and an organization's blocks, the refusals, and what
 * a block removes (follows both ways, with counters) and prevents (joining the org's teams).
 */
import { expect } from 'chai';
import { startWorld, type World, type TestUser, type RawResponse } from '../helpers/world';
import { sql, insertRepo } from '../helpers/db';

function expectError(res: RawResponse, status: number, message?: string): void {
  expect(res.status, res.text).to.equal(status);
  if (message !== undefined) expect(res.body.message).to.equal(message);
}

describe('blocking', () => {
  let w: World;
  let ann: TestUser;
  let ben: TestUser;
  let cat: TestUser;
  before(async () => {
    w = await startWorld();
    [ann, ben, cat] = [await w.user('ann'), await w.user('ben'), await w.user('cat')];
    await ann.api.orgs.orgCreate({ username: 'guild' });
  });
  after(async () => { await w?.stop(); });

  const blockedBy = async (u: TestUser) => (await u.api.user.userListBlocks()).data.map((x) => x.login);
  const counters = async (name: string) => {
    const [r] = await sql(w.server, 'SELECT num_followers, num_following FROM users WHERE lower_name = $1', [name]);
    return { followers: Number(r.num_followers), following: Number(r.num_following) };
  };
  const follow = async (a: TestUser, b: TestUser) => {
    const now = new Date().toISOString();
    await sql(w.server, 'INSERT INTO follow (user_id, follow_id, created_at, updated_at) VALUES ($1, $2, $3, $4)', [a.id, b.id, now, now]);
    await sql(w.server, 'UPDATE users SET num_following = num_following + 1 WHERE id = $1', [a.id]);
    await sql(w.server, 'UPDATE users SET num_followers = num_followers + 1 WHERE id = $1', [b.id]);
  };

  describe('a user\'s blocks', () => {
    it('blocks with a note, removing follows both ways and keeping counters consistent', async () => {
      await follow(ann, ben);
      await follow(ben, ann);
      await follow(cat, ben);
      expect(await counters('ben')).to.deep.equal({ followers: 2, following: 1 });
      const res = await ann.api.user.userBlockUser('ben', { note: 'spam' });
      expect(res.status).to.equal(204);
      const follows = await sql(w.server, 'SELECT user_id, follow_id FROM follow ORDER BY id');
      expect(follows.map((f) => [Number(f.user_id), Number(f.follow_id)])).to.deep.equal([[cat.id, ben.id]]);
      expect(await counters('ann')).to.deep.equal({ followers: 0, following: 0 });
      expect(await counters('ben')).to.deep.equal({ followers: 1, following: 0 });
      const [row] = await sql(w.server, 'SELECT note FROM user_blocking WHERE blocker_id = $1 AND blockee_id = $2', [ann.id, ben.id]);
      expect(row.note).to.equal('spam');
    });

    it('lists and checks blocks', async () => {
      const list = await ann.api.user.userListBlocks();
      expect(list.data.map((u) => u.login)).to.deep.equal(['ben']);
      expect(list.headers.get('x-total-count')).to.equal('1');
      expect((await w.raw('GET', '/user/blocks/ben', undefined, { token: ann.token })).status).to.equal(204);
      expectError(await w.raw('GET', '/user/blocks/cat', undefined, { token: ann.token }), 404);
      expectError(await w.raw('GET', '/user/blocks/ann', undefined, { token: ben.token }), 404);
      expectError(await w.raw('GET', '/user/blocks/nobody', undefined, { token: ann.token }), 404);
      expectError(await w.raw('GET', '/user/blocks'), 401, 'token is required');
    });

    it('refuses to block oneself, twice, an organization or an unknown user; nothing changes', async () => {
      expectError(await w.raw('PUT', '/user/blocks/ann', undefined, { token: ann.token }), 400, 'cannot block the user');
      expectError(await w.raw('PUT', '/user/blocks/ben?note=again', undefined, { token: ann.token }), 400, 'cannot block the user');
      expectError(await w.raw('PUT', '/user/blocks/guild', undefined, { token: ann.token }), 400, 'cannot block an organization');
      expectError(await w.raw('PUT', '/user/blocks/nobody', undefined, { token: ann.token }), 404);
      expectError(await w.raw('PUT', '/user/blocks/cat'), 401, 'token is required');
      expectError(await w.raw('PUT', `/user/blocks/cat?note=${'n'.repeat(256)}`, undefined, { token: ann.token }), 422);
      expect(await blockedBy(ann)).to.deep.equal(['ben']);
      const [row] = await sql(w.server, 'SELECT note FROM user_blocking WHERE blocker_id = $1', [ann.id]);
      expect(row.note).to.equal('spam');
    });

    it('needs the user write scope to block', async () => {
      const tok = await w.raw('POST', '/users/ann/tokens', { name: 'ro', scopes: ['read:user'] }, { basic: ['ann', ann.password] });
      expectError(await w.raw('PUT', '/user/blocks/cat', undefined, { token: tok.body.sha1 }), 403,
        'token does not have at least one of required scope(s), required=[write:user], token scope=read:user');
      expect((await w.raw('GET', '/user/blocks', undefined, { token: tok.body.sha1 })).status).to.equal(200);
      expect(await blockedBy(ann)).to.deep.equal(['ben']);
    });

    it('unblocks, and refuses to unblock who is not blocked', async () => {
      expect((await ann.api.user.userUnblockUser('ben')).status).to.equal(204);
      expectError(await w.raw('GET', '/user/blocks/ben', undefined, { token: ann.token }), 404);
      expectError(await w.raw('DELETE', '/user/blocks/ben', undefined, { token: ann.token }), 400, 'cannot unblock the user');
      expectError(await w.raw('DELETE', '/user/blocks/guild', undefined, { token: ann.token }), 400, 'cannot block an organization');
      expect(await blockedBy(ann)).to.deep.equal([]);
    });
  });

  describe('an organization\'s blocks', () => {
    before(async () => {
      const t = await ann.api.orgs.orgCreateTeam('guild', { name: 'crew', permission: 'read', units: ['repo.code'] });
      await ann.api.teams.orgAddTeamMember(t.data.id!, 'cat');
    });

    it('lets owners block a non-member and lists it', async () => {
      expect((await ann.api.orgs.organizationBlockUser('guild', 'ben', { note: 'troll' })).status).to.equal(204);
      const list = await ann.api.orgs.organizationListBlocks('guild');
      expect(list.data.map((u) => u.login)).to.deep.equal(['ben']);
      expect((await w.raw('GET', '/orgs/guild/blocks/ben', undefined, { token: ann.token })).status).to.equal(204);
      expectError(await w.raw('GET', '/orgs/guild/blocks/cat', undefined, { token: ann.token }), 404);
    });

    it('removes the blockee\'s collaborations on the organization\'s repositories', async () => {
      const org = (await ann.api.orgs.orgGet('guild')).data;
      const repoId = await insertRepo(w.server, org.id!, 'guild', 'tools');
      const now = new Date().toISOString();
      await sql(w.server, 'INSERT INTO collaboration (repo_id, user_id, mode, created_at, updated_at) VALUES ($1, $2, 2, $3, $4)', [repoId, w.admin.id, now, now]);
      const tmp = await w.user('dan');
      await sql(w.server, 'INSERT INTO collaboration (repo_id, user_id, mode, created_at, updated_at) VALUES ($1, $2, 2, $3, $4)', [repoId, tmp.id, now, now]);
      expect((await ann.api.orgs.organizationBlockUser('guild', 'dan')).status).to.equal(204);
      const rows = await sql(w.server, 'SELECT user_id FROM collaboration WHERE repo_id = $1', [repoId]);
      expect(rows.map((r) => Number(r.user_id))).to.deep.equal([w.admin.id]);
      await ann.api.orgs.organizationUnblockUser('guild', 'dan');
    });

    it('refuses members, non-owners and anonymous callers; nothing changes', async () => {
      expectError(await w.raw('PUT', '/orgs/guild/blocks/cat', undefined, { token: ann.token }), 400, 'cannot block the user');
      expectError(await w.raw('PUT', '/orgs/guild/blocks/ann', undefined, { token: ann.token }), 400, 'cannot block the user');
      expectError(await w.raw('PUT', '/orgs/guild/blocks/ben', undefined, { token: ann.token }), 400, 'cannot block the user');
      expectError(await w.raw('PUT', '/orgs/guild/blocks/root', undefined, { token: cat.token }), 403, 'Must be an organization owner');
      expectError(await w.raw('GET', '/orgs/guild/blocks', undefined, { token: cat.token }), 403, 'Must be an organization owner');
      expectError(await w.raw('DELETE', '/orgs/guild/blocks/ben', undefined, { token: cat.token }), 403, 'Must be an organization owner');
      expectError(await w.raw('GET', '/orgs/guild/blocks/ben', undefined, { token: ben.token }), 403, 'Must be an organization owner');
      expectError(await w.raw('GET', '/orgs/guild/blocks'), 401, 'token is required');
      expectError(await w.raw('GET', '/orgs/nothere/blocks', undefined, { token: ann.token }), 404);
      expect((await ann.api.orgs.organizationListBlocks('guild')).data.map((u) => u.login)).to.deep.equal(['ben']);
    });

    it('keeps a blocked user out of the organization\'s teams', async () => {
      const crew = (await ann.api.orgs.orgListTeams('guild')).data.find((t) => t.name === 'crew')!;
      expectError(await w.raw('PUT', `/teams/${crew.id}/members/ben`, undefined, { token: ann.token }), 403, 'user is blocked');
      expect((await ann.api.teams.orgListTeamMembers(crew.id!)).data.map((u) => u.login)).to.deep.equal(['cat']);
    });

    it('lets a site admin act for the organization, then unblocks', async () => {
      expect((await w.admin.api.orgs.organizationCheckUserBlock('guild', 'ben')).status).to.equal(204);
      expect((await w.admin.api.orgs.organizationUnblockUser('guild', 'ben')).status).to.equal(204);
      expectError(await w.raw('DELETE', '/orgs/guild/blocks/ben', undefined, { token: ann.token }), 400, 'cannot unblock the user');
      expect((await ann.api.orgs.organizationListBlocks('guild')).data).to.deep.equal([]);
    });
  });
});
