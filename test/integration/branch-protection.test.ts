/**
 * Branch protection rules (`/branch_protections`): create, list, get, edit, delete and priority
 * through gitea-js and raw HTTP; Gitea's coupling of the push and force-push flags, allow-lists
 * that keep only users with the access they need, the order rules are tried in, and every refusal
 * with Gitea's answer and nothing changed.
 */
import { expect } from 'chai';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { apiRepo } from '../helpers/refs';
import { sql } from '../helpers/db';

describe('branch protection rules', () => {
  let w: World;
  let alice: TestUser;
  let carol: TestUser;
  let dave: TestUser;
  const rules = async () => (await w.raw('GET', '/repos/alice/proj/branch_protections', undefined, { token: alice.token })).body as { rule_name: string; priority: number }[];

  before(async () => {
    w = await startWorld();
    [alice, carol, dave] = await Promise.all([w.user('alice'), w.user('carol'), w.user('dave')]);
    await apiRepo(w, alice, 'proj');
    for (const [who, permission] of [['carol', 'write'], ['dave', 'read']]) {
      expect((await w.raw('PUT', `/repos/alice/proj/collaborators/${who}`, { permission }, { token: alice.token })).status).to.equal(204);
    }
  });
  after(() => w.stop());
  afterEach(async () => {
    for (const r of await rules()) await w.raw('DELETE', `/repos/alice/proj/branch_protections/${encodeURIComponent(r.rule_name)}`, undefined, { token: alice.token });
  });

  it('creates, lists, gets, edits and deletes a rule with Gitea\'s fields (gitea-js)', async () => {
    const made = await alice.api.repos.repoCreateBranchProtection('alice', 'proj', {
      rule_name: 'main', enable_push: true, enable_push_whitelist: true, push_whitelist_usernames: ['carol'],
      required_approvals: 2, enable_status_check: true, status_check_contexts: ['ci/*', ' '], block_on_rejected_reviews: true,
      protected_file_patterns: 'go.mod;*.lock', require_signed_commits: true,
    });
    expect(made.status).to.equal(201);
    expect(made.data).to.deep.include({
      branch_name: 'main', rule_name: 'main', priority: 1, enable_push: true, enable_push_whitelist: true,
      push_whitelist_usernames: ['carol'], push_whitelist_teams: [], push_whitelist_deploy_keys: false,
      enable_force_push: false, enable_merge_whitelist: false, merge_whitelist_usernames: [], required_approvals: 2,
      enable_status_check: true, status_check_contexts: ['ci/*'], block_on_rejected_reviews: true, block_on_outdated_branch: false,
      protected_file_patterns: 'go.mod;*.lock', unprotected_file_patterns: '', require_signed_commits: true, approvals_whitelist_username: [],
    });
    expect(made.data.created_at).to.match(/^\d{4}-\d\d-\d\dT/);
    const glob = await alice.api.repos.repoCreateBranchProtection('alice', 'proj', { rule_name: 'release/**' });
    expect(glob.data).to.include({ branch_name: '', rule_name: 'release/**', priority: 2 });
    expect((await alice.api.repos.repoListBranchProtection('alice', 'proj')).data.map((r) => r.rule_name)).to.deep.equal(['main', 'release/**']);
    expect((await alice.api.repos.repoGetBranchProtection('alice', 'proj', 'release/**')).data.rule_name).to.equal('release/**');
    const edited = await alice.api.repos.repoEditBranchProtection('alice', 'proj', 'main', { required_approvals: 1, enable_merge_whitelist: true, merge_whitelist_usernames: ['alice'] });
    expect(edited.status).to.equal(200);
    expect(edited.data).to.deep.include({
      rule_name: 'main', required_approvals: 1, enable_merge_whitelist: true, merge_whitelist_usernames: ['alice'],
      push_whitelist_usernames: ['carol'], status_check_contexts: ['ci/*'],
    });
    expect((await alice.api.repos.repoDeleteBranchProtection('alice', 'proj', 'main')).status).to.equal(204);
    expect((await w.raw('GET', '/repos/alice/proj/branch_protections/main', undefined, { token: alice.token })).status).to.equal(404);
    expect((await w.raw('DELETE', '/repos/alice/proj/branch_protections/main', undefined, { token: alice.token })).status).to.equal(404);
  });

  it('couples the flags as Gitea does: no allow-list without pushing, no force push without pushing', async () => {
    const r = await w.raw('POST', '/repos/alice/proj/branch_protections', {
      branch_name: 'dev', enable_push: false, enable_push_whitelist: true, push_whitelist_deploy_keys: true,
      enable_force_push: true, enable_force_push_allowlist: true, required_approvals: -3,
    }, { token: alice.token });
    expect(r.status, r.text).to.equal(201);
    expect(r.body).to.include({
      rule_name: 'dev', enable_push: false, enable_push_whitelist: false, push_whitelist_deploy_keys: false,
      enable_force_push: false, enable_force_push_allowlist: false, required_approvals: 0,
    });
    const on = await w.raw('PATCH', '/repos/alice/proj/branch_protections/dev', { enable_push: true, enable_push_whitelist: true, enable_force_push: true }, { token: alice.token });
    expect(on.body).to.include({ enable_push: true, enable_push_whitelist: true, enable_force_push: true });
    const off = await w.raw('PATCH', '/repos/alice/proj/branch_protections/dev', { enable_push: false }, { token: alice.token });
    expect(off.body).to.include({ enable_push: false, enable_push_whitelist: false, enable_force_push: false });
  });

  it('keeps on a list only users with the access it needs: write to push and merge, read to approve', async () => {
    const r = await w.raw('POST', '/repos/alice/proj/branch_protections', {
      rule_name: 'main', enable_push: true, enable_push_whitelist: true, push_whitelist_usernames: ['carol', 'dave', 'alice'],
      push_whitelist_teams: ['owners'], enable_approvals_whitelist: true, approvals_whitelist_username: ['dave', 'carol'],
    }, { token: alice.token });
    expect(r.status, r.text).to.equal(201);
    // dave reads only; teams mean nothing for a user's repository
    expect(r.body.push_whitelist_usernames).to.deep.equal(['carol', 'alice']);
    expect(r.body.push_whitelist_teams).to.deep.equal([]);
    expect(r.body.approvals_whitelist_username).to.deep.equal(['dave', 'carol']);
  });

  it('refuses bad input with Gitea\'s answers and changes nothing', async () => {
    expect((await w.raw('POST', '/repos/alice/proj/branch_protections', { rule_name: 'main' }, { token: alice.token })).status).to.equal(201);
    const cases: [Record<string, unknown>, number, string][] = [
      [{ rule_name: '  ' }, 400, 'both rule_name and branch_name are empty'],
      [{}, 400, 'both rule_name and branch_name are empty'],
      [{ rule_name: 'main' }, 403, 'Branch protection already exist'],
      [{ rule_name: 'x', enable_push: true, enable_push_whitelist: true, push_whitelist_usernames: ['nobody'] }, 422, 'user does not exist [uid: 0, name: nobody]'],
      [{ rule_name: 'x', approvals_whitelist_username: ['nobody'] }, 422, 'user does not exist [uid: 0, name: nobody]'],
      [{ rule_name: 'x', required_approvals: 'two' }, 422, ''],
    ];
    for (const [body, status, message] of cases) {
      const r = await w.raw('POST', '/repos/alice/proj/branch_protections', body, { token: alice.token });
      expect(r.status, JSON.stringify(body)).to.equal(status);
      if (message) expect(r.body.message).to.equal(message);
    }
    const bad = await w.raw('PATCH', '/repos/alice/proj/branch_protections/main', { merge_whitelist_usernames: ['nobody'], required_approvals: 5 }, { token: alice.token });
    expect(bad.status).to.equal(422);
    expect((await w.raw('PATCH', '/repos/alice/proj/branch_protections/none', { required_approvals: 1 }, { token: alice.token })).status).to.equal(404);
    const after = await w.raw('GET', '/repos/alice/proj/branch_protections', undefined, { token: alice.token });
    expect(after.body).to.have.length(1);
    expect(after.body[0]).to.include({ rule_name: 'main', required_approvals: 0 });
  });

  it('needs a repository admin: 403 for writers, 401 anonymous; another repository\'s rule is 404', async () => {
    const r = await w.raw('POST', '/repos/alice/proj/branch_protections', { rule_name: 'main' }, { token: carol.token });
    expect(r.status).to.equal(403);
    expect(r.body.message).to.equal('user should be an owner or a collaborator with admin write of a repository');
    expect((await w.raw('GET', '/repos/alice/proj/branch_protections', undefined, { token: carol.token })).status).to.equal(403);
    expect((await w.raw('GET', '/repos/alice/proj/branch_protections', undefined, { token: dave.token })).status).to.equal(403);
    expect((await w.raw('GET', '/repos/alice/proj/branch_protections')).status).to.equal(401);
    await apiRepo(w, carol, 'own');
    expect((await w.raw('POST', '/repos/carol/own/branch_protections', { rule_name: 'only-here' }, { token: carol.token })).status).to.equal(201);
    expect((await w.raw('GET', '/repos/alice/proj/branch_protections/only-here', undefined, { token: alice.token })).status).to.equal(404);
    expect((await w.raw('DELETE', '/repos/alice/proj/branch_protections/only-here', undefined, { token: alice.token })).status).to.equal(404);
    expect(await rules()).to.deep.equal([]);
  });

  it('tries rules by priority, plain names before globs, and takes a new order from /priority', async () => {
    for (const name of ['release/*', 'main', 'feature/**']) {
      expect((await w.raw('POST', '/repos/alice/proj/branch_protections', { rule_name: name, priority: 1 }, { token: alice.token })).status).to.equal(201);
    }
    // equal priorities: the plain name first, then the globs oldest first
    expect((await rules()).map((r) => r.rule_name)).to.deep.equal(['main', 'release/*', 'feature/**']);
    // why: Gitea's BranchProtection JSON has no id, so a client takes the ids from elsewhere (its UI); here, the table
    const byName = new Map((await sql(w.server, 'SELECT id, rule_name FROM protected_branch')).map((r) => [String(r.rule_name), Number(r.id)]));
    const order = await w.raw('POST', '/repos/alice/proj/branch_protections/priority', { ids: [byName.get('feature/**'), 9_999_999, byName.get('release/*'), byName.get('main')] }, { token: alice.token });
    expect(order.status, order.text).to.equal(204);
    expect((await rules()).map((r) => [r.rule_name, r.priority])).to.deep.equal([['feature/**', 1], ['release/*', 3], ['main', 4]]);
    const bad = await w.raw('POST', '/repos/alice/proj/branch_protections/priority', { ids: ['x'] }, { token: alice.token });
    expect(bad.status).to.equal(422);
    expect((await w.raw('POST', '/repos/alice/proj/branch_protections/priority', { ids: [byName.get('main')] }, { token: carol.token })).status).to.equal(403);
    expect((await rules()).map((r) => r.rule_name)).to.deep.equal(['feature/**', 'release/*', 'main']);
  });
});
