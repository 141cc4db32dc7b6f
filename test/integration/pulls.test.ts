/**
 * Pull requests: create within a repository and from a fork (gitea-js and raw HTTP), get by
 * number and by base and head, list with filters; `refs/pull/<n>/head` fetched with the git CLI
 * over HTTP and SSH and kept in step with pushes; mergeability re-checked after pushes to either
 * side; every refusal with Gitea's answer and nothing created.
 */
import { expect } from 'chai';
import { outboxSettled, startRefsWorld, waitFor, type RefsWorld } from '../helpers/refs';
import { git, serverRepoDir } from '../helpers/repo-fixture';
import { gitSshCommand, sshKeyFile } from '../helpers/ssh';
import type { TestUser } from '../helpers/world';

describe('pull requests', () => {
  let rw: RefsWorld;
  let work: string;
  const api = (method: string, p: string, body: unknown, u: TestUser) => rw.w.raw(method, `/repos/alice/proj${p}`, body, { token: u.token });
  const pullsTotal = async () => Number((await api('GET', '/pulls?limit=1', undefined, rw.alice)).headers.get('x-total-count'));
  /** Commit `file` with `content` on `branch` of the working copy (created from `from` when new) and push it. */
  const pushChange = async (branch: string, file: string, content: string, from = 'main') => {
    const exists = (await rw.g.run(['rev-parse', '--verify', '--quiet', branch], work)).code === 0;
    await rw.g.ok(exists ? ['checkout', '-q', branch] : ['checkout', '-q', '-b', branch, from], work);
    const sha = await rw.g.commit(work, file, content, `${branch}: ${file}`);
    await rw.g.ok(['push', '-q', 'origin', branch], work);
    return sha;
  };
  const timeline = async (n: number) => (await api('GET', `/issues/${n}/timeline`, undefined, rw.alice)).body as { type: string; body: string }[];

  before(async () => {
    rw = await startRefsWorld();
    work = await rw.g.clone(rw.alice, 'alice', 'proj');
  });
  after(() => rw.w.stop());

  it('opens a pull request with Gitea\'s fields and keeps refs/pull/1/head fetchable over HTTP and SSH', async () => {
    const { alice } = rw;
    const head = await pushChange('feature', 'feature.txt', 'one\ntwo\n');
    // why: until the push's queued sync is done the new pull request is still being checked (mergeable false).
    await outboxSettled(rw.w);
    const made = await alice.api.repos.repoCreatePullRequest('alice', 'proj', { head: 'feature', base: 'main', title: 'Add feature', body: 'Why' });
    expect(made.status).to.equal(201);
    const pr = made.data;
    expect(pr).to.deep.include({
      number: 1, title: 'Add feature', body: 'Why', state: 'open', draft: false, merged: false, mergeable: true, merge_base: rw.main,
      merged_at: null, merge_commit_sha: null, merged_by: null, allow_maintainer_edit: false, comments: 0, additions: 2, deletions: 0, changed_files: 1,
      requested_reviewers: [], requested_reviewers_teams: [], assignees: [], pin_order: 0,
    });
    expect(pr.url).to.equal(`${rw.w.server.url}alice/proj/pulls/1`);
    expect([pr.html_url, pr.diff_url, pr.patch_url]).to.deep.equal([pr.url, `${pr.url}.diff`, `${pr.url}.patch`]);
    expect(pr.head).to.deep.include({ label: 'feature', ref: 'feature', sha: head, repo_id: pr.base!.repo_id });
    expect(pr.base).to.deep.include({ label: 'main', ref: 'main', sha: rw.main });
    expect(pr.base!.repo!.full_name).to.equal('alice/proj');
    expect(pr.user!.login).to.equal('alice');

    await rw.g.ok(['fetch', '-q', 'origin', 'refs/pull/1/head'], work);
    expect(await rw.g.ok(['rev-parse', 'FETCH_HEAD'], work)).to.equal(head);
    const key = sshKeyFile('ed25519');
    expect((await rw.w.raw('POST', '/user/keys', { title: 'k', key: key.pub }, { token: alice.token })).status).to.equal(201);
    const ssh = await git(['fetch', '-q', `ssh://git@127.0.0.1:${rw.w.server.sshPort}/alice/proj.git`, 'refs/pull/1/head'],
      { cwd: work, home: rw.g.home, env: { GIT_SSH_COMMAND: gitSshCommand(rw.w.server.sshPort, key) } });
    expect(ssh.code, ssh.stderr).to.equal(0);

    const byNumber = (await alice.api.repos.repoGetPullRequest('alice', 'proj', 1)).data;
    expect(byNumber).to.deep.include({ id: pr.id, number: 1, mergeable: true });
    const byBranches = await api('GET', '/pulls/main/feature', undefined, alice);
    expect([byBranches.status, byBranches.body.number]).to.deep.equal([200, 1]);
    expect((await api('GET', '/pulls/main/alice:feature', undefined, alice)).body.number).to.equal(1);
    expect((await api('GET', '/pulls/main/other', undefined, alice)).status).to.equal(404);
    const list = (await alice.api.repos.repoListPullRequests('alice', 'proj')).data;
    expect(list.map((p) => p.number)).to.deep.equal([1]);
    // Gitea's list converter: empty lists are null and there are no line counts
    expect(list[0]).to.deep.include({ assignees: null, requested_reviewers: null, requested_reviewers_teams: null });
    expect(list[0]).to.not.have.property('additions');
    const asIssue = (await api('GET', '/issues/1', undefined, alice)).body;
    expect(asIssue.pull_request).to.deep.include({ merged: false, draft: false, html_url: pr.url });
    const push = (await timeline(1)).find((t) => t.type === 'pull_push');
    expect(JSON.parse(push!.body)).to.deep.equal({ is_force_push: false, commit_ids: [head] });
  });

  it('follows pushes to the head and to the base: the pull ref, the timeline and the mergeability', async () => {
    const { alice, g } = rw;
    const second = await pushChange('feature', 'feature.txt', 'one\nTWO\n');
    await waitFor('refs/pull/1/head to follow the push', async () => (await g.serverRef('alice', 'proj', 'refs/pull/1/head')) === second);
    await waitFor('the push entry', async () => (await timeline(1)).filter((t) => t.type === 'pull_push').some((t) => JSON.parse(t.body).commit_ids.includes(second)));
    // a change of the same line on the base makes the pull request conflict
    await pushChange('main', 'feature.txt', 'one\nzwei\n');
    await waitFor('the conflict to be seen', async () => (await api('GET', '/pulls/1', undefined, alice)).body.mergeable === false);
    // a force push of the head that resolves it
    await g.ok(['checkout', '-q', 'feature'], work);
    await g.ok(['reset', '-q', '--hard', 'main'], work);
    const rewritten = await g.commit(work, 'other.txt', 'x');
    await g.ok(['push', '-q', '-f', 'origin', 'feature'], work);
    await waitFor('mergeable again', async () => {
      const pr = (await api('GET', '/pulls/1', undefined, alice)).body;
      return pr.mergeable === true && pr.head.sha === rewritten;
    });
    const force = (await timeline(1)).filter((t) => t.type === 'pull_push').map((t) => JSON.parse(t.body)).find((b) => b.is_force_push);
    expect(force).to.deep.equal({ is_force_push: true, commit_ids: [second, rewritten] });
  });

  it('opens a pull request from a fork, with the fork as the head repository', async () => {
    const { bob, alice, g } = rw;
    expect((await rw.w.raw('POST', '/repos/alice/proj/forks', {}, { token: bob.token })).status).to.equal(202);
    const d = await g.clone(bob, 'bob', 'proj');
    await g.ok(['checkout', '-q', '-b', 'fix'], d);
    const fix = await g.commit(d, 'fix.txt', 'fixed\n');
    await g.ok(['push', '-q', 'origin', 'fix'], d);
    const made = await bob.api.repos.repoCreatePullRequest('alice', 'proj', { head: 'bob:fix', base: 'main', title: 'Fix from a fork' });
    expect(made.status).to.equal(201);
    expect(made.data.head).to.deep.include({ label: 'fix', ref: 'fix', sha: fix });
    expect(made.data.head!.repo!.full_name).to.equal('bob/proj');
    expect(await g.serverRef('alice', 'proj', `refs/pull/${made.data.number}/head`)).to.equal(fix);
    expect((await api('GET', `/pulls/main/bob:fix`, undefined, alice)).body.number).to.equal(made.data.number);
    const next = await g.commit(d, 'fix.txt', 'fixed again\n');
    await g.ok(['push', '-q', 'origin', 'fix'], d);
    await waitFor('the fork\'s push to reach the pull ref', async () => (await g.serverRef('alice', 'proj', `refs/pull/${made.data.number}/head`)) === next);
  });

  it('merges upstream into a fork\'s branch: fast-forward, up to date, a merge, and ff_only refused when it would need one', async () => {
    const { alice, bob, g } = rw;
    const up = (body: Record<string, unknown>, who = bob, repo = 'bob/proj') => rw.w.raw('POST', `/repos/${repo}/merge-upstream`, body, { token: who.token });
    const forkMain = () => g.serverRef('bob', 'proj', 'refs/heads/main');
    const parentMain = () => g.serverRef('alice', 'proj', 'refs/heads/main');
    expect((await up({})).body).to.deep.equal({ merge_type: 'up-to-date' });
    await pushChange('main', 'upstream-1.txt', 'parent\n');
    expect((await up({ branch: 'main' })).body).to.deep.equal({ merge_type: 'fast-forward' });
    expect(await forkMain()).to.equal(await parentMain());
    expect((await up({})).body).to.deep.equal({ merge_type: 'up-to-date' });

    await pushChange('main', 'upstream-2.txt', 'parent\n');
    const own = await rw.w.raw('POST', '/repos/bob/proj/contents/own.txt', { content: Buffer.from('fork\n').toString('base64'), branch: 'main' }, { token: bob.token });
    expect(own.status).to.equal(201);
    const before = await forkMain();
    const ff = await up({ branch: 'main', ff_only: true });
    expect(ff.status).to.equal(409);
    expect(await forkMain()).to.equal(before);
    const refusals: [Record<string, unknown>, TestUser, string, number, string][] = [
      [{ branch: 'main' }, alice, 'bob/proj', 403, 'user should have a permission to write to a repo'],
      [{ branch: 'main' }, alice, 'alice/proj', 400, 'repo is not a fork'],
      [{ branch: 'nope' }, bob, 'bob/proj', 404, ''],
    ];
    for (const [body, who, repo, status, message] of refusals) {
      const r = await up(body, who, repo);
      expect(r.status, repo).to.equal(status);
      if (message) expect(r.body.message).to.equal(message);
    }
    expect(await forkMain()).to.equal(before);
    expect((await up({ branch: 'main' })).body).to.deep.equal({ merge_type: 'merge' });
    const tip = (await forkMain())!;
    const parents = (await g.run(['--git-dir', serverRepoDir(rw.w.server, 'bob', 'proj'), 'log', '-1', '--format=%P%n%B', tip])).stdout.split('\n');
    expect(parents[0].split(' ')).to.deep.equal([before, await parentMain()]);
    expect(parents[1]).to.equal('merge upstream');
  });

  it('shows its commits, files, diff and patch as git shows them', async () => {
    const { alice, g } = rw;
    await g.ok(['fetch', '-q', 'origin'], work);
    await g.ok(['checkout', '-q', '-B', 'shown', 'origin/main'], work);
    const base = await g.ok(['rev-parse', 'HEAD'], work);
    const c1 = await g.commit(work, 'x.txt', 'one\ntwo\nthree\n');
    await g.ok(['mv', 'README.md', 'README2.md'], work);
    await g.ok(['commit', '-q', '-m', 'rename'], work);
    const c2 = await g.ok(['rev-parse', 'HEAD'], work);
    await g.ok(['push', '-q', 'origin', 'shown'], work);
    const n = (await api('POST', '/pulls', { head: 'shown', base: 'main', title: 'Shown' }, alice)).body.number as number;

    const commits = await api('GET', `/pulls/${n}/commits`, undefined, alice);
    expect((commits.body as { sha: string }[]).map((c) => c.sha)).to.deep.equal([c2, c1]);
    expect(commits.headers.get('x-total-count')).to.equal('2');
    expect(commits.body[1].stats).to.deep.equal({ total: 3, additions: 3, deletions: 0 });

    const files = (await api('GET', `/pulls/${n}/files`, undefined, alice)).body as Record<string, unknown>[];
    const numstat = (await g.ok(['diff', '-M', '--numstat', base, c2], work)).split('\n');
    expect(files.map((f) => `${f.additions}\t${f.deletions}\t${f.filename}`)).to.have.length(numstat.length);
    expect(files.find((f) => f.filename === 'x.txt')).to.deep.include({ status: 'added', additions: 3, deletions: 0, changes: 3 });
    expect(files.find((f) => f.filename === 'README2.md')).to.deep.include({ status: 'renamed', previous_filename: 'README.md' });
    expect(files[0].raw_url).to.equal(`${rw.w.server.url}alice/proj/raw/commit/${c2}/${files[0].filename}`);
    const skipped = (await api('GET', `/pulls/${n}/files?skip-to=x.txt`, undefined, alice)).body as { filename: string }[];
    expect(skipped[0].filename).to.equal('x.txt');
    const paged = await api('GET', `/pulls/${n}/files?limit=1`, undefined, alice);
    expect([paged.body.length, paged.headers.get('x-total-count')]).to.deep.equal([1, '2']);
    expect((await api('GET', `/pulls/${n}/files?whitespace=sometimes`, undefined, alice)).status).to.equal(422);

    const text = async (suffix: string) => (await fetch(`${rw.w.server.url}alice/proj/pulls/${n}${suffix}`.replace('/alice/proj/', '/api/v1/repos/alice/proj/'), { headers: { Authorization: `token ${alice.token}` } })).text();
    const gitDiff = (await g.run(['diff', '-p', base, c2], work)).stdout;
    const gitPatch = (await g.run(['format-patch', '--binary', '--no-signature', '--stdout', `${base}..${c2}`], work)).stdout;
    // why: the second answer is the one the server kept from the first.
    for (let round = 0; round < 2; round++) {
      expect(await text('.diff'), `round ${round}`).to.equal(gitDiff);
      expect(await text('.patch'), `round ${round}`).to.equal(gitPatch);
    }
  });

  it('edits title, base, labels, state and allow_maintainer_edit, refusing what Gitea refuses', async () => {
    const { alice, bob, carol } = rw;
    await pushChange('edit-head', 'edit.txt', 'e\n');
    expect((await api('POST', '/branches', { new_branch_name: 'develop' }, alice)).status).to.equal(201);
    const n = (await api('POST', '/pulls', { head: 'edit-head', base: 'main', title: 'Edit me' }, alice)).body.number as number;
    const edit = (body: Record<string, unknown>, who = alice) => api('PATCH', `/pulls/${n}`, body, who);
    const moved = await edit({ title: 'Edited', base: 'develop' });
    expect(moved.status).to.equal(201);
    expect([moved.body.title, moved.body.base.ref]).to.deep.equal(['Edited', 'develop']);
    const entries = (await timeline(n)) as unknown as { type: string; old_ref: string; new_ref: string }[];
    expect(entries.find((t) => t.type === 'change_target_branch')).to.deep.include({ old_ref: 'main', new_ref: 'develop' });
    expect(entries.map((t) => t.type)).to.include('change_title');

    const refusals: [Record<string, unknown>, TestUser, number, string][] = [
      [{ base: 'nope' }, alice, 404, "new base 'nope' not exist"],
      [{ base: 'edit-head' }, alice, 422, 'Invalid PullRequest: There are no changes between the head and the base'],
      [{ title: 'hijack' }, bob, 403, ''],
      [{ allow_maintainer_edit: true }, carol, 403, 'SetAllowEdits: user not allowed to do this action'],
      [{ state: 'weird' }, alice, 412, 'unknown state: weird'],
    ];
    for (const [body, who, status, message] of refusals) {
      const r = await edit(body, who);
      expect([r.status, r.body?.message ?? ''], JSON.stringify(body)).to.deep.equal([status, message]);
    }
    const after = (await api('GET', `/pulls/${n}`, undefined, alice)).body;
    expect([after.title, after.base.ref, after.allow_maintainer_edit, after.state]).to.deep.equal(['Edited', 'develop', false, 'open']);

    const label = (await api('POST', '/labels', { name: 'review', color: '#00ff00' }, alice)).body;
    expect((await edit({ labels: [label.id, 999999], allow_maintainer_edit: true })).body).to.deep.include({ allow_maintainer_edit: true });
    expect(((await api('GET', `/pulls/${n}`, undefined, alice)).body.labels as { name: string }[]).map((l) => l.name)).to.deep.equal(['review']);
    expect((await edit({ state: 'closed' })).body.state).to.equal('closed');
  });

  it('refuses bad requests with Gitea\'s answers and creates nothing', async () => {
    const { alice, bob } = rw;
    await pushChange('feature-2', 'f2.txt', 'x');
    await rw.g.ok(['tag', 'v1', 'main'], work);
    await rw.g.ok(['push', '-q', 'origin', 'v1'], work);
    const before = await pullsTotal();
    const cases: [Record<string, unknown>, TestUser, number, string | null][] = [
      [{ base: 'main', title: 't' }, alice, 422, '[Head]: Required'],
      [{ head: 'feature-2', title: 't' }, alice, 422, '[Base]: Required'],
      [{ head: 'feature-2', base: 'main' }, alice, 422, '[Title]: Required'],
      [{ head: 'main', base: 'main', title: 't' }, alice, 422, 'Invalid PullRequest: There are no changes between the head and the base'],
      [{ head: 'nope', base: 'main', title: 't' }, alice, 404, null],
      [{ head: '-x', base: 'main', title: 't' }, alice, 404, null],
      [{ head: 'feature-2', base: '--upload-pack=x', title: 't' }, alice, 404, null],
      [{ head: 'main..feature-2', base: 'main', title: 't' }, alice, 404, null],
      [{ head: 'feature-2', base: 'v1', title: 't' }, alice, 422, 'Invalid PullRequest: base and head must be branches'],
      [{ head: 'a:b:c', base: 'main', title: 't' }, alice, 404, null],
      [{ head: 'nobody:x', base: 'main', title: 't' }, alice, 404, 'GetUserByName'],
      [{ head: 'feature', base: 'main', title: 'again' }, alice, 409, null],
      [{ head: 'feature-2', base: 'main', title: 'not mine' }, bob, 403, 'user must be a collaborator'],
    ];
    for (const [body, who, status, message] of cases) {
      const r = await api('POST', '/pulls', body, who);
      expect(r.status, JSON.stringify(body)).to.equal(status);
      if (message) expect(r.body.message, JSON.stringify(body)).to.equal(message);
    }
    const dup = await api('POST', '/pulls', { head: 'feature', base: 'main', title: 'again' }, alice);
    expect(dup.body.message).to.match(/^pull request already exists for these targets \[id: \d+, issue_id: 1, head_repo_id: \d+, base_repo_id: \d+, head_branch: feature, base_branch: main\]$/);
    expect(await pullsTotal()).to.equal(before);
    expect((await api('GET', '/pulls/999', undefined, alice)).status).to.equal(404);
  });

  it('marks work-in-progress titles as drafts, which are not mergeable, and filters the list', async () => {
    const { alice, carol } = rw;
    const wip = await carol.api.repos.repoCreatePullRequest('alice', 'proj', { head: 'feature-2', base: 'main', title: '[WIP] second' });
    expect(wip.data).to.deep.include({ draft: true, mergeable: false });
    const numbers = async (q: string) => ((await api('GET', `/pulls${q}`, undefined, alice)).body as { number: number }[]).map((p) => p.number);
    const all = await numbers('');
    expect(all[0]).to.equal(wip.data.number);
    expect(await numbers('?poster=carol')).to.deep.equal([wip.data.number]);
    expect(await numbers('?sort=oldest')).to.deep.equal([...all].reverse());
    expect(await numbers('?base_branch=feature')).to.deep.equal([]);
    const [open, closed] = [await numbers('?state=open'), await numbers('?state=closed')];
    expect(closed).to.have.length(1);
    expect([...open, ...closed].sort()).to.deep.equal([...all].sort());
    const unknown = await api('GET', '/pulls?poster=nobody', undefined, alice);
    expect([unknown.status, unknown.body.message]).to.deep.equal([400, 'user does not exist [uid: 0, name: nobody]']);
  });

  it('closes the pull requests whose head or base branch is deleted, by a push or through the API', async () => {
    const { alice } = rw;
    await pushChange('gone-base', 'gone-base.txt', 'base\n');
    await pushChange('gone-head', 'gone-head.txt', 'head\n', 'gone-base');
    const onBase = (await api('POST', '/pulls', { head: 'gone-head', base: 'gone-base', title: 'on a base that goes' }, alice)).body.number as number;
    await pushChange('gone-too', 'gone-too.txt', 'too\n');
    const ofHead = (await api('POST', '/pulls', { head: 'gone-too', base: 'main', title: 'from a head that goes' }, alice)).body.number as number;
    const state = async (n: number) => (await api('GET', `/pulls/${n}`, undefined, alice)).body.state as string;
    expect([await state(onBase), await state(ofHead)]).to.deep.equal(['open', 'open']);
    await rw.g.ok(['push', '-q', 'origin', '--delete', 'gone-base'], work);
    await waitFor('the pull request on the deleted base to close', async () => (await state(onBase)) === 'closed');
    expect((await api('DELETE', '/branches/gone-too', undefined, alice)).status).to.equal(204);
    await waitFor('the pull request of the deleted head to close', async () => (await state(ofHead)) === 'closed');
    const closes = (await timeline(ofHead)).filter((e) => e.type === 'close');
    expect(closes).to.have.length(1);
    expect((await api('GET', `/pulls/${ofHead}`, undefined, alice)).body.merged).to.equal(false);
  });

  it('lets a writer of the base push to a fork\'s head branch when the pull request allows maintainer edits, and nothing else of the fork', async () => {
    const { bob, carol, g } = rw;
    const n = (await api('GET', '/pulls/main/bob:fix', undefined, carol)).body.number as number;
    const d = await g.clone(carol, 'bob', 'proj');
    await g.ok(['checkout', '-q', 'fix'], d);
    const mine = await g.commit(d, 'maintainer.txt', 'by a maintainer\n');
    const refused = await g.run(['push', '-q', 'origin', 'fix'], d);
    expect(refused.code).to.not.equal(0);
    expect(await g.serverRef('bob', 'proj', 'refs/heads/fix')).to.not.equal(mine);
    const canPush = async (branch: string) => (await rw.w.raw('GET', `/repos/bob/proj/branches/${branch}`, undefined, { token: carol.token })).body.user_can_push as boolean;
    expect(await canPush('fix')).to.equal(false);
    expect((await rw.w.raw('PATCH', `/repos/alice/proj/pulls/${n}`, { allow_maintainer_edit: true }, { token: bob.token })).status).to.equal(201);
    expect([await canPush('fix'), await canPush('main')]).to.deep.equal([true, false]);
    await g.ok(['push', '-q', 'origin', 'fix'], d);
    expect(await g.serverRef('bob', 'proj', 'refs/heads/fix')).to.equal(mine);
    await waitFor('the pull ref to follow', async () => (await g.serverRef('alice', 'proj', `refs/pull/${n}/head`)) === mine);
    for (const ref of ['fix:refs/heads/elsewhere', 'fix:refs/tags/v-maintainer']) {
      const other = await g.run(['push', '-q', 'origin', ref], d);
      expect(other.code, ref).to.not.equal(0);
      expect(other.stderr, ref).to.include('User permission denied for writing.');
    }
    expect(await g.serverRef('bob', 'proj', 'refs/heads/elsewhere')).to.equal(null);
    expect(await g.serverRef('bob', 'proj', 'refs/tags/v-maintainer')).to.equal(null);
  });
});
