/**
 * Pull request reviews through raw HTTP: pending and submitted reviews with Gitea's event rules,
 * who sees a pending review, official approvals counted by the merge's required approvals,
 * dismissal by repository admins; every refusal with Gitea's answer and nothing changed.
 */
import { expect } from 'chai';
import { startRefsWorld, type RefsWorld } from '../helpers/refs';
import type { TestUser } from '../helpers/world';

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
    expect([blocked.status, blocked.body.message]).to.deep.equal([405, 'Does not have enough approvals']);
    expect((await api('POST', `/pulls/${n}/reviews/${approval.id}/undismissals`, undefined, alice)).body).to.deep.include({ dismissed: false });
    expect((await api('POST', `/pulls/${n}/merge`, { Do: 'merge' }, alice)).status).to.equal(200);
  });
});
