/**
 * A blocked user and the issues of the blocker's repository (Gitea's ChangeTitle/ChangeContent
 * rule): a user the repository's owner, or the poster, blocked cannot change an issue's
 * title, body or state, nor add time to it, through the API or the web forms; a repository admin
 * is exempt. Each refusal is a 403 "user is blocked" that changes nothing.
 */
import { expect } from 'chai';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { apiRepo } from '../helpers/refs';
import { count, sql } from '../helpers/db';
import { WebClient } from '../helpers/web';

describe('blocked users and the issues of the blocker\'s repository', () => {
  let w: World;
  let ann: TestUser; // owns ann/tracker
  let ben: TestUser; // posts issue #1, then ann blocks him
  let cat: TestUser; // a writer of ann/tracker, blocked by dan
  let dan: TestUser; // posts issue #2 and blocks cat
  let eve: TestUser; // an admin collaborator, blocked by dan
  const call = (u: TestUser, method: string, p: string, body?: unknown) => w.raw(method, `/repos/ann/tracker${p}`, body, { token: u.token });

  /** What a refused change must leave alone: the row, its timeline, its tracked time. */
  const state = async (index: number) => {
    const [row] = await sql(w.server, 'SELECT i.id, i.name, i.content, i.is_closed, i.content_version, i.deadline_unix FROM issue i JOIN repository r ON r.id = i.repo_id WHERE r.lower_name = $1 AND i."index" = $2', ['tracker', index]);
    return {
      row: { name: row.name, content: row.content, closed: !!row.is_closed, version: Number(row.content_version), deadline: Number(row.deadline_unix) },
      comments: await count(w.server, 'SELECT COUNT(*) AS n FROM comment WHERE issue_id = $1', [row.id]),
      times: await count(w.server, 'SELECT COUNT(*) AS n FROM tracked_time WHERE issue_id = $1', [row.id]),
      stopwatches: await count(w.server, 'SELECT COUNT(*) AS n FROM stopwatch WHERE issue_id = $1', [row.id]),
      closedCount: await count(w.server, "SELECT c.num_closed_issues + c.num_closed_pulls AS n FROM repo_issue_counter c JOIN repository r ON r.id = c.repo_id WHERE r.lower_name = 'tracker'"),
    };
  };
  const refused = (r: { status: number; body: { message?: string }; text: string }, what: string) => {
    expect([r.status, r.body?.message], `${what}: ${r.text}`).to.deep.equal([403, 'user is blocked']);
  };

  before(async () => {
    w = await startWorld();
    [ann, ben, cat, dan, eve] = [await w.user('ann'), await w.user('ben'), await w.user('cat'), await w.user('dan'), await w.user('eve')];
    await apiRepo(w, ann, 'tracker');
    for (const [u, permission] of [[cat, 'write'], [eve, 'admin']] as const) {
      expect((await call(ann, 'PUT', `/collaborators/${u.name}`, { permission })).status).to.equal(204);
    }
    expect((await call(ben, 'POST', '/issues', { title: 'ben asks', body: 'first words' })).status).to.equal(201);
    expect((await call(dan, 'POST', '/issues', { title: 'dan asks', body: 'dan words' })).status).to.equal(201);
    expect((await w.raw('PUT', '/user/blocks/ben', undefined, { token: ann.token })).status).to.equal(204);
    for (const u of [cat, eve, ann]) expect((await w.raw('PUT', `/user/blocks/${u.name}`, undefined, { token: dan.token })).status).to.equal(204);
  });
  after(async () => { await w?.stop(); });

  it('refuses the poster the owner blocked: title, body, state and tracked time, each changing nothing', async () => {
    const before = await state(1);
    refused(await call(ben, 'PATCH', '/issues/1', { title: 'renamed' }), 'title');
    refused(await call(ben, 'PATCH', '/issues/1', { body: 'rewritten' }), 'body');
    refused(await call(ben, 'PATCH', '/issues/1', { state: 'closed' }), 'state');
    refused(await call(ben, 'PATCH', '/issues/1', { title: 'ben asks', body: 'first words', state: 'closed' }), 'all at once');
    refused(await call(ben, 'POST', '/issues/1/times', { time: 3600 }), 'tracked time');
    expect(await state(1)).to.deep.equal(before);
    // an edit that changes nothing of the title passes, as in Gitea (the title is compared first)
    const same = await call(ben, 'PATCH', '/issues/1', { title: 'ben asks' });
    expect([same.status, same.body.title]).to.deep.equal([201, 'ben asks']);
    expect(await state(1)).to.deep.equal(before);
  });

  it('refuses the close form on the web page and the stopwatch to a blocked user; nothing changes', async () => {
    const before = await state(1);
    const web = await WebClient.signedIn(w, ben);
    await web.get('/ann/tracker/issues/1');
    const close = await web.form('/ann/tracker/issues/1/comments', { action: 'close', content: '' });
    expect(close.status).to.equal(403);
    expect(close.text).to.contain('user is blocked');
    expect(await state(1)).to.deep.equal(before);
    // a writer the poster blocked: the stopwatch form refuses too
    const before2 = await state(2);
    const catWeb = await WebClient.signedIn(w, cat);
    await catWeb.get('/ann/tracker/issues/2');
    const start = await catWeb.form('/ann/tracker/issues/2/stopwatch/start', {});
    expect(start.status).to.equal(403);
    const closeAsWriter = await catWeb.form('/ann/tracker/issues/2/comments', { action: 'close', content: '' });
    expect(closeAsWriter.status).to.equal(403);
    expect(await state(2)).to.deep.equal(before2);
  });

  it('refuses a writer the issue\'s poster blocked, through the API', async () => {
    const before = await state(2);
    refused(await call(cat, 'PATCH', '/issues/2', { title: 'renamed by cat' }), 'title');
    refused(await call(cat, 'PATCH', '/issues/2', { body: 'cat words' }), 'body');
    refused(await call(cat, 'PATCH', '/issues/2', { state: 'closed' }), 'state');
    refused(await call(cat, 'POST', '/issues/2/times', { time: 60 }), 'tracked time');
    refused(await call(cat, 'POST', '/issues/2/stopwatch/start'), 'stopwatch');
    expect(await state(2)).to.deep.equal(before);
    // the writer still edits issues whose poster did not block it
    expect((await call(cat, 'PATCH', '/issues/1', { body: 'first words, tidied' })).status).to.equal(201);
    expect((await call(cat, 'PATCH', '/issues/1', { body: 'first words' })).status).to.equal(201);
  });

  it('lets repository admins through though the poster blocked them: the owner and an admin collaborator', async () => {
    const ownerEdit = await call(ann, 'PATCH', '/issues/2', { title: 'dan asks (triaged)' });
    expect([ownerEdit.status, ownerEdit.body.title]).to.deep.equal([201, 'dan asks (triaged)']);
    const adminEdit = await call(eve, 'PATCH', '/issues/2', { state: 'closed' });
    expect([adminEdit.status, adminEdit.body.state]).to.deep.equal([201, 'closed']);
    expect((await call(eve, 'POST', '/issues/2/times', { time: 60 })).status).to.equal(200);
    const after = await state(2);
    expect([after.row.name, after.row.closed, after.times]).to.deep.equal(['dan asks (triaged)', true, 1]);
  });

  it('refuses a writer the pull request\'s poster blocked, before any part of the edit', async () => {
    expect((await w.raw('POST', '/repos/ann/tracker/branches', { new_branch_name: 'feature', old_branch_name: 'main' }, { token: ann.token })).status).to.equal(201);
    const file = await call(ann, 'POST', '/contents/feature.txt', { content: Buffer.from('f').toString('base64'), branch: 'feature' });
    expect(file.status, file.text).to.equal(201);
    const pr = await call(eve, 'POST', '/pulls', { head: 'feature', base: 'main', title: 'eve proposes' });
    expect(pr.status, pr.text).to.equal(201);
    expect((await w.raw('PUT', '/user/blocks/cat', undefined, { token: eve.token })).status).to.equal(204);
    const before = await state(pr.body.number);
    refused(await call(cat, 'PATCH', `/pulls/${pr.body.number}`, { title: 'cat renames', milestone: 0, due_date: '2030-01-01T00:00:00Z' }), 'pull title');
    refused(await call(cat, 'PATCH', `/pulls/${pr.body.number}`, { state: 'closed', due_date: '2030-01-01T00:00:00Z' }), 'pull state');
    expect(await state(pr.body.number)).to.deep.equal(before);
    expect(before.row.deadline).to.equal(0);
  });
});
