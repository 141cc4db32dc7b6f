/**
 * The AGit flow with the git CLI over HTTP and SSH: a reader without a fork opens a pull request
 * by pushing to refs/for/<branch> (topic, title and description as push options, or the topic in
 * the ref and the title from the commit), moves it with later pushes (a force push only with the
 * force-push option), and the pull request merges like any other; every refusal is git's own
 * report of the server's reason, and nothing changes.
 */
import { expect } from 'chai';
import { outboxSettled, startRefsWorld, type RefsWorld } from '../helpers/refs';
import { git } from '../helpers/repo-fixture';
import { gitSshCommand, sshKeyFile } from '../helpers/ssh';
import type { TestUser } from '../helpers/world';

describe('AGit pull requests', () => {
  let rw: RefsWorld;
  let work: string;
  const api = (method: string, p: string, body: unknown, u: TestUser) => rw.w.raw(method, `/repos/alice/proj${p}`, body, { token: u.token });
  const settled = () => outboxSettled(rw.w);
  interface Side { label: string; ref: string; sha: string; repo_id: number }
  interface Pull { number: number; title: string; body: string; head: Side; base: Side; user: { login: string } }
  const pulls = async () => (await api('GET', '/pulls?state=all&limit=50', undefined, rw.alice)).body as Pull[];
  const push = (args: string[]) => rw.g.run(['push', 'origin', ...args], work);

  before(async () => {
    rw = await startRefsWorld();
    work = await rw.g.clone(rw.bob, 'alice', 'proj');
  });
  after(() => rw.w.stop());

  it('opens a pull request from a push to refs/for/main by a reader, and moves it with the next pushes', async () => {
    const { bob } = rw;
    const branches = await rw.g.serverRefsUnder('alice', 'proj', 'refs/heads/');
    const refused = await push(['HEAD:refs/heads/bob-branch']);
    expect([refused.code !== 0, refused.stderr.includes('User permission denied for writing.')]).to.deep.equal([true, true]);
    const first = await rw.g.commit(work, 'agit.txt', 'one\n', 'Not the title\n\nnot the body');
    const made = await push(['-o', 'topic=feature', '-o', 'title=AGit title', '-o', 'description=AGit body', 'HEAD:refs/for/main']);
    expect(made.code, made.stderr).to.equal(0);
    const [pr] = await pulls();
    expect(pr).to.deep.include({ title: 'AGit title', body: 'AGit body', state: 'open', mergeable: true });
    expect(pr.user.login).to.equal('bob');
    expect(pr.head).to.deep.include({ label: '', ref: `refs/pull/${pr.number}/head`, sha: first, repo_id: pr.base.repo_id });
    expect(pr.base.ref).to.equal('main');
    expect(await rw.g.serverRef('alice', 'proj', `refs/pull/${pr.number}/head`)).to.equal(first);
    expect(await rw.g.serverRefsUnder('alice', 'proj', 'refs/heads/'), 'no branch is made').to.equal(branches);

    const same = await push(['-o', 'topic=feature', 'HEAD:refs/for/main']);
    expect([same.code !== 0, same.stderr]).to.satisfy(([failed, err]: [boolean, string]) => failed && err.includes('new commit is same with old commit'));
    const second = await rw.g.commit(work, 'agit.txt', 'two\n');
    expect((await push(['-o', 'topic=feature', 'HEAD:refs/for/main'])).code).to.equal(0);
    expect(await rw.g.serverRef('alice', 'proj', `refs/pull/${pr.number}/head`)).to.equal(second);
    await rw.g.ok(['commit', '-q', '--amend', '-m', 'rewritten'], work);
    const rewritten = await rw.g.ok(['rev-parse', 'HEAD'], work);
    const noForce = await push(['-o', 'topic=feature', 'HEAD:refs/for/main']);
    expect(noForce.code).to.not.equal(0);
    expect(noForce.stderr).to.include('request `force-push` push option');
    expect(await rw.g.serverRef('alice', 'proj', `refs/pull/${pr.number}/head`)).to.equal(second);
    expect((await push(['-o', 'topic=feature', '-o', 'force-push', 'HEAD:refs/for/main'])).code).to.equal(0);
    expect(await rw.g.serverRef('alice', 'proj', `refs/pull/${pr.number}/head`)).to.equal(rewritten);
    await settled();
    const timeline = (await api('GET', `/issues/${pr.number}/timeline`, undefined, bob)).body as { type: string; body: string }[];
    expect(timeline.filter((e) => e.type === 'pull_push').map((e) => JSON.parse(e.body))).to.deep.equal([
      { is_force_push: false, commit_ids: [first] }, { is_force_push: false, commit_ids: [second] }, { is_force_push: true, commit_ids: [second, rewritten] },
    ]);
    expect((await pulls()).length, 'still one pull request').to.equal(1);
  });

  it('takes the topic from the ref and the title and body from the commit, over SSH too', async () => {
    const { bob } = rw;
    await rw.g.ok(['checkout', '-q', '-B', 'second', 'origin/main'], work);
    const c = await rw.g.commit(work, 'ssh.txt', 'ssh\n', 'Title from the commit\n\nBody from the commit');
    const key = sshKeyFile('ed25519');
    expect((await rw.w.raw('POST', '/user/keys', { title: 'k', key: key.pub }, { token: bob.token })).status).to.equal(201);
    const r = await git(['push', `ssh://git@127.0.0.1:${rw.w.server.sshPort}/alice/proj.git`, 'HEAD:refs/for/main/by-ssh'],
      { cwd: work, home: rw.g.home, env: { GIT_SSH_COMMAND: gitSshCommand(rw.w.server.sshPort, key) } });
    expect(r.code, r.stderr).to.equal(0);
    const pr = (await pulls()).find((p) => p.head.sha === c)!;
    expect(pr).to.deep.include({ title: 'Title from the commit', body: 'Body from the commit' });
    const byHead = await api('GET', `/pulls/${pr.number}`, undefined, bob);
    expect(byHead.body.head.ref).to.equal(`refs/pull/${pr.number}/head`);
  });

  it('refuses a push without a topic, to a branch that does not exist, or deleting a for-ref, and changes nothing', async () => {
    const before = (await pulls()).length;
    const refs = await rw.g.serverRefs('alice', 'proj');
    await rw.g.commit(work, 'refused.txt', 'no\n');
    const cases: [string[], string][] = [
      [['HEAD:refs/for/main'], 'topic-branch is not set'],
      [['HEAD:refs/for/nowhere/topic'], 'Unexpected ref: refs/for/nowhere/topic'],
      [[':refs/for/main/gone'], "Can't delete not exist branch"],
    ];
    for (const [args, reason] of cases) {
      const r = await push(args);
      expect(r.code, args.join(' ')).to.not.equal(0);
      expect(r.stderr, args.join(' ')).to.include(reason);
    }
    expect((await pulls()).length).to.equal(before);
    expect(await rw.g.serverRefs('alice', 'proj')).to.equal(refs);
  });

  it('merges an AGit pull request like any other', async () => {
    const { alice } = rw;
    const pr = (await pulls()).find((p) => p.title === 'AGit title')!;
    await settled();
    const merged = await api('POST', `/pulls/${pr.number}/merge`, { Do: 'merge' }, alice);
    expect(merged.status, merged.text).to.equal(200);
    const tip = await rw.g.serverRef('alice', 'proj', 'refs/heads/main');
    expect(await rw.g.bare('alice', 'proj', ['rev-parse', `${tip}^2`])).to.equal(pr.head.sha);
  });
});
