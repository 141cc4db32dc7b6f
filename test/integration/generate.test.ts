/**
 * Generating repositories from templates (POST /repos/{template_owner}/{template_repo}/generate):
 * the new repository cloned with the git CLI over HTTP shows one fresh commit with the template's
 * tree, `.gitea/template` gone, matched files expanded (content and names), modes and symlinks
 * kept; topics copied; every refusal with its body and proof that nothing was created.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startWorld, type World, type TestUser, type RawResponse } from '../helpers/world';
import { count, sql } from '../helpers/db';
import { git, gitHome, serverRepoDir, type GitResult } from '../helpers/repo-fixture';

function expectError(res: RawResponse, status: number, message?: string | RegExp): void {
  expect(res.status, res.text).to.equal(status);
  if (message instanceof RegExp) expect(res.body.message).to.match(message);
  else if (message !== undefined) expect(res.body.message).to.equal(message);
}

const TEMPLATE_GLOBS = '# files to expand\n**.go\ntext/*.txt\n*.md\n';

describe('generate from a template', () => {
  let w: World;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  let dave: TestUser;
  let home: string;
  let tmp: string;
  let n = 0;
  let templateId: number;
  const g = (args: string[], cwd?: string) => git(args, { cwd, home });
  const ok = (r: GitResult) => { expect(r.code, r.stderr).to.equal(0); return r; };
  const host = () => new URL(w.server.url).host;
  const url = (u: TestUser, full: string) => `http://${u.name}:${u.token}@${host()}/${full}.git`;
  const dir = () => path.join(tmp, `c${++n}`);
  const rows = (owner: string, name: string) => count(w.server, 'SELECT COUNT(*) AS n FROM repository WHERE owner_name = $1 AND lower_name = $2', [owner, name.toLowerCase()]);
  const numRepos = async (name: string) => Number((await sql(w.server, 'SELECT num_repos FROM users WHERE lower_name = $1', [name]))[0].num_repos);
  const generate = (u: TestUser, full: string, body: Record<string, unknown>) => w.raw('POST', `/repos/${full}/generate`, body, { token: u.token });
  const write = (root: string, file: string, content: string) => {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), content);
  };

  before(async () => {
    w = await startWorld();
    [alice, bob, carol, dave] = [await w.user('alice'), await w.user('bob'), await w.user('carol'), await w.user('dave')];
    home = gitHome();
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'forge-generate-'));
    const created = await alice.api.user.createCurrentUserRepo({ name: 'tpl', description: 'A template', auto_init: true });
    templateId = created.data.id!;
    const c = dir();
    ok(await g(['clone', '-q', url(alice, 'alice/tpl'), c]));
    write(c, '.gitea/template', TEMPLATE_GLOBS);
    write(c, 'main.go', 'package $REPO_NAME_SNAKE // ${REPO_OWNER}/$REPO_NAME from $TEMPLATE_OWNER/$TEMPLATE_NAME\n');
    write(c, 'text/info.txt', '$REPO_DESCRIPTION|$TEMPLATE_DESCRIPTION|$REPO_LINK|$REPO_HTTPS_URL|$REPO_SSH_URL|$$|$UNKNOWN\n');
    write(c, 'text/sub/deep.txt', 'not matched: $REPO_NAME\n');
    write(c, 'other.txt', 'not matched: $REPO_NAME\n');
    write(c, 'cmd/$REPO_NAME_KEBAB.go', 'package main // $REPO_NAME_PASCAL $REPO_NAME_CAMEL $REPO_NAME_UPPER\n');
    write(c, 'run.sh', '#!/bin/sh\necho $REPO_NAME\n');
    fs.chmodSync(path.join(c, 'run.sh'), 0o755);
    fs.symlinkSync('main.go', path.join(c, 'link'));
    ok(await g(['add', '-A'], c));
    ok(await g(['commit', '-q', '-m', 'template files'], c));
    ok(await g(['push', '-q', 'origin', 'main'], c));
    expect((await alice.api.repos.repoEdit('alice', 'tpl', { template: true })).status).to.equal(200);
    expect((await alice.api.repos.repoUpdateTopics('alice', 'tpl', { topics: ['go', 'demo'] })).status).to.equal(204);
    expect((await bob.api.orgs.orgCreate({ username: 'acme' })).status).to.equal(201);
    const makers = await bob.api.orgs.orgCreateTeam('acme', { name: 'makers', permission: 'read', can_create_org_repo: true, units: ['repo.code'] } as Parameters<typeof bob.api.orgs.orgCreateTeam>[1]);
    await bob.api.teams.orgAddTeamMember(makers.data.id!, 'dave');
  });
  after(async () => { await w?.stop(); });

  it('generates one fresh commit with the expanded template (201), topics copied, checked over git', async () => {
    const res = await bob.api.repos.generateRepo('alice', 'tpl', { owner: 'bob', name: 'My_New-Repo', description: 'generated thing', git_content: true, topics: true, private: true });
    expect(res.status).to.equal(201);
    expect(res.data).to.include({ full_name: 'bob/My_New-Repo', private: true, template: false, fork: false, empty: false, default_branch: 'main', description: 'generated thing' });
    expect(res.data.permissions).to.deep.equal({ admin: true, push: true, pull: true });
    expect((await bob.api.repos.repoListTopics('bob', 'My_New-Repo')).data.topics).to.deep.equal(['demo', 'go']);
    expect(Number((await sql(w.server, "SELECT template_id FROM repository WHERE owner_name = 'bob' AND lower_name = 'my_new-repo'"))[0].template_id)).to.equal(templateId);

    const c = dir();
    ok(await g(['clone', '-q', url(bob, 'bob/My_New-Repo'), c]));
    expect(ok(await g(['log', '--format=%s|%an|%ae|%P', 'HEAD'], c)).stdout.trim()).to.equal('Initial commit|bob|bob@example.com|');
    expect(ok(await g(['ls-files', '-s'], c)).stdout.trim().split('\n').map((l) => `${l.split(' ')[0]} ${l.split('\t')[1]}`)).to.deep.equal([
      '100644 README.md', '100644 cmd/my-new-repo.go', '120000 link', '100644 main.go', '100644 other.txt', '100755 run.sh',
      '100644 text/info.txt', '100644 text/sub/deep.txt',
    ]);
    expect(fs.existsSync(path.join(c, '.gitea'))).to.equal(false);
    const read = (f: string) => fs.readFileSync(path.join(c, f), 'utf8');
    expect(read('main.go')).to.equal('package my_new_repo // bob/My_New-Repo from alice/tpl\n');
    const sshPort = w.server.env.FORGE__SERVER__SSH_PORT;
    expect(read('text/info.txt')).to.equal(`generated thing|A template|/bob/My_New-Repo|${w.server.url}bob/My_New-Repo.git|ssh://git@127.0.0.1:${sshPort}/bob/My_New-Repo.git|$|UNKNOWN\n`);
    expect(read('cmd/my-new-repo.go')).to.equal('package main // MyNewRepo myNewRepo MY_NEW-REPO\n');
    expect(read('README.md')).to.equal('# tpl\n\nA template\n');
    expect(read('text/sub/deep.txt')).to.equal('not matched: $REPO_NAME\n');
    expect(read('other.txt')).to.equal('not matched: $REPO_NAME\n');
    expect(read('run.sh')).to.equal('#!/bin/sh\necho $REPO_NAME\n');
    expect(fs.readlinkSync(path.join(c, 'link'))).to.equal('main.go');
    const d = serverRepoDir(w.server, 'bob', 'My_New-Repo');
    ok(await g(['--git-dir', d, 'fsck', '--strict']));
    expect(fs.readdirSync(path.join(d, 'hooks')).sort()).to.deep.equal(['post-receive', 'pre-receive', 'proc-receive']);
    // only the template's current tree was copied: none of its history
    const tplCommits = ok(await g(['--git-dir', serverRepoDir(w.server, 'alice', 'tpl'), 'rev-list', 'main'])).stdout.trim().split('\n');
    for (const id of tplCommits) expect((await g(['--git-dir', d, 'cat-file', '-e', id])).code).to.not.equal(0);
  });

  it('takes a default branch; without git content the repository is empty but gets the topics', async () => {
    const res = await bob.api.repos.generateRepo('alice', 'tpl', { owner: 'bob', name: 'trunked', git_content: true, default_branch: 'trunk' });
    expect(res.status).to.equal(201);
    expect(res.data.default_branch).to.equal('trunk');
    expect(ok(await g(['--git-dir', serverRepoDir(w.server, 'bob', 'trunked'), 'symbolic-ref', 'HEAD'])).stdout.trim()).to.equal('refs/heads/trunk');
    expect(ok(await g(['ls-remote', url(bob, 'bob/trunked')])).stdout).to.contain('refs/heads/trunk');
    const bare = await bob.api.repos.generateRepo('alice', 'tpl', { owner: 'bob', name: 'topics-only', topics: true });
    expect(bare.status).to.equal(201);
    expect(bare.data).to.include({ empty: true, private: false });
    expect((await bob.api.repos.repoListTopics('bob', 'topics-only')).data.topics).to.deep.equal(['demo', 'go']);
    expect(Number((await sql(w.server, "SELECT repo_count FROM topic WHERE name = 'go'"))[0].repo_count)).to.equal(3);
  });

  it('generates into an organization for members who may create there; admins for anyone', async () => {
    const res = await dave.api.repos.generateRepo('alice', 'tpl', { owner: 'acme', name: 'from-tpl', git_content: true });
    expect(res.status).to.equal(201);
    expect((await dave.api.repos.repoGet('acme', 'from-tpl')).status).to.equal(200);
    const adm = await w.admin.api.repos.generateRepo('alice', 'tpl', { owner: 'carol', name: 'gift', git_content: true });
    expect(adm.status).to.equal(201);
    expect(adm.data.owner?.login).to.equal('carol');
    const c = dir();
    ok(await g(['clone', '-q', url(carol, 'carol/gift'), c]));
    expect(fs.readFileSync(path.join(c, 'main.go'), 'utf8')).to.equal('package gift // carol/gift from alice/tpl\n');
    expect(ok(await g(['log', '--format=%an', 'HEAD'], c)).stdout.trim()).to.equal('carol');
  });

  it('refuses with Gitea’s answers and creates nothing', async () => {
    const before = await numRepos('bob');
    expect((await alice.api.user.createCurrentUserRepo({ name: 'plain', auto_init: true })).status).to.equal(201);
    expectError(await generate(bob, 'alice/plain', { owner: 'bob', name: 'x1', git_content: true }), 422, 'this is not a template repo');
    expectError(await generate(bob, 'alice/tpl', { owner: 'bob', name: 'x2' }), 422, 'must select at least one template item');
    expectError(await generate(bob, 'alice/tpl', { owner: 'carol', name: 'x3', git_content: true }), 403, 'Only admin can generate repository for other user.');
    expectError(await generate(carol, 'alice/tpl', { owner: 'acme', name: 'x4', git_content: true }), 403, 'Given user is not allowed to create repository in organization.');
    expectError(await generate(bob, 'alice/tpl', { owner: 'nobody', name: 'x5', git_content: true }), 404, 'request owner `nobody` does not exist');
    expectError(await generate(bob, 'alice/tpl', { owner: 'bob', name: 'My_New-Repo', git_content: true }), 409, 'The repository with the same name already exists.');
    expectError(await generate(bob, 'alice/tpl', { owner: 'bob', name: 'bad name', git_content: true }), 422);
    expectError(await generate(bob, 'alice/tpl', { owner: 'bob', name: 'x6.git', git_content: true }), 422, 'name pattern is not allowed [pattern: *.git]');
    expectError(await generate(bob, 'alice/tpl', { owner: 'bob', name: 'x7', git_content: true, default_branch: 'a..b' }), 422, /default branch/);
    expectError(await generate(bob, 'alice/tpl', { name: 'x8', git_content: true }), 422);
    expectError(await generate(bob, 'alice/nope', { owner: 'bob', name: 'x9', git_content: true }), 404);
    expectError(await w.raw('POST', '/repos/alice/tpl/generate', { owner: 'bob', name: 'x10', git_content: true }), 401);
    const leftover = serverRepoDir(w.server, 'bob', 'leftover');
    fs.mkdirSync(leftover, { recursive: true });
    fs.writeFileSync(path.join(leftover, 'junk'), 'x');
    expectError(await generate(bob, 'alice/tpl', { owner: 'bob', name: 'leftover', git_content: true }), 409, 'repository files already exist [uname: bob, name: leftover]');
    expect(fs.readFileSync(path.join(leftover, 'junk'), 'utf8')).to.equal('x');
    for (const name of ['x1', 'x2', 'x3', 'x4', 'x5', 'x7', 'x8', 'x9', 'x10', 'leftover']) {
      expect(await rows('bob', name), name).to.equal(0);
      expect(await rows('acme', name), name).to.equal(0);
      expect(await rows('carol', name), name).to.equal(0);
    }
    expect(await numRepos('bob')).to.equal(before);
  });

  it('a private template is 404 for who cannot read it, 403 without code access', async () => {
    expect((await alice.api.user.createCurrentUserRepo({ name: 'ptpl', private: true, template: true, auto_init: true })).status).to.equal(201);
    expectError(await generate(bob, 'alice/ptpl', { owner: 'bob', name: 'p1', git_content: true }), 404);
    await alice.api.repos.repoAddCollaborator('alice', 'ptpl', 'bob', { permission: 'read' });
    expect((await generate(bob, 'alice/ptpl', { owner: 'bob', name: 'p1', git_content: true })).status).to.equal(201);
    expect((await w.raw('PATCH', '/repos/alice/tpl', { has_code: false }, { token: alice.token })).status).to.equal(200);
    expectError(await generate(carol, 'alice/tpl', { owner: 'carol', name: 'p2', git_content: true }), 403, 'user should have specific read permission or be a repo admin or a site admin');
    expect(await rows('carol', 'p2')).to.equal(0);
    expect((await w.raw('PATCH', '/repos/alice/tpl', { has_code: true }, { token: alice.token })).status).to.equal(200);
  });

  it('the generated repository serves the template’s LFS objects (checked with git-lfs)', async () => {
    expect((await alice.api.user.createCurrentUserRepo({ name: 'ltpl', template: true })).status).to.equal(201);
    const a = dir();
    const content = Buffer.alloc(2500, 9);
    ok(await g(['init', '-q', a]));
    ok(await g(['lfs', 'install', '--local'], a));
    ok(await g(['lfs', 'track', '*.bin'], a));
    fs.writeFileSync(path.join(a, 'asset.bin'), content);
    ok(await g(['add', '.gitattributes', 'asset.bin'], a));
    ok(await g(['commit', '-q', '-m', 'lfs'], a));
    ok(await g(['push', '-q', url(alice, 'alice/ltpl'), 'main'], a));
    const res = await bob.api.repos.generateRepo('alice', 'ltpl', { owner: 'bob', name: 'with-lfs', git_content: true });
    expect(res.status).to.equal(201);
    expect(await count(w.server, 'SELECT COUNT(*) AS n FROM lfs_meta_object WHERE repository_id = $1', [res.data.id])).to.equal(1);
    const b = dir();
    ok(await g(['clone', '-q', '--no-checkout', url(bob, 'bob/with-lfs'), b]));
    ok(await g(['lfs', 'install', '--local'], b));
    ok(await g(['checkout', '-q', 'main'], b));
    expect(fs.readFileSync(path.join(b, 'asset.bin')).equals(content)).to.equal(true);
  });

  it('an empty template with git_content gives an empty repository', async () => {
    expect((await alice.api.user.createCurrentUserRepo({ name: 'etpl', template: true })).status).to.equal(201);
    const res = await bob.api.repos.generateRepo('alice', 'etpl', { owner: 'bob', name: 'from-empty', git_content: true });
    expect(res.status).to.equal(201);
    expect(res.data.empty).to.equal(true);
    expect(ok(await g(['ls-remote', url(bob, 'bob/from-empty')])).stdout.trim()).to.equal('');
  });

  it('the repository limit refuses with 403 and Gitea’s message', async () => {
    const limit = await numRepos('bob');
    const set = await w.raw('PATCH', '/admin/users/bob', { login_name: 'bob', source_id: 0, max_repo_creation: limit }, { token: w.admin.token });
    expect(set.status, set.text).to.equal(200);
    expectError(await generate(bob, 'alice/tpl', { owner: 'bob', name: 'one-too-many', git_content: true }), 403, `user has reached maximum limit of repositories [limit: ${limit}]`);
    expect(await rows('bob', 'one-too-many')).to.equal(0);
    expect(fs.existsSync(serverRepoDir(w.server, 'bob', 'one-too-many'))).to.equal(false);
    expect((await w.admin.api.repos.generateRepo('alice', 'tpl', { owner: 'bob', name: 'by-admin', git_content: true })).status).to.equal(201);
  });
});
