/**
 * Scheduled merges (`merge_when_checks_succeed`) through raw HTTP and the git CLI: a schedule
 * waits for its head's commit statuses and its rule's approvals, and the outbox merges it when the
 * status or the approval arrives; a second schedule, a schedule by someone who may not merge, and a
 * cancellation by someone else are refused and change nothing; a cancelled schedule merges nothing.
 */
import { expect } from 'chai';
import { outboxSettled, startRefsWorld, waitFor, type RefsWorld } from '../helpers/refs';
import type { TestUser } from '../helpers/world';

describe('scheduled merges', () => {
  let rw: RefsWorld;
  const api = (method: string, p: string, body: unknown, u: TestUser) => rw.w.raw(method, `/repos/alice/proj${p}`, body, { token: u.token });
  const settled = () => outboxSettled(rw.w);
  const merged = async (n: number) => (await api('GET', `/pulls/${n}`, undefined, rw.alice)).body.merged as boolean;
  const timeline = async (n: number) => ((await api('GET', `/issues/${n}/timeline`, undefined, rw.alice)).body as { type: string; user: { login: string } }[])
    .filter((e) => e.type.includes('scheduled_merge')).map((e) => [e.type, e.user.login]);

  /** A checked pull request of a new branch `name` (by carol); returns its number and head. */
  async function propose(name: string): Promise<{ n: number; head: string }> {
    const work = await rw.g.clone(rw.carol, 'alice', 'proj');
    await rw.g.ok(['checkout', '-q', '-b', name], work);
    const head = await rw.g.commit(work, `${name}.txt`, `${name}\n`);
    await rw.g.ok(['push', '-q', 'origin', name], work);
    const made = await api('POST', '/pulls', { head: name, base: 'main', title: `Schedule ${name}` }, rw.carol);
    expect(made.status, made.text).to.equal(201);
    await settled();
    return { n: made.body.number as number, head };
  }
  const status = (sha: string, state: string) => api('POST', `/statuses/${sha}`, { state, context: 'ci/test' }, rw.alice);

  before(async () => { rw = await startRefsWorld(); });
  after(() => rw.w.stop());

  it('waits for the head\'s statuses and merges when they succeed', async () => {
    const { alice, bob } = rw;
    const p = await propose('when-green');
    const byBob = await api('POST', `/pulls/${p.n}/merge`, { Do: 'merge', merge_when_checks_succeed: true }, bob);
    expect([byBob.status, byBob.body.message]).to.deep.equal([405, 'User not allowed to merge PR']);
    const scheduled = await api('POST', `/pulls/${p.n}/merge`, { Do: 'merge', merge_when_checks_succeed: true, MergeTitleField: 'Green merge' }, alice);
    expect(scheduled.status, scheduled.text).to.equal(201);
    const again = await api('POST', `/pulls/${p.n}/merge`, { Do: 'squash', merge_when_checks_succeed: true }, alice);
    expect([again.status, again.body.message]).to.match(/^409,pull request is already scheduled to auto merge when checks succeed \[pull_id: \d+\]$/);
    await settled();
    expect(await merged(p.n), 'no status yet').to.equal(false);
    expect((await status(p.head, 'pending')).status).to.equal(201);
    await settled();
    expect(await merged(p.n), 'pending').to.equal(false);
    expect((await status(p.head, 'success')).status).to.equal(201);
    await waitFor('the scheduled merge', () => merged(p.n));
    const tip = await rw.g.serverRef('alice', 'proj', 'refs/heads/main');
    expect(await rw.g.bare('alice', 'proj', ['log', '-1', '--format=%s%n%P', tip!])).to.match(new RegExp(`^Green merge\\n[0-9a-f]{40} ${p.head}$`));
    expect(await timeline(p.n)).to.deep.equal([['pull_scheduled_merge', 'alice']]);
    expect((await api('DELETE', `/pulls/${p.n}/merge`, undefined, alice)).status, 'nothing left to cancel').to.equal(404);
  });

  it('waits for the approvals the rule requires, and merges on the approval', async () => {
    const { alice } = rw;
    expect((await api('POST', '/branch_protections', { rule_name: 'main', enable_push: true, required_approvals: 1 }, alice)).status).to.equal(201);
    const p = await propose('when-approved');
    expect((await status(p.head, 'success')).status).to.equal(201);
    const now = await api('POST', `/pulls/${p.n}/merge`, { Do: 'merge' }, alice);
    expect([now.status, now.body.message]).to.deep.equal([405, 'Does not have enough approvals']);
    expect((await api('POST', `/pulls/${p.n}/merge`, { Do: 'rebase', merge_when_checks_succeed: true }, alice)).status).to.equal(201);
    await settled();
    expect(await merged(p.n)).to.equal(false);
    const approval = await rw.w.raw('POST', `/repos/alice/proj/pulls/${p.n}/reviews`, { event: 'APPROVED', body: 'go' }, { token: alice.token });
    expect(approval.status, approval.text).to.equal(200);
    await waitFor('the scheduled merge', () => merged(p.n));
    expect(await rw.g.serverRef('alice', 'proj', 'refs/heads/main')).to.equal(p.head);
    expect((await api('DELETE', '/branch_protections/main', undefined, alice)).status).to.equal(204);
  });

  it('cancels a schedule for its scheduler or a repository admin only, and a cancelled schedule merges nothing', async () => {
    const { alice, bob, carol } = rw;
    const p = await propose('cancelled');
    expect((await api('POST', `/pulls/${p.n}/merge`, { Do: 'merge', merge_when_checks_succeed: true }, carol)).status).to.equal(201);
    const byBob = await api('DELETE', `/pulls/${p.n}/merge`, undefined, bob);
    expect([byBob.status, byBob.body.message]).to.deep.equal([403, 'user has no permission to cancel the scheduled auto merge']);
    expect((await api('DELETE', `/pulls/${p.n}/merge`, undefined, carol)).status).to.equal(204);
    expect(await timeline(p.n)).to.deep.equal([['pull_scheduled_merge', 'carol'], ['pull_cancel_scheduled_merge', 'carol']]);
    expect((await status(p.head, 'success')).status).to.equal(201);
    await settled();
    expect(await merged(p.n)).to.equal(false);
    expect((await api('POST', `/pulls/${p.n}/merge`, { Do: 'merge', merge_when_checks_succeed: true }, carol)).status).to.equal(201);
    expect((await api('DELETE', `/pulls/${p.n}/merge`, undefined, alice)).status, 'a repository admin').to.equal(204);
  });
});
