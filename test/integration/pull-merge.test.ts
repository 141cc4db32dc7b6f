/**
 * Merging pull requests: every style through gitea-js, each result compared with what the git CLI
 * makes of the same branches in a working copy (tree, parents, authors, committer, message);
 * deleting the head and retargeting the pull requests based on it; and every refusal (stale head,
 * conflicts, drafts, styles the repository does not allow, someone outside the merge allow-list,
 * unmet required checks) with Gitea's answer and the base branch unchanged.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { outboxSettled, startRefsWorld, waitFor, type RefsWorld } from '../helpers/refs';
import type { TestUser } from '../helpers/world';
import { serverRepoDir } from '../helpers/repo-fixture';

interface RawCommit { tree: string; parents: string[]; author: string; committer: string; message: string }

describe('merging pull requests', () => {
  let rw: RefsWorld;
  let work: string;
  let n = 0;
  const api = (method: string, p: string, body: unknown, u: TestUser) => rw.w.raw(method, `/repos/alice/proj${p}`, body, { token: u.token });
  const mainTip = () => rw.g.serverRef('alice', 'proj', 'refs/heads/main') as Promise<string>;
  /** A commit of the server's repository, its headers without dates. */
  const serverCommit = async (sha: string): Promise<RawCommit> => {
    const r = await rw.g.run(['--git-dir', serverRepoDir(rw.w.server, 'alice', 'proj'), 'cat-file', 'commit', sha]);
    return parseCommit(r.stdout);
  };
  const localCommit = async (sha: string): Promise<RawCommit> => parseCommit((await rw.g.run(['cat-file', 'commit', sha], work)).stdout);
  function parseCommit(text: string): RawCommit {
    const [head, ...rest] = text.split('\n\n');
    const lines = head.split('\n');
    const value = (k: string) => lines.filter((l) => l.startsWith(`${k} `)).map((l) => l.slice(k.length + 1));
    const who = (l: string) => l.replace(/ \d+ [+-]\d{4}$/, '');
    return { tree: value('tree')[0], parents: value('parent'), author: who(value('author')[0]), committer: who(value('committer')[0]), message: rest.join('\n\n') };
  }
  /** Push commits (file -> content, one commit each, by `who`) on a new branch from `from`, and open a pull request of it. */
  const propose = async (who: TestUser, files: Record<string, string>, opts: { from?: string; base?: string; title?: string } = {}) => {
    const branch = `topic-${++n}`;
    await rw.g.ok(['fetch', '-q', 'origin'], work);
    await rw.g.ok(['checkout', '-q', '-B', branch, `origin/${opts.from ?? 'main'}`], work);
    for (const [file, content] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(work, file)), { recursive: true });
      fs.writeFileSync(path.join(work, file), content);
      await rw.g.ok(['add', file], work);
      await rw.g.ok(['-c', `user.name=${who.name}`, '-c', `user.email=${who.email}`, 'commit', '-q', '-m', `${file}: ${content.trim()}\n\nbody of ${file}`], work);
    }
    await rw.g.ok(['push', '-q', 'origin', branch], work);
    const r = await api('POST', '/pulls', { head: branch, base: opts.base ?? 'main', title: opts.title ?? `Change ${branch}` }, who);
    expect(r.status, r.text).to.equal(201);
    // why: the push queues a check of the new pull request too; a merge asked before it is done is "try again later".
    await queueDrained();
    return { branch, number: r.body.number as number, head: await rw.g.ok(['rev-parse', 'HEAD'], work) };
  };
  /** Move main on the server by one commit touching `file`. */
  const advanceMain = async (file: string) => {
    await rw.g.ok(['fetch', '-q', 'origin'], work);
    await rw.g.ok(['checkout', '-q', '-B', 'main', 'origin/main'], work);
    await rw.g.commit(work, file, `${file} on main\n`);
    await rw.g.ok(['push', '-q', 'origin', 'main'], work);
  };
  /**
   * Wait for a pull request's check after one of its branches moved. why: the work a push queues
   * (sync, then the pull jobs, then the check) must be done first, or the answer read is the one
   * from before the move.
   */
  const queueDrained = () => outboxSettled(rw.w);
  const mergeableAgain = async (number: number) => {
    await outboxSettled(rw.w);
    await waitFor(`#${number} to be checked`, async () => (await api('GET', `/pulls/${number}`, undefined, rw.alice)).body.mergeable === true);
  };
  const merge = (number: number, body: Record<string, unknown>, who = rw.alice) => api('POST', `/pulls/${number}/merge`, body, who);
  const aliceSig = () => `alice <${rw.alice.email}>`;
  /** Run git in the working copy as alice committing (what the server does as the merger). */
  const asAlice = (args: string[]) => rw.g.ok(['-c', 'user.name=alice', '-c', `user.email=${rw.alice.email}`, ...args], work);

  before(async () => {
    rw = await startRefsWorld();
    work = await rw.g.clone(rw.alice, 'alice', 'proj');
  });
  after(() => rw.w.stop());

  it('merge: a merge commit of base and head, as git merge --no-ff makes it, and the pull request closed as merged', async () => {
    const pr = await propose(rw.carol, { 'a.txt': 'a\n', 'b.txt': 'b\n' });
    await advanceMain('main-1.txt');
    await mergeableAgain(pr.number);
    const base = await mainTip();
    const merged = await rw.alice.api.repos.repoMergePullRequest('alice', 'proj', pr.number, { Do: 'merge' });
    expect(merged.status).to.equal(200);
    const tip = await mainTip();
    const c = await serverCommit(tip);
    await rw.g.ok(['checkout', '-q', '--detach', base], work);
    await asAlice(['merge', '-q', '--no-ff', '-m', 'x', pr.head]);
    expect(c.tree).to.equal((await localCommit('HEAD')).tree);
    expect(c.parents).to.deep.equal([base, pr.head]);
    expect([c.author, c.committer]).to.deep.equal([aliceSig(), aliceSig()]);
    expect(c.message).to.equal(`Merge pull request 'Change ${pr.branch}' (#${pr.number}) from ${pr.branch} into main\n`);
    const view = (await rw.alice.api.repos.repoGetPullRequest('alice', 'proj', pr.number)).data;
    expect(view).to.deep.include({ state: 'closed', merged: true, merge_commit_sha: tip });
    expect(view.merged_by!.login).to.equal('alice');
    expect((await api('GET', `/pulls/${pr.number}/merge`, undefined, rw.alice)).status).to.equal(204);
    const timeline = (await api('GET', `/issues/${pr.number}/timeline`, undefined, rw.alice)).body as { type: string }[];
    expect(timeline.map((t) => t.type)).to.include('merge_pull').and.not.include('close');
    const again = await merge(pr.number, { Do: 'merge' });
    expect([again.status, again.body.message]).to.deep.equal([405, '']);
    const reopen = await api('PATCH', `/pulls/${pr.number}`, { state: 'open' }, rw.alice);
    expect([reopen.status, reopen.body.message]).to.deep.equal([412, 'cannot change state of this pull request, it was already merged']);
  });

  it('squash: one commit on the base with the merged tree, authored by the poster, with Gitea\'s title and trailers', async () => {
    const pr = await propose(rw.carol, { 'sq1.txt': 'one\n', 'sq2.txt': 'two\n' });
    await advanceMain('main-2.txt');
    await mergeableAgain(pr.number);
    const base = await mainTip();
    expect((await merge(pr.number, { Do: 'squash', MergeMessageField: 'Squashed body' })).status).to.equal(200);
    const c = await serverCommit(await mainTip());
    await rw.g.ok(['checkout', '-q', '--detach', base], work);
    await asAlice(['merge', '-q', '--squash', pr.head]);
    await asAlice(['commit', '-q', '-m', 'x']);
    expect(c.tree).to.equal((await localCommit('HEAD')).tree);
    expect(c.parents).to.deep.equal([base]);
    const carol = `carol <${rw.carol.email}>`;
    expect([c.author, c.committer]).to.deep.equal([carol, aliceSig()]);
    expect(c.message).to.equal(`Change ${pr.branch} (#${pr.number})\n\nSquashed body\nCo-authored-by: ${carol}\nCo-committed-by: ${carol}\n`);
  });

  it('rebase and rebase-merge: the head\'s commits replayed on the base as git rebase does, with a merge commit for rebase-merge', async () => {
    for (const style of ['rebase', 'rebase-merge'] as const) {
      const pr = await propose(rw.carol, { [`${style}-1.txt`]: 'r1\n', [`${style}-2.txt`]: 'r2\n' });
      await advanceMain(`main-${style}.txt`);
      await mergeableAgain(pr.number);
      const base = await mainTip();
      expect((await merge(pr.number, { Do: style })).status, style).to.equal(200);
      const tip = await mainTip();
      await rw.g.ok(['checkout', '-q', '-B', 'replay', pr.head], work);
      await asAlice(['rebase', '-q', base]);
      const local = await rw.g.ok(['rev-parse', 'HEAD'], work);
      let top = tip;
      if (style === 'rebase-merge') {
        const m = await serverCommit(tip);
        expect(m.parents[0]).to.equal(base);
        expect(m.message).to.equal(`Merge pull request 'Change ${pr.branch}' (#${pr.number}) from ${pr.branch} into main\n`);
        top = m.parents[1];
      }
      // the replayed commits: same trees, messages and authors as git's rebase, the merger as committer
      let [ours, theirs] = [top, local];
      for (let k = 0; k < 2; k++) {
        const [a, b] = [await serverCommit(ours), await localCommit(theirs)];
        expect({ tree: a.tree, author: a.author, committer: a.committer, message: a.message }, `${style} commit ${k}`)
          .to.deep.equal({ tree: b.tree, author: b.author, committer: aliceSig(), message: b.message });
        [ours, theirs] = [a.parents[0], b.parents[0]];
      }
      expect(ours).to.equal(base);
      const authorDate = async (sha: string, dir?: string) => (dir ? rw.g.ok(['log', '-1', '--format=%ad', sha], dir) : rw.g.bare('alice', 'proj', ['log', '-1', '--format=%ad', sha]));
      expect(await authorDate(top)).to.equal(await authorDate(local, work));
    }
  });

  it('fast-forward-only: the base moves to the head, and a head that is not ahead of the base is refused', async () => {
    const pr = await propose(rw.carol, { 'ff.txt': 'ff\n' });
    expect((await merge(pr.number, { Do: 'fast-forward-only' })).status).to.equal(200);
    expect(await mainTip()).to.equal(pr.head);
    const late = await propose(rw.carol, { 'ff2.txt': 'ff2\n' });
    await advanceMain('main-ff.txt');
    await mergeableAgain(late.number);
    const before = await mainTip();
    const r = await merge(late.number, { Do: 'fast-forward-only' });
    expect(r.status).to.equal(409);
    expect(await mainTip()).to.equal(before);
    expect((await api('GET', `/pulls/${late.number}`, undefined, rw.alice)).body.merged).to.equal(false);
  });

  it('refuses merges that may not or cannot happen, with Gitea\'s answers, and leaves the base where it was', async () => {
    const pr = await propose(rw.carol, { 'guarded.txt': 'g\n' });
    const before = await mainTip();
    const cases: [Record<string, unknown>, TestUser, number, string][] = [
      [{ Do: 'merge', head_commit_id: before }, rw.alice, 409, 'head out of date'],
      [{ Do: 'merge' }, rw.bob, 405, 'User not allowed to merge PR'],
      [{ Do: 'manually-merged', MergeCommitID: before }, rw.alice, 405, 'manually-merged is not allowed an allowed merge style for this repository'],
      [{ Do: 'octopus' }, rw.alice, 422, ''],
    ];
    for (const [body, who, status, message] of cases) {
      const r = await merge(pr.number, body, who);
      expect(r.status, JSON.stringify(body)).to.equal(status);
      if (message) expect(r.body.message, JSON.stringify(body)).to.equal(message);
    }
    expect((await api('PATCH', '', { allow_squash_merge: false }, rw.alice)).status).to.equal(200);
    const squash = await merge(pr.number, { Do: 'squash' });
    expect([squash.status, squash.body.message]).to.deep.equal([405, 'squash is not allowed an allowed merge style for this repository']);
    await api('PATCH', '', { allow_squash_merge: true }, rw.alice);

    // only the rule's merge allow-list may merge into a protected base; required checks must pass
    await api('POST', '/branch_protections', { rule_name: 'main', enable_merge_whitelist: true, merge_whitelist_usernames: ['alice'], enable_status_check: true, status_check_contexts: ['ci/*'] }, rw.alice);
    const carolMerge = await merge(pr.number, { Do: 'merge' }, rw.carol);
    expect([carolMerge.status, carolMerge.body.message]).to.deep.equal([405, 'User not allowed to merge PR']);
    const unchecked = await merge(pr.number, { Do: 'merge' });
    expect([unchecked.status, unchecked.body.message]).to.deep.equal([405, 'Not all required status checks successful']);
    expect((await api('POST', `/statuses/${pr.head}`, { state: 'failure', context: 'ci/build' }, rw.alice)).status).to.equal(201);
    expect((await merge(pr.number, { Do: 'merge' })).body.message).to.equal('Not all required status checks successful');
    expect(await mainTip()).to.equal(before);
    expect((await api('POST', `/statuses/${pr.head}`, { state: 'success', context: 'ci/build' }, rw.alice)).status).to.equal(201);
    expect((await merge(pr.number, { Do: 'merge' })).status).to.equal(200);
    await api('DELETE', '/branch_protections/main', undefined, rw.alice);

    const wip = await propose(rw.carol, { 'wip.txt': 'w\n' }, { title: 'WIP: not yet' });
    expect((await merge(wip.number, { Do: 'merge' })).body.message).to.equal('Work in progress PRs cannot be merged');
    const conflicting = await propose(rw.carol, { 'clash.txt': 'theirs\n' });
    await advanceMain('clash.txt');
    // why: the push's processing finds the conflict; until then the pull request reads as it was.
    await outboxSettled(rw.w);
    await waitFor('the conflict to be found', async () => (await api('GET', `/pulls/${conflicting.number}`, undefined, rw.alice)).body.mergeable === false);
    const tip = await mainTip();
    const c = await merge(conflicting.number, { Do: 'merge' });
    expect([c.status, c.body.message]).to.deep.equal([405, 'Please try again later']);
    expect(await mainTip()).to.equal(tip);
  });

  it('updates the head with the base by a merge or a rebase, as git does; pins, and finds the pull request of a merge commit', async () => {
    const pr = await propose(rw.carol, { 'up.txt': 'u\n' });
    await advanceMain('main-up-1.txt');
    const update = (who: TestUser, style = '') => api('POST', `/pulls/${pr.number}/update${style ? `?style=${style}` : ''}`, undefined, who);
    const headTip = () => rw.g.serverRef('alice', 'proj', `refs/heads/${pr.branch}`) as Promise<string>;
    expect((await update(rw.bob)).status).to.equal(403);
    expect(await headTip()).to.equal(pr.head);
    expect((await update(rw.carol)).status).to.equal(200);
    const merged = await serverCommit(await headTip());
    const main1 = await mainTip();
    expect(merged.parents).to.deep.equal([pr.head, main1]);
    expect(merged.message).to.equal(`Merge branch 'main' into ${pr.branch}\n`);
    await rw.g.ok(['checkout', '-q', '--detach', pr.head], work);
    await asAlice(['merge', '-q', '--no-ff', '-m', 'x', main1]);
    expect(merged.tree).to.equal((await localCommit('HEAD')).tree);
    const again = await update(rw.carol);
    expect([again.status, again.body.message]).to.deep.equal([422, `HeadBranch of PR ${pr.number} is up to date`]);

    await advanceMain('main-up-2.txt');
    const main2 = await mainTip();
    expect((await update(rw.carol, 'rebase')).status).to.equal(200);
    const rebased = await serverCommit(await headTip());
    expect(rebased.parents).to.deep.equal([main2]);
    await waitFor('the pull ref to follow the update', async () => (await rw.g.serverRef('alice', 'proj', `refs/pull/${pr.number}/head`)) === (await headTip()));
    await mergeableAgain(pr.number);

    expect((await api('POST', `/issues/${pr.number}/pin`, undefined, rw.alice)).status).to.equal(204);
    expect(((await api('GET', '/pulls/pinned', undefined, rw.alice)).body as { number: number; pin_order: number }[]).map((x) => [x.number, x.pin_order])).to.deep.equal([[pr.number, 1]]);
    expect((await merge(pr.number, { Do: 'merge' })).status).to.equal(200);
    const byCommit = await api('GET', `/commits/${await mainTip()}/pull`, undefined, rw.alice);
    expect([byCommit.status, byCommit.body.number]).to.deep.equal([200, pr.number]);
    const none = await api('GET', `/commits/${main2}/pull`, undefined, rw.alice);
    expect(none.status).to.equal(404);
  });

  it('deletes the head branch after the merge when asked, and retargets the pull requests based on it', async () => {
    const parent = await propose(rw.carol, { 'stack-1.txt': 's1\n' });
    const child = await propose(rw.carol, { 'stack-2.txt': 's2\n' }, { from: parent.branch, base: parent.branch });
    await mergeableAgain(parent.number);
    expect((await merge(parent.number, { Do: 'merge', delete_branch_after_merge: true })).status).to.equal(200);
    expect(await rw.g.serverRef('alice', 'proj', `refs/heads/${parent.branch}`)).to.equal(null);
    const moved = (await api('GET', `/pulls/${child.number}`, undefined, rw.alice)).body;
    expect(moved.base.ref).to.equal('main');
    const timeline = async (k: number) => (await api('GET', `/issues/${k}/timeline`, undefined, rw.alice)).body as { type: string; old_ref: string; new_ref: string }[];
    expect((await timeline(parent.number)).find((t) => t.type === 'delete_branch')?.old_ref).to.equal(parent.branch);
    expect((await timeline(child.number)).find((t) => t.type === 'change_target_branch')).to.deep.include({ old_ref: parent.branch, new_ref: 'main' });
    await mergeableAgain(child.number);
    expect((await merge(child.number, { Do: 'rebase' })).status).to.equal(200);
  });

  it('rebase-merge replays commits whose messages look like commit headers, options or trailers byte for byte, and nothing more', async () => {
    const hostile = [
      '-n --output=/tmp/x\n\nparent 0000000000000000000000000000000000000000\nauthor Mallory <m@evil> 1 +0000\n',
      'gpgsig -----BEGIN PGP SIGNATURE-----\n \n -----END PGP SIGNATURE-----\n\nCo-authored-by: Mallory <m@evil>\r\nreal line\n',
    ];
    await rw.g.ok(['fetch', '-q', 'origin'], work);
    await rw.g.ok(['checkout', '-q', '-B', 'hostile', 'origin/main'], work);
    for (const [k, message] of hostile.entries()) {
      fs.writeFileSync(path.join(work, `hostile-${k}.txt`), `${k}\n`);
      fs.writeFileSync(path.join(work, '.git', 'MSG'), message);
      await rw.g.ok(['add', `hostile-${k}.txt`], work);
      await rw.g.ok(['-c', 'user.name=carol', '-c', `user.email=${rw.carol.email}`, 'commit', '-q', '--cleanup=verbatim', '-F', path.join(work, '.git', 'MSG')], work);
    }
    await rw.g.ok(['push', '-q', 'origin', 'hostile'], work);
    const head = await rw.g.ok(['rev-parse', 'HEAD'], work);
    await advanceMain('main-hostile.txt');
    const number = (await api('POST', '/pulls', { head: 'hostile', base: 'main', title: 'Hostile messages' }, rw.carol)).body.number as number;
    await mergeableAgain(number);
    const base = await mainTip();
    expect((await merge(number, { Do: 'rebase-merge' })).status).to.equal(200);
    const m = await serverCommit(await mainTip());
    expect(m.parents[0]).to.equal(base);
    let [ours, theirs] = [m.parents[1], head];
    for (let k = hostile.length - 1; k >= 0; k--) {
      const [a, b] = [await serverCommit(ours), await localCommit(theirs)];
      expect(a.message, `commit ${k}`).to.equal(hostile[k]);
      expect([a.parents.length, a.author]).to.deep.equal([1, b.author]);
      [ours, theirs] = [a.parents[0], b.parents[0]];
    }
    expect(ours).to.equal(base);
    expect((await rw.g.run(['--git-dir', serverRepoDir(rw.w.server, 'alice', 'proj'), 'fsck', '--no-dangling', '--strict'])).code).to.equal(0);
  });
});
