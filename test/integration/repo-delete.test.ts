/**
 * Deleting a repository takes its stars, watches and topic links with it and puts the counters back.
 */
import { expect } from 'chai';
import { startWorld, type World } from '../helpers/world';
import { count } from '../helpers/db';

describe('repository deletion', () => {
  let w: World;
  before(async () => { w = await startWorld(); });
  after(async () => { await w?.stop(); });

  it('removes stars, watches and topic links and lowers their counters', async () => {
    const owner = await w.user('delowner');
    const fan = await w.user('delfan');
    const created = await owner.api.user.createCurrentUserRepo({ name: 'doomed', auto_init: true });
    expect(created.status).to.equal(201);
    expect((await fan.api.user.userCurrentPutStar('delowner', 'doomed')).status).to.equal(204);
    expect((await fan.api.repos.userCurrentPutSubscription('delowner', 'doomed')).status).to.equal(200);
    expect((await owner.api.repos.repoAddTopic('delowner', 'doomed', 'doomed-topic')).status).to.equal(204);
    expect((await fan.api.users.userGet('delfan')).data.starred_repos_count).to.equal(1);

    expect((await owner.api.repos.repoDelete('delowner', 'doomed')).status).to.equal(204);

    expect((await fan.api.users.userGet('delfan')).data.starred_repos_count).to.equal(0);
    const search = await w.raw('GET', '/topics/search?q=doomed-topic', undefined, { token: fan.token });
    expect(search.body.topics.map((t: { repo_count: number }) => t.repo_count)).to.satisfy((c: number[]) => c.every((n) => n === 0));
    for (const table of ['star', 'watch', 'repo_topic']) {
      expect(await count(w.server, `SELECT COUNT(*) AS n FROM ${table} WHERE repo_id = $1`, [created.data.id])).to.equal(0);
    }
  });
});
