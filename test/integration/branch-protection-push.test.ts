/**
 * Branch protection enforced: pushes with the git CLI over HTTP and SSH (users and deploy keys),
 * the contents API, branch deletion and rename, and the branch JSON. Every refusal carries
 * Gitea's message and leaves the server's refs as they were.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { startRefsWorld, type RefsWorld } from '../helpers/refs';
import { git } from '../helpers/repo-fixture';
import { gitSshCommand, sshKeyFile, type SshKeyFile } from '../helpers/ssh';
import type { TestUser } from '../helpers/world';

describe('branch protection enforced', () => {
  let rw: RefsWorld;
  const api = (method: string, p: string, body: unknown, u: TestUser) => rw.w.raw(method, `/repos/alice/proj${p}`, body, { token: u.token });
  const protect = async (rule: Record<string, unknown>) => {
    const r = await api('POST', '/branch_protections', rule, rw.alice);
    expect(r.status, r.text).to.equal(201);
  };
  const unprotect = async (name: string) => expect((await api('DELETE', `/branch_protections/${encodeURIComponent(name)}`, undefined, rw.alice)).status).to.equal(204);
  const head = (branch: string) => rw.g.serverRef('alice', 'proj', `refs/heads/${branch}`);
  const sshUrl = () => `ssh://git@127.0.0.1:${rw.w.server.sshPort}/alice/proj.git`;
  const sshEnv = (key: SshKeyFile) => ({ GIT_SSH_COMMAND: gitSshCommand(rw.w.server.sshPort, key) });

  /** A clone by `u` with one new commit changing `files` (all with the same content) on `branch`. */
  const cloneWith = async (u: TestUser, branch: string, files: string[]) => {
    const d = await rw.g.clone(u, 'alice', 'proj');
    await rw.g.ok(['checkout', '-q', branch], d);
    for (const f of files) {
      fs.mkdirSync(path.dirname(path.join(d, f)), { recursive: true });
      fs.writeFileSync(path.join(d, f), `${f} by ${u.name} ${Math.random()}\n`);
    }
    await rw.g.ok(['add', '-A'], d);
    await rw.g.ok(['commit', '-q', '-m', `change ${files.join(' ')}`], d);
    return d;
  };
  const push = (d: string, args: string[], env?: Record<string, string>) => git(['push', ...args], { cwd: d, home: rw.g.home, env });
  /** Push and expect a refusal naming `message`; the branch stays where it was. */
  const refused = async (d: string, args: string[], branch: string, message: string, env?: Record<string, string>) => {
    const before = await head(branch);
    const res = await push(d, args, env);
    expect(res.code, res.stderr).to.not.equal(0);
    expect(res.stderr).to.contain(message);
    expect(await head(branch)).to.equal(before);
  };
  const makeBranch = async (name: string) => expect((await api('POST', '/branches', { new_branch_name: name }, rw.alice)).status).to.equal(201);

  before(async () => {
    rw = await startRefsWorld();
  });
  after(() => rw.w.stop());

  it('refuses pushes by users the rule does not list, over HTTP and SSH, and says so in the branch JSON', async () => {
    const { alice, carol, bob } = rw;
    await protect({ rule_name: 'main', enable_push: true, enable_push_whitelist: true, push_whitelist_usernames: ['carol'] });
    const d = await cloneWith(alice, 'main', ['a.txt']);
    await refused(d, ['origin', 'main'], 'main', 'Not allowed to push to protected branch main');
    const key = sshKeyFile('ed25519');
    expect((await rw.w.raw('POST', '/user/keys', { title: 'laptop', key: key.pub }, { token: alice.token })).status).to.equal(201);
    await refused(d, [sshUrl(), 'main'], 'main', 'Not allowed to push to protected branch main', sshEnv(key));
    const c = await cloneWith(carol, 'main', ['c.txt']);
    await rw.g.ok(['push', '-q', 'origin', 'main'], c);
    expect(await head('main')).to.equal(await rw.g.ok(['rev-parse', 'HEAD'], c));

    const branchAs = async (u: TestUser | null) => (await rw.w.raw('GET', '/repos/alice/proj/branches/main', undefined, u ? { token: u.token } : {})).body;
    expect(await branchAs(alice)).to.deep.include({
      protected: true, user_can_push: false, user_can_merge: true, effective_branch_protection_name: 'main', required_approvals: 0, status_check_contexts: [],
    });
    expect(await branchAs(carol)).to.deep.include({ protected: true, user_can_push: true, user_can_merge: true, effective_branch_protection_name: '' });
    expect(await branchAs(bob)).to.deep.include({ protected: true, user_can_push: false, user_can_merge: false, effective_branch_protection_name: '' });
    expect(await branchAs(null)).to.deep.include({ protected: true, user_can_push: false, user_can_merge: false });
    const list = (await rw.w.raw('GET', '/repos/alice/proj/branches', undefined, { token: carol.token })).body as { name: string; protected: boolean }[];
    expect(list.find((b) => b.name === 'main')?.protected).to.equal(true);
    await api('PATCH', '/branch_protections/main', { enable_status_check: true, status_check_contexts: ['ci/*'], required_approvals: 2 }, alice);
    expect(await branchAs(carol)).to.deep.include({ enable_status_check: true, status_check_contexts: ['ci/*'], required_approvals: 2 });
    await unprotect('main');
    expect(await branchAs(carol)).to.deep.include({ protected: false, user_can_push: true, user_can_merge: true, enable_status_check: false });
  });

  it('refuses deleting and force-pushing a protected branch unless the rule lets the pusher force-push', async () => {
    const { alice, carol } = rw;
    await makeBranch('release/v1');
    await protect({ rule_name: 'release/*', enable_push: true });
    const d = await cloneWith(carol, 'release/v1', ['r.txt']);
    await rw.g.ok(['push', '-q', 'origin', 'release/v1'], d);
    await refused(d, ['origin', ':release/v1'], 'release/v1', 'branch release/v1 is protected from deletion');
    const del = await api('DELETE', '/branches/release%2Fv1', undefined, alice);
    expect([del.status, del.body.message]).to.deep.equal([403, 'branch protected']);
    expect(await head('release/v1')).to.not.equal(null);

    await rw.g.ok(['reset', '-q', '--hard', 'HEAD~1'], d);
    await rw.g.commit(d, 'other.txt', 'rewritten');
    await refused(d, ['-f', 'origin', 'release/v1'], 'release/v1', 'branch release/v1 is protected from force push');
    await api('PATCH', '/branch_protections/release%2F*', { enable_push: true, enable_force_push: true, enable_force_push_allowlist: true, force_push_allowlist_usernames: ['alice'] }, alice);
    await refused(d, ['-f', 'origin', 'release/v1'], 'release/v1', 'Not allowed to force-push to protected branch release/v1');
    const a = await rw.g.clone(alice, 'alice', 'proj');
    await rw.g.ok(['fetch', '-q', d, 'HEAD'], a);
    await rw.g.ok(['push', '-q', '-f', 'origin', 'FETCH_HEAD:refs/heads/release/v1'], a);
    expect(await head('release/v1')).to.equal(await rw.g.ok(['rev-parse', 'HEAD'], d));

    // a tag is matched as a tag: the branch rule does not apply to refs/tags/release/v1, nor the tag to the branch
    await rw.g.ok(['push', '-q', 'origin', 'HEAD:refs/tags/release/v1'], d);
    await rw.g.ok(['push', '-q', 'origin', ':refs/tags/release/v1'], d);
    expect(await head('release/v1')).to.not.equal(null);
    await unprotect('release/*');
  });

  it('guards protected files and lets anyone with write change only unprotected ones, by push and through the contents API', async () => {
    const { alice, carol } = rw;
    await protect({
      rule_name: 'main', enable_push: true, enable_push_whitelist: true, push_whitelist_usernames: ['carol'],
      protected_file_patterns: 'go.mod; secrets/**', unprotected_file_patterns: 'docs/**',
    });
    await refused(await cloneWith(carol, 'main', ['GO.MOD']), ['origin', 'main'], 'main', 'branch main is protected from changing file go.mod');
    await refused(await cloneWith(carol, 'main', ['secrets/a/key.txt']), ['origin', 'main'], 'main', 'branch main is protected from changing file secrets/a/key.txt');
    const docs = await cloneWith(alice, 'main', ['docs/guide.md']);
    await rw.g.ok(['push', '-q', 'origin', 'main'], docs);
    expect(await head('main')).to.equal(await rw.g.ok(['rev-parse', 'HEAD'], docs));
    await refused(await cloneWith(alice, 'main', ['docs/more.md', 'src.txt']), ['origin', 'main'], 'main', 'Not allowed to push to protected branch main');

    const before = await head('main');
    const put = (u: TestUser, file: string) => api('POST', `/contents/${file}`, { content: Buffer.from('x').toString('base64'), branch: 'main' }, u);
    const notListed = await put(alice, 'README2.md');
    expect([notListed.status, notListed.body.message]).to.deep.equal([403, 'user cannot commit to repo [user: alice]']);
    const guarded = await put(carol, 'go.mod');
    expect([guarded.status, guarded.body.message]).to.deep.equal([403, 'path is protected and can not be changed [path: go.mod]']);
    expect(await head('main')).to.equal(before);
    expect((await put(alice, 'docs/api.md')).status).to.equal(201);
    expect((await put(carol, 'src/lib.txt')).status).to.equal(201);
    await unprotect('main');
  });

  it('requires verified signatures on every commit a protected branch gains', async () => {
    const { carol } = rw;
    await makeBranch('signed');
    await protect({ rule_name: 'signed', enable_push: true, require_signed_commits: true });
    const d = await cloneWith(carol, 'signed', ['unsigned.txt']);
    const unsigned = await rw.g.ok(['rev-parse', 'HEAD'], d);
    await refused(d, ['origin', 'signed'], 'signed', `branch signed is protected from unverified commit ${unsigned}`);

    const key = sshKeyFile('ed25519');
    expect((await rw.w.raw('POST', '/user/keys', { title: 'signing', key: key.pub }, { token: carol.token })).status).to.equal(201);
    await rw.g.ok(['reset', '-q', '--hard', 'HEAD~1'], d);
    fs.writeFileSync(path.join(d, 'signed.txt'), 'signed\n');
    await rw.g.ok(['add', 'signed.txt'], d);
    await rw.g.ok(['-c', 'gpg.format=ssh', '-c', `user.signingkey=${key.file}`, '-c', `user.email=${carol.email}`, '-c', 'user.name=carol', 'commit', '-q', '-S', '-m', 'signed'], d);
    await rw.g.ok(['push', '-q', 'origin', 'signed'], d);
    expect(await head('signed')).to.equal(await rw.g.ok(['rev-parse', 'HEAD'], d));

    // the contents API makes unsigned commits, so it may not write here
    const r = await api('POST', '/contents/api.txt', { content: Buffer.from('x').toString('base64'), branch: 'signed' }, carol);
    expect([r.status, r.body.message]).to.deep.equal([403, 'user cannot commit to repo [user: carol]']);
    await unprotect('signed');
  });

  it('lets a deploy key push only when the rule has no push allow-list or lists deploy keys', async () => {
    const { alice } = rw;
    const key = sshKeyFile('ed25519');
    expect((await api('POST', '/keys', { title: 'ci', key: key.pub, read_only: false }, alice)).status).to.equal(201);
    await makeBranch('deploy');
    await protect({ rule_name: 'deploy', enable_push: true, enable_push_whitelist: true, push_whitelist_usernames: ['carol'] });
    const d = await cloneWith(alice, 'deploy', ['deploy.txt']);
    await refused(d, [sshUrl(), 'deploy'], 'deploy', 'Not allowed to push to protected branch deploy', sshEnv(key));
    await api('PATCH', '/branch_protections/deploy', { enable_push: true, enable_push_whitelist: true, push_whitelist_deploy_keys: true }, alice);
    const ok = await push(d, ['-q', sshUrl(), 'deploy'], sshEnv(key));
    expect(ok.code, ok.stderr).to.equal(0);
    expect(await head('deploy')).to.equal(await rw.g.ok(['rev-parse', 'HEAD'], d));
    await unprotect('deploy');
  });

  it('lets only repository admins rename a branch a rule names, moving the rule with it; glob-protected branches keep their name', async () => {
    const { alice, carol } = rw;
    await makeBranch('feature');
    await protect({ rule_name: 'feature' });
    const denied = await api('PATCH', '/branches/feature', { name: 'feature-2' }, carol);
    expect([denied.status, denied.body.message]).to.deep.equal([403, 'User must be a repo or site admin to rename default or protected branches.']);
    expect(await head('feature')).to.not.equal(null);
    expect((await api('PATCH', '/branches/feature', { name: 'feature-2' }, alice)).status).to.equal(204);
    expect((await api('GET', '/branch_protections/feature-2', undefined, alice)).body.rule_name).to.equal('feature-2');
    expect((await api('GET', '/branch_protections/feature', undefined, alice)).status).to.equal(404);
    await unprotect('feature-2');

    await makeBranch('hot/fix');
    await protect({ rule_name: 'hot/*' });
    const glob = await api('PATCH', '/branches/hot%2Ffix', { name: 'cold' }, alice);
    expect([glob.status, glob.body.message]).to.deep.equal([403, 'Branch is protected by glob-based protection rules.']);
    expect([await head('hot/fix') !== null, await head('cold')]).to.deep.equal([true, null]);
    await unprotect('hot/*');
  });

  it('refuses a hook request naming object directories outside the repository', async () => {
    const token = (JSON.parse(fs.readFileSync(path.join(rw.w.server.dataDir, 'secrets.json'), 'utf8')) as { internalToken: string }).internalToken;
    const repoId = (await api('GET', '', undefined, rw.alice)).body.id as number;
    const body = {
      repo_id: repoId, pusher_id: rw.alice.id, deploy_key_id: 0, transport: 'http',
      updates: [{ old: rw.main, new: rw.main, ref: 'refs/heads/main' }], git_env: { GIT_OBJECT_DIRECTORY: '/etc' },
    };
    const r = await rw.w.raw('POST', '//api/internal/hook/pre-receive', body, { headers: { Authorization: `Bearer ${token}` } });
    expect([r.status, r.body.message]).to.deep.equal([400, 'GIT_OBJECT_DIRECTORY does not name an object directory of the repository']);
  });
});
