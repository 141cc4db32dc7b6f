/**
 * Deleting a repository takes its stars, watches and topic links with it and puts the counters back;
 * renaming or purging a user moves or removes the git data with the rows.
 */
import { expect } from 'chai';
import { startWorld, type World } from '../helpers/world';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
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

  it('answers nothing of a deleted repository\'s commits once one of the same name is created', async () => {
    const u = await w.user('reborner');
    expect((await u.api.user.createCurrentUserRepo({ name: 'reborn', auto_init: true })).status).to.equal(201);
    const made = await u.api.repos.repoCreateFile('reborner', 'reborn', 'secret.txt', { content: Buffer.from('pushed by mistake\n').toString('base64') });
    const sha = made.data.commit!.sha!;
    const reads = [`/repos/reborner/reborn/commits/${sha}/status`, `/repos/reborner/reborn/git/commits/${sha}`, `/repos/reborner/reborn/contents/secret.txt?ref=${sha}`];
    // read each twice, so whatever the forge keeps about them is kept
    for (const p of [...reads, ...reads]) expect((await w.raw('GET', p, undefined, { token: u.token })).status, p).to.equal(200);
    expect((await u.api.repos.repoDelete('reborner', 'reborn')).status).to.equal(204);
    expect((await u.api.user.createCurrentUserRepo({ name: 'reborn', auto_init: true })).status).to.equal(201);
    for (const p of reads) expect((await w.raw('GET', p, undefined, { token: u.token })).status, p).to.equal(404);
  });

  it('moves an owner\'s repositories on rename, so git URLs follow the new name', async () => {
    const u = await w.user('oldowner');
    expect((await u.api.user.createCurrentUserRepo({ name: 'moving', auto_init: true })).status).to.equal(201);
    const renamed = await w.raw('POST', '/admin/users/oldowner/rename', { new_username: 'newowner' }, { token: w.admin.token });
    expect(renamed.status).to.equal(204);
    const url = `http://newowner:${u.token}@127.0.0.1:${w.server.httpPort}/newowner/moving.git`;
    const refs = execFileSync('git', ['ls-remote', url], { env: { ...process.env, GIT_TERMINAL_PROMPT: '0' } }).toString();
    expect(refs).to.match(/refs\/heads\/main/);
    expect(fs.existsSync(path.join(w.server.dataDir, 'repositories', 'oldowner'))).to.equal(false);
  });

  it('purging a user removes its repositories\' git data and its stars elsewhere', async () => {
    const gone = await w.user('goneuser');
    const other = await w.user('otherowner');
    const theirs = await other.api.user.createCurrentUserRepo({ name: 'kept', auto_init: true });
    expect((await gone.api.user.createCurrentUserRepo({ name: 'mine', auto_init: true })).status).to.equal(201);
    expect((await gone.api.user.userCurrentPutStar('otherowner', 'kept')).status).to.equal(204);
    expect((await other.api.repos.repoGet('otherowner', 'kept')).data.stars_count).to.equal(1);
    const del = await w.raw('DELETE', '/admin/users/goneuser?purge=true', undefined, { token: w.admin.token });
    expect(del.status).to.equal(204);
    expect(fs.existsSync(path.join(w.server.dataDir, 'repositories', 'goneuser'))).to.equal(false);
    expect((await other.api.repos.repoGet('otherowner', 'kept')).data.stars_count).to.equal(0);
    expect(await count(w.server, 'SELECT COUNT(*) AS n FROM star WHERE repo_id = $1', [theirs.data.id])).to.equal(0);
  });
});
