/**
 * The merge settings of PATCH /repos/{owner}/{repo}: stored in the pull-request unit's config
 * (Gitea's PullRequestsConfig JSON), shown in every repository JSON, ignored while pull requests
 * are off, Gitea's defaults when an edit turns pull requests back on, 422 for an unknown merge style.
 */
import { expect } from 'chai';
import { startWorld, type World, type TestUser, type RawResponse } from '../helpers/world';
import { sql } from '../helpers/db';

function expectError(res: RawResponse, status: number, message?: string | RegExp): void {
  expect(res.status, res.text).to.equal(status);
  if (message instanceof RegExp) expect(res.body.message).to.match(message);
  else if (message !== undefined) expect(res.body.message).to.equal(message);
}

const KEYS = [
  'ignore_whitespace_conflicts', 'allow_merge_commits', 'allow_rebase', 'allow_rebase_explicit', 'allow_squash_merge',
  'allow_fast_forward_only_merge', 'allow_manual_merge', 'autodetect_manual_merge', 'allow_rebase_update',
  'default_delete_branch_after_merge', 'default_merge_style', 'default_allow_maintainer_edit',
] as const;

describe('repository merge settings', () => {
  let w: World;
  let alice: TestUser;
  let bob: TestUser;
  const settingsOf = (r: Record<string, unknown>) => Object.fromEntries(KEYS.map((k) => [k, r[k]]));
  const get = async () => (await w.raw('GET', '/repos/alice/merge', undefined, { token: alice.token })).body as Record<string, unknown>;
  const config = async (id: number) => JSON.parse((await sql(w.server, 'SELECT config FROM repo_unit WHERE repo_id = $1 AND type = 3', [id]))[0].config);

  before(async () => {
    w = await startWorld();
    [alice, bob] = [await w.user('alice'), await w.user('bob')];
    expect((await alice.api.user.createCurrentUserRepo({ name: 'merge' })).status).to.equal(201);
  });
  after(async () => { await w?.stop(); });

  it('a new repository shows Gitea’s defaults', async () => {
    expect(settingsOf(await get())).to.deep.equal({
      ignore_whitespace_conflicts: false, allow_merge_commits: true, allow_rebase: true, allow_rebase_explicit: true, allow_squash_merge: true,
      allow_fast_forward_only_merge: true, allow_manual_merge: false, autodetect_manual_merge: false, allow_rebase_update: true,
      default_delete_branch_after_merge: false, default_merge_style: 'merge', default_allow_maintainer_edit: false,
    });
  });

  it('stores and returns every setting (200); the config row holds Gitea’s field names', async () => {
    const want = {
      ignore_whitespace_conflicts: true, allow_merge_commits: false, allow_rebase: false, allow_rebase_explicit: false, allow_squash_merge: true,
      allow_fast_forward_only_merge: false, allow_manual_merge: true, autodetect_manual_merge: true, allow_rebase_update: false,
      default_delete_branch_after_merge: true, default_merge_style: 'squash', default_allow_maintainer_edit: true,
    };
    const res = await alice.api.repos.repoEdit('alice', 'merge', want);
    expect(res.status).to.equal(200);
    expect(settingsOf(res.data as unknown as Record<string, unknown>)).to.deep.equal(want);
    const r = await get();
    expect(settingsOf(r)).to.deep.equal(want);
    expect(await config(r.id as number)).to.include({ AllowSquash: true, AllowMerge: false, DefaultMergeStyle: 'squash', AllowManualMerge: true, IgnoreWhitespaceConflicts: true });
    const one = await alice.api.repos.repoEdit('alice', 'merge', { allow_rebase: true });
    expect(settingsOf(one.data as unknown as Record<string, unknown>)).to.deep.equal({ ...want, allow_rebase: true });
  });

  it('refuses an unknown merge style and a non-admin with nothing changed', async () => {
    const before = settingsOf(await get());
    expectError(await w.raw('PATCH', '/repos/alice/merge', { default_merge_style: 'octopus', allow_squash_merge: false }, { token: alice.token }), 422,
      '[DefaultMergeStyle]: must be one of merge, rebase, rebase-merge, squash, fast-forward-only');
    expectError(await w.raw('PATCH', '/repos/alice/merge', { allow_squash_merge: false }, { token: bob.token }), 403);
    expectError(await w.raw('PATCH', '/repos/alice/merge', { allow_squash_merge: 'no' }, { token: alice.token }), 422);
    expect(settingsOf(await get())).to.deep.equal(before);
    for (const style of ['merge', 'rebase', 'rebase-merge', 'fast-forward-only']) {
      expect((await alice.api.repos.repoEdit('alice', 'merge', { default_merge_style: style })).data.default_merge_style).to.equal(style);
    }
  });

  it('reads false while pull requests are off and ignores settings sent then; turning them on gives Gitea’s edit defaults', async () => {
    const off = await alice.api.repos.repoEdit('alice', 'merge', { has_pull_requests: false });
    expect(settingsOf(off.data as unknown as Record<string, unknown>)).to.deep.equal(Object.fromEntries(KEYS.map((k) => [k, k === 'default_merge_style' ? 'merge' : false])));
    const ignored = await alice.api.repos.repoEdit('alice', 'merge', { allow_squash_merge: true, default_merge_style: 'squash' });
    expect(ignored.data).to.include({ allow_squash_merge: false, default_merge_style: 'merge', has_pull_requests: false });
    const on = await alice.api.repos.repoEdit('alice', 'merge', { has_pull_requests: true, allow_rebase: false });
    expect(settingsOf(on.data as unknown as Record<string, unknown>)).to.deep.equal({
      ignore_whitespace_conflicts: false, allow_merge_commits: true, allow_rebase: false, allow_rebase_explicit: true, allow_squash_merge: true,
      allow_fast_forward_only_merge: true, allow_manual_merge: true, autodetect_manual_merge: false, allow_rebase_update: true,
      default_delete_branch_after_merge: false, default_merge_style: 'merge', default_allow_maintainer_edit: false,
    });
  });

  it('the settings show in lists too', async () => {
    const list = await alice.api.users.userListRepos('alice');
    expect(list.data.find((r) => r.name === 'merge')).to.include({ allow_rebase: false, allow_manual_merge: true });
  });
});
