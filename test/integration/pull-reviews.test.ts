/**
 * Pull request reviews through raw HTTP: pending and submitted reviews with Gitea's event rules,
 * who sees a pending review, comments on lines of the diff (with what git blame and git diff say),
 * deletion, review requests of users and teams, official approvals and requests counted by the
 * merge, dismissal by repository admins and by a push under dismiss_stale_approvals; every refusal
 * with Gitea's answer and nothing changed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { outboxSettled, startRefsWorld, type RefsWorld } from '../helpers/refs';
import type { TestUser } from '../helpers/world';
import { count } from '../helpers/db';

describe('pull request reviews', () => {
  let rw: RefsWorld;
  let n: number;
  const api = (method: string, p: string, body: unknown, u: TestUser) => rw.w.raw(method, `/repos/alice/proj${p}`, body, { token: u.token });

  before(async () => {
    rw = await startRefsWorld();
    const work = await rw.g.clone(rw.alice, 'alice', 'proj');
    await rw.g.ok(['checkout', '-q', '-b', 'reviewed'], work);
    await rw.g.commit(work, 'r.txt', 'r\n');
    await rw.g.ok(['push', '-q', 'origin', 'reviewed'], work);
    n = (await api('POST', '/pulls', { head: 'reviewed', base: 'main', title: 'Review me' }, rw.alice)).body.number as number;
  });
  after(() => rw.w.stop());

  /** A pull request from a new branch `name` of alice/proj changing code.txt (made on main first): line 3 in one commit, a new line 7 in the next. */
  async function codePull(name: string): Promise<{ n: number; base: string; first: string; second: string; work: string }> {
    const work = await rw.g.clone(rw.alice, 'alice', 'proj');
    const base = await rw.g.commit(work, `${name}.txt`, 'a\nb\nc\nd\ne\nf\n');
    await rw.g.ok(['push', '-q', 'origin', 'HEAD:main'], work);
    await rw.g.ok(['checkout', '-q', '-b', name], work);
    const first = await rw.g.commit(work, `${name}.txt`, 'a\nb\nC\nd\ne\nf\n');
    const second = await rw.g.commit(work, `${name}.txt`, 'a\nb\nC\nd\ne\nf\ng\n');
    await rw.g.ok(['push', '-q', 'origin', name], work);
    const made = await api('POST', '/pulls', { head: name, base: 'main', title: `Lines of ${name}` }, rw.alice);
    expect(made.status, made.text).to.equal(201);
    return { n: made.body.number as number, base, first, second, work };
  }
  const settled = () => outboxSettled(rw.w);

  it('keeps a pending review to its reviewer, submits it, and applies Gitea\'s event rules', async () => {
    const { alice, bob, carol } = rw;
    const pending = await api('POST', `/pulls/${n}/reviews`, { body: 'thinking' }, carol);
    expect(pending.status, pending.text).to.equal(200);
    expect(pending.body).to.deep.include({ state: 'PENDING', body: 'thinking', official: false, dismissed: false });
    expect((await api('GET', `/pulls/${n}/reviews`, undefined, bob)).body).to.deep.equal([]);
    expect((await api('GET', `/pulls/${n}/reviews/${pending.body.id}`, undefined, bob)).status).to.equal(404);
    const refusals: [Record<string, unknown>, TestUser, string][] = [
      [{ event: 'APPROVED' }, alice, 'approve your own pull is not allowed'],
      [{ event: 'REQUEST_CHANGES', body: 'no' }, alice, 'reject your own pull is not allowed'],
      [{ event: 'REQUEST_CHANGES', body: ' ' }, carol, 'review event REQUEST_CHANGES requires a body'],
      [{ event: 'COMMENT' }, carol, 'review event COMMENT requires a body or a comment'],
    ];
    for (const [body, who, message] of refusals) {
      const r = await api('POST', `/pulls/${n}/reviews`, body, who);
      expect([r.status, r.body.message], JSON.stringify(body)).to.deep.equal([422, message]);
    }
    const submitted = await api('POST', `/pulls/${n}/reviews/${pending.body.id}`, { event: 'APPROVED', body: 'looks good' }, carol);
    expect(submitted.body).to.deep.include({ id: pending.body.id, state: 'APPROVED', official: true, stale: false });
    expect(submitted.body.html_url).to.match(new RegExp(`/alice/proj/pulls/${n}#issuecomment-\\d+$`));
    const again = await api('POST', `/pulls/${n}/reviews/${pending.body.id}`, { event: 'APPROVED', body: 'x' }, carol);
    expect([again.status, again.body.message]).to.deep.equal([422, 'only a pending review can be submitted']);
    const list = (await api('GET', `/pulls/${n}/reviews`, undefined, bob)).body as { state: string; user: { login: string } }[];
    expect(list.map((r) => [r.state, r.user.login])).to.deep.equal([['APPROVED', 'carol']]);
  });

  it('counts official approvals for the rule\'s required approvals, and dismissals take them back', async () => {
    const { alice, carol } = rw;
    expect((await api('POST', '/branch_protections', { rule_name: 'main', required_approvals: 1 }, alice)).status).to.equal(201);
    const approval = ((await api('GET', `/pulls/${n}/reviews`, undefined, alice)).body as { id: number }[])[0];
    const byCarol = await api('POST', `/pulls/${n}/reviews/${approval.id}/dismissals`, { message: 'no' }, carol);
    expect([byCarol.status, byCarol.body.message]).to.deep.equal([403, 'Must be repo admin']);
    const dismissed = await api('POST', `/pulls/${n}/reviews/${approval.id}/dismissals`, { message: 'stale' }, alice);
    expect(dismissed.body).to.deep.include({ dismissed: true });
    const blocked = await api('POST', `/pulls/${n}/merge`, { Do: 'merge' }, alice);
    expect([blocked.status, blocked.body.message, blocked.body.errors]).to.deep.equal([405, 'Does not have enough approvals', ['blocked by the branch protection rule "main"']]);
    expect((await api('POST', `/pulls/${n}/reviews/${approval.id}/undismissals`, undefined, alice)).body).to.deep.include({ dismissed: false });
    expect((await api('POST', `/pulls/${n}/merge`, { Do: 'merge' }, alice)).status).to.equal(200);
    expect((await api('DELETE', '/branch_protections/main', undefined, alice)).status).to.equal(204);
  });

  it('keeps comments on lines of the diff with the commit that changed the line and the diff lines above it', async () => {
    const { bob, carol } = rw;
    const p = await codePull('lines');
    const file = 'lines.txt';
    const refused: [Record<string, unknown>, string][] = [
      [{ path: 'README.md', body: 'x', new_position: 1 }, 'the pull request does not change README.md'],
      [{ path: file, body: 'x' }, 'comment 0 needs a line: new_position or old_position above 0'],
      [{ path: file, body: ' ', new_position: 1 }, '[Comments[0].Body]: Required'],
      [{ path: '--output=x', body: 'x', new_position: 1 }, '[Comments[0].Path]: Required'],
    ];
    for (const [c, message] of refused) {
      const r = await api('POST', `/pulls/${p.n}/reviews`, { event: 'COMMENT', body: 'b', comments: [c] }, bob);
      expect([r.status, r.body.message], JSON.stringify(c)).to.deep.equal([422, message]);
    }
    const stranger = await api('POST', `/pulls/${p.n}/reviews`, { event: 'COMMENT', body: 'b', commit_id: 'f'.repeat(40) }, bob);
    expect(stranger.status).to.equal(422);
    expect((await api('GET', `/pulls/${p.n}/reviews`, undefined, bob)).body).to.deep.equal([]);

    const review = await api('POST', `/pulls/${p.n}/reviews`, {
      event: 'COMMENT', body: '', comments: [
        { path: file, body: 'capital?', new_position: 3 }, { path: file, body: 'was lower', old_position: 3 }, { path: file, body: 'new line', new_position: 7 },
      ],
    }, carol);
    expect(review.status, review.text).to.equal(200);
    expect(review.body).to.deep.include({ state: 'COMMENT', comments_count: 3, commit_id: p.second });
    const comments = (await api('GET', `/pulls/${p.n}/reviews/${review.body.id}/comments`, undefined, bob)).body as Record<string, unknown>[];
    const shown = comments.map((c) => [c.body, c.path, c.position, c.original_position, c.commit_id, c.diff_hunk]);
    expect(shown).to.deep.equal([
      ['was lower', file, 0, 3, p.base, '@@ -1,3 +1,2 @@\n a\n b\n-c'],
      ['capital?', file, 3, 0, p.first, '@@ -1,3 +1,3 @@\n a\n b\n-c\n+C'],
      ['new line', file, 7, 0, p.second, '@@ -4,3 +4,4 @@\n d\n e\n f\n+g'],
    ]);
    expect(comments[0]).to.deep.include({ pull_request_review_id: review.body.id, resolver: null });
    expect((comments[0].user as { login: string }).login).to.equal('carol');

    // A line comment takes attachments like any comment.
    const form = new FormData();
    form.append('attachment', new Blob(['shot']), 'shot.png');
    const asset = await fetch(`${rw.w.server.api}/repos/alice/proj/issues/comments/${comments[1].id}/assets`, { method: 'POST', headers: { Authorization: `token ${carol.token}` }, body: form });
    expect(asset.status, await asset.clone().text()).to.equal(201);
    expect(((await api('GET', `/issues/comments/${comments[1].id}/assets`, undefined, bob)).body as { name: string }[]).map((a) => a.name)).to.deep.equal(['shot.png']);

    // Only its reviewer (or a site admin) deletes a review, and its line comments go with it.
    const byBob = await api('DELETE', `/pulls/${p.n}/reviews/${review.body.id}`, undefined, bob);
    expect(byBob.status).to.equal(403);
    expect((await api('DELETE', `/pulls/${p.n}/reviews/${review.body.id}`, undefined, carol)).status).to.equal(204);
    expect((await api('GET', `/pulls/${p.n}/reviews/${review.body.id}`, undefined, bob)).status).to.equal(404);
    expect((await api('GET', `/issues/comments/${comments[1].id}/assets`, undefined, carol)).status).to.equal(404);
    expect(await count(rw.w.server, 'SELECT COUNT(*) AS n FROM comment WHERE review_id = $1', [review.body.id])).to.equal(0);
  });

  it('asks users for reviews and withdraws the requests, with Gitea\'s checks', async () => {
    const { w, alice, bob, carol } = rw;
    const p = await codePull('asked');
    const dave = await w.user('dave');
    const ask = (body: unknown, who: TestUser) => api('POST', `/pulls/${p.n}/requested_reviewers`, body, who);
    const refusals: [unknown, TestUser, number, string][] = [
      [{ reviewers: ['nobody'] }, alice, 404, "User 'nobody' not exist"],
      [{ reviewers: ['alice'] }, alice, 422, `poster of pr can't be reviewer [user_id: ${alice.id}, repo_id:`],
      [{ reviewers: ['carol'] }, dave, 422, `Doer can't choose reviewer [user_id: ${dave.id}, repo_id:`],
    ];
    for (const [body, who, status, message] of refusals) {
      const r = await ask(body, who);
      expect([r.status, String(r.body.message).slice(0, message.length)], JSON.stringify(body)).to.deep.equal([status, message]);
    }
    expect((await w.raw('PUT', '/user/blocks/alice', undefined, { token: dave.token })).status).to.equal(204);
    const blocked = await ask({ reviewers: ['carol', 'dave'] }, alice);
    expect([blocked.status, blocked.body.message]).to.deep.equal([403, 'user is blocked']);
    expect((await api('GET', `/pulls/${p.n}`, undefined, alice)).body.requested_reviewers).to.deep.equal([]);

    const made = await ask({ reviewers: ['carol', 'bob@example.com'] }, alice);
    expect(made.status, made.text).to.equal(201);
    expect((made.body as { state: string; user: { login: string }; official: boolean }[]).map((r) => [r.state, r.user.login, r.official]))
      .to.deep.equal([['REQUEST_REVIEW', 'carol', true], ['REQUEST_REVIEW', 'bob', false]]);
    expect(((await ask({ reviewers: ['carol'] }, alice)).body as unknown[]).length).to.equal(0);
    const pr = (await api('GET', `/pulls/${p.n}`, undefined, bob)).body;
    expect((pr.requested_reviewers as { login: string }[]).map((u) => u.login)).to.deep.equal(['carol', 'bob']);
    const listed = ((await api('GET', '/pulls?state=open', undefined, bob)).body as { number: number; requested_reviewers: { login: string }[] | null }[]).find((x) => x.number === p.n)!;
    expect(listed.requested_reviewers!.map((u) => u.login)).to.deep.equal(['carol', 'bob']);
    const timeline = (await api('GET', `/issues/${p.n}/timeline`, undefined, bob)).body as { type: string; assignee: { login: string } | null; removed_assignee: boolean }[];
    expect(timeline.filter((e) => e.type === 'review_request').map((e) => [e.assignee?.login, e.removed_assignee])).to.deep.equal([['carol', false], ['bob', false]]);

    // With block_on_official_review_requests, carol's open request holds the merge; her approval answers it.
    expect((await api('POST', '/branch_protections', { rule_name: 'main', block_on_official_review_requests: true }, alice)).status).to.equal(201);
    const held = await api('POST', `/pulls/${p.n}/merge`, { Do: 'merge' }, alice);
    expect([held.status, held.body.message]).to.deep.equal([405, 'There are official review requests']);
    // Someone who cannot choose reviewers withdraws only their own request.
    const notMine = await api('DELETE', `/pulls/${p.n}/requested_reviewers`, { reviewers: ['carol'] }, bob);
    expect([notMine.status, String(notMine.body.message).split(' [')[0]]).to.deep.equal([422, "Doer can't remove reviewer"]);
    expect((await api('DELETE', `/pulls/${p.n}/requested_reviewers`, { reviewers: ['bob'] }, bob)).status).to.equal(204);
    const approved = await api('POST', `/pulls/${p.n}/reviews`, { event: 'APPROVED', body: 'ok' }, carol);
    expect(approved.body).to.deep.include({ state: 'APPROVED', official: true });
    const states = ((await api('GET', `/pulls/${p.n}/reviews`, undefined, bob)).body as { state: string; user: { login: string } }[]).map((r) => [r.state, r.user.login]);
    expect(states).to.deep.equal([['APPROVED', 'carol']]);
    expect(((await api('GET', `/pulls/${p.n}`, undefined, bob)).body.requested_reviewers as { login: string }[]).map((u) => u.login)).to.deep.equal(['carol']);
    expect((await api('POST', `/pulls/${p.n}/merge`, { Do: 'merge' }, alice)).status).to.equal(200);
    expect((await api('DELETE', '/branch_protections/main', undefined, alice)).status).to.equal(204);
    const reRequest = await ask({ reviewers: ['carol'] }, alice);
    expect([reRequest.status, reRequest.body.message]).to.deep.equal([403, 'cannot request a re-review on a closed or merged PR']);
  });

  it('asks an organization\'s teams for reviews', async () => {
    const { w, alice, bob } = rw;
    expect((await w.raw('POST', '/orgs', { username: 'reviewers-org' }, { token: alice.token })).status).to.equal(201);
    const team = await w.raw('POST', '/orgs/reviewers-org/teams', { name: 'checkers', permission: 'write', units: ['repo.code', 'repo.pulls'] }, { token: alice.token });
    expect(team.status, team.text).to.equal(201);
    expect((await w.raw('POST', '/orgs/reviewers-org/repos', { name: 'app', auto_init: true, private: true }, { token: alice.token })).status).to.equal(201);
    const work = await rw.g.clone(alice, 'reviewers-org', 'app');
    await rw.g.ok(['checkout', '-q', '-b', 'feature'], work);
    await rw.g.commit(work, 'f.txt', 'f\n');
    await rw.g.ok(['push', '-q', 'origin', 'feature'], work);
    const org = (p: string, method = 'GET', body?: unknown) => w.raw(method, `/repos/reviewers-org/app${p}`, body, { token: alice.token });
    const n = (await org('/pulls', 'POST', { head: 'feature', base: 'main', title: 'Team review' })).body.number as number;
    const missing = await org(`/pulls/${n}/requested_reviewers`, 'POST', { team_reviewers: ['ghosts'] });
    expect([missing.status, missing.body.message]).to.deep.equal([404, "Team 'ghosts' not exist"]);
    const unread = await org(`/pulls/${n}/requested_reviewers`, 'POST', { team_reviewers: ['checkers'] });
    expect([unread.status, String(unread.body.message).split(' [')[0]]).to.deep.equal([422, "Reviewing team can't read repo"]);
    expect((await w.raw('PUT', `/teams/${team.body.id}/repos/reviewers-org/app`, undefined, { token: alice.token })).status).to.equal(204);
    const made = await org(`/pulls/${n}/requested_reviewers`, 'POST', { team_reviewers: ['checkers'] });
    expect(made.status, made.text).to.equal(201);
    expect(made.body[0]).to.deep.include({ state: 'REQUEST_REVIEW', user: null });
    expect(made.body[0].team).to.deep.include({ name: 'checkers', organization: null });
    const pr = (await org(`/pulls/${n}`)).body;
    expect(pr.requested_reviewers_teams.map((t: { name: string; organization: { name: string } }) => [t.name, t.organization.name])).to.deep.equal([['checkers', 'reviewers-org']]);
    const stranger = await w.raw('DELETE', `/repos/reviewers-org/app/pulls/${n}/requested_reviewers`, { team_reviewers: ['checkers'] }, { token: bob.token });
    expect(stranger.status).to.equal(404);
    expect((await org(`/pulls/${n}/requested_reviewers`, 'DELETE', { team_reviewers: ['checkers'] })).status).to.equal(204);
    expect((await org(`/pulls/${n}`)).body.requested_reviewers_teams).to.deep.equal([]);
  });

  it('marks reviews stale on a push that changes the pull request, and dismisses approvals where the rule says so', async () => {
    const { alice, carol } = rw;
    const p = await codePull('pushed');
    expect((await api('POST', '/branch_protections', { rule_name: 'main', required_approvals: 1, dismiss_stale_approvals: true }, alice)).status).to.equal(201);
    const approval = (await api('POST', `/pulls/${p.n}/reviews`, { event: 'APPROVED', body: 'ok' }, carol)).body;
    expect(approval).to.deep.include({ official: true, stale: false, dismissed: false });
    // A rebase onto the same base with the same changes keeps the approval.
    await rw.g.ok(['commit', '-q', '--amend', '-m', 'same change, new message'], p.work);
    await rw.g.ok(['push', '-q', '-f', 'origin', 'pushed'], p.work);
    await settled();
    expect((await api('GET', `/pulls/${p.n}/reviews/${approval.id}`, undefined, alice)).body).to.deep.include({ stale: false, dismissed: false });
    fs.appendFileSync(path.join(p.work, 'pushed.txt'), 'h\n');
    await rw.g.ok(['commit', '-q', '-am', 'more'], p.work);
    await rw.g.ok(['push', '-q', 'origin', 'pushed'], p.work);
    await settled();
    expect((await api('GET', `/pulls/${p.n}/reviews/${approval.id}`, undefined, alice)).body).to.deep.include({ stale: true, dismissed: true });
    const timeline = (await api('GET', `/issues/${p.n}/timeline`, undefined, alice)).body as { type: string; body: string }[];
    expect(timeline.filter((e) => e.type === 'dismiss_review').map((e) => e.body)).to.deep.equal(['New commits pushed, approval review dismissed automatically according to repository settings']);
    const blocked = await api('POST', `/pulls/${p.n}/merge`, { Do: 'merge' }, alice);
    expect([blocked.status, blocked.body.message]).to.deep.equal([405, 'Does not have enough approvals']);
    expect((await api('DELETE', '/branch_protections/main', undefined, alice)).status).to.equal(204);
  });

  it('asks for reviews when a pull request is created, and creates nothing when a reviewer is refused', async () => {
    const { alice, bob } = rw;
    const work = await rw.g.clone(alice, 'alice', 'proj');
    await rw.g.ok(['checkout', '-q', '-b', 'asked-at-once'], work);
    await rw.g.commit(work, 'once.txt', 'once\n');
    await rw.g.ok(['push', '-q', 'origin', 'asked-at-once'], work);
    const before = ((await api('GET', '/pulls?state=all&limit=50', undefined, alice)).body as unknown[]).length;
    const refusals: [Record<string, unknown>, number, string][] = [
      [{ reviewers: ['nobody'] }, 404, "User 'nobody' not exist"],
      [{ reviewers: ['alice'] }, 422, "poster of pr can't be reviewer"],
    ];
    for (const [extra, status, message] of refusals) {
      const r = await api('POST', '/pulls', { head: 'asked-at-once', base: 'main', title: 'Asked', ...extra }, alice);
      expect([r.status, String(r.body.message).split(' [')[0]]).to.deep.equal([status, message]);
    }
    expect(((await api('GET', '/pulls?state=all&limit=50', undefined, alice)).body as unknown[]).length).to.equal(before);
    const made = await api('POST', '/pulls', { head: 'asked-at-once', base: 'main', title: 'Asked', reviewers: ['bob', 'carol'] }, alice);
    expect(made.status, made.text).to.equal(201);
    expect((made.body.requested_reviewers as { login: string }[]).map((u) => u.login)).to.deep.equal(['bob', 'carol']);
    expect(((await api('GET', `/pulls/${made.body.number}/reviews`, undefined, bob)).body as { state: string }[]).map((r) => r.state)).to.deep.equal(['REQUEST_REVIEW', 'REQUEST_REVIEW']);
  });

  it('answers gitea-js for every review operation, in the shapes it declares', async () => {
    const { alice, bob, carol } = rw;
    const p = await codePull('through-js');
    const repos = (u: TestUser) => u.api.repos;
    const asked = await repos(alice).repoCreatePullReviewRequests('alice', 'proj', p.n, { reviewers: ['bob'] });
    expect([asked.status, asked.data[0].state, asked.data[0].user?.login]).to.deep.equal([201, 'REQUEST_REVIEW', 'bob']);
    expect((await repos(alice).repoDeletePullReviewRequests('alice', 'proj', p.n, { reviewers: ['bob'] })).status).to.equal(204);
    const pending = await repos(carol).repoCreatePullReview('alice', 'proj', p.n, { body: 'draft', comments: [{ path: 'through-js.txt', body: 'here', new_position: 3 }] });
    expect([pending.data.state, pending.data.comments_count]).to.deep.equal(['PENDING', 1]);
    const id = pending.data.id!;
    const submitted = await repos(carol).repoSubmitPullReview('alice', 'proj', p.n, id, { event: 'REQUEST_CHANGES', body: 'please fix' });
    expect(submitted.data).to.deep.include({ state: 'REQUEST_CHANGES', official: true });
    const listed = await repos(bob).repoListPullReviews('alice', 'proj', p.n);
    expect(listed.data.map((r) => r.id)).to.deep.equal([id]);
    expect((await repos(bob).repoGetPullReview('alice', 'proj', p.n, id)).data.body).to.equal('please fix');
    const comments = await repos(bob).repoGetPullReviewComments('alice', 'proj', p.n, id);
    expect(comments.data.map((c) => [c.path, c.position, c.commit_id])).to.deep.equal([['through-js.txt', 3, p.first]]);
    expect((await repos(alice).repoDismissPullReview('alice', 'proj', p.n, id, { message: 'outdated', priors: true })).data.dismissed).to.equal(true);
    expect((await repos(alice).repoUnDismissPullReview('alice', 'proj', p.n, id)).data.dismissed).to.equal(false);
    expect((await repos(carol).repoDeletePullReview('alice', 'proj', p.n, id)).status).to.equal(204);
    const scheduled = await repos(alice).repoMergePullRequest('alice', 'proj', p.n, { Do: 'merge', merge_when_checks_succeed: true });
    expect(scheduled.status).to.equal(201);
    expect((await repos(alice).repoCancelScheduledAutoMerge('alice', 'proj', p.n)).status).to.equal(204);
  });
});
