/**
 * Branches through the API (gitea-js and raw HTTP), checked against the server's bare repository
 * with the git CLI: list, get (names with '/'), create from a branch, tag or commit, delete, rename
 * (the default branch too), every validation and permission rule with proof that nothing changed,
 * and dash-prefixed names.
 */
import fs from 'node:fs';
import { expect } from 'chai';
import type { World, TestUser } from '../helpers/world';
import { GitTool, apiRepo, startRefsWorld, waitFor } from '../helpers/refs';
import { sql } from '../helpers/db';

describe('branches', () => {
  let w: World;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  let g: GitTool;
  let main: string;

  const heads = (repo: string) => g.serverRefsUnder('alice', repo, 'refs/heads/');

  before(async () => {
    ({ w, alice, bob, carol, g, main } = await startRefsWorld());
  });
  after(async () => { await w?.stop(); });

  describe('list and get', () => {
    it('lists the branches with Gitea\'s Branch object', async () => {
      const r = await alice.api.repos.repoListBranches('alice', 'proj');
      expect(r.status).to.equal(200);
      expect(r.data).to.have.length(1);
      const b = r.data[0];
      expect(b.name).to.equal('main');
      expect(b.commit!.id).to.equal(main);
      expect(b.commit!.message).to.equal('Initial commit\n');
      expect(b.commit!.url).to.equal(`${w.server.url}alice/proj/commit/${main}`);
      expect(b.commit!.author).to.deep.equal({ name: 'alice', email: 'alice@example.com', username: 'alice' });
      expect(b.commit!.committer!.username).to.equal('alice');
      expect(b.commit!.timestamp).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(Z|[+-]\d\d:\d\d)$/);
      expect(b.commit!.verification).to.deep.include({ verified: false, reason: 'gpg.error.not_signed_commit', signature: '' });
      expect(b).to.include({ protected: false, user_can_push: true, user_can_merge: true, effective_branch_protection_name: '', required_approvals: 0, enable_status_check: false });
      expect(b.status_check_contexts).to.deep.equal([]);
      const raw = await w.raw('GET', '/repos/alice/proj/branches');
      expect(raw.headers.get('x-total-count')).to.equal('1');
    });

    it('answers user_can_push false for readers and anonymous callers', async () => {
      const asBob = await w.raw('GET', '/repos/alice/proj/branches/main', undefined, { token: bob.token });
      expect(asBob.status).to.equal(200);
      expect(asBob.body).to.include({ user_can_push: false, user_can_merge: false });
      const anon = await w.raw('GET', '/repos/alice/proj/branches/main');
      expect(anon.body).to.include({ user_can_push: false });
      const asCarol = await w.raw('GET', '/repos/alice/proj/branches/main', undefined, { token: carol.token });
      expect(asCarol.body).to.include({ user_can_push: true });
    });

    it('answers 404 for a missing branch and for names git could read as options', async () => {
      for (const name of ['nope', '-h', '--output=x', 'a..b']) {
        const r = await w.raw('GET', `/repos/alice/proj/branches/${encodeURIComponent(name)}`);
        expect(r.status, name).to.equal(404);
      }
    });

    it('pages the list with X-Total-Count and Link', async () => {
      await apiRepo(w, alice, 'paged');
      for (const n of ['p1', 'p2', 'p3', 'p4']) {
        expect((await w.raw('POST', '/repos/alice/paged/branches', { new_branch_name: n }, { token: alice.token })).status).to.equal(201);
      }
      const r = await w.raw('GET', '/repos/alice/paged/branches?page=2&limit=2');
      expect(r.status).to.equal(200);
      expect(r.headers.get('x-total-count')).to.equal('5');
      expect(r.body).to.have.length(2);
      expect(r.headers.get('link')).to.include('rel="next"');
      const all = [...(await w.raw('GET', '/repos/alice/paged/branches?limit=2')).body, ...r.body, ...(await w.raw('GET', '/repos/alice/paged/branches?page=3&limit=2')).body];
      expect(all.map((b: { name: string }) => b.name).sort()).to.deep.equal(['main', 'p1', 'p2', 'p3', 'p4']);
    });

    it('an empty repository has no branches', async () => {
      await apiRepo(w, alice, 'empty', {});
      const r = await w.raw('GET', '/repos/alice/empty/branches');
      expect(r.status).to.equal(200);
      expect(r.body).to.deep.equal([]);
    });
  });

  describe('create', () => {
    it('creates from the default branch', async () => {
      const r = await alice.api.repos.repoCreateBranch('alice', 'proj', { new_branch_name: 'dev' });
      expect(r.status).to.equal(201);
      expect(r.data.name).to.equal('dev');
      expect(r.data.commit!.id).to.equal(main);
      expect(await g.serverRef('alice', 'proj', 'refs/heads/dev')).to.equal(main);
    });

    it('creates from a commit id, a tag and (deprecated) old_branch_name', async () => {
      const d = await g.clone(alice, 'alice', 'proj');
      const c2 = await g.commit(d, 'two.txt', 'two');
      await g.ok(['push', '-q', 'origin', 'HEAD:main'], d);
      const fromSha = await w.raw('POST', '/repos/alice/proj/branches', { new_branch_name: 'from-sha', old_ref_name: main }, { token: alice.token });
      expect(fromSha.status, fromSha.text).to.equal(201);
      expect(await g.serverRef('alice', 'proj', 'refs/heads/from-sha')).to.equal(main);
      expect((await w.raw('POST', '/repos/alice/proj/tags', { tag_name: 't-two', target: c2 }, { token: alice.token })).status).to.equal(201);
      const fromTag = await w.raw('POST', '/repos/alice/proj/branches', { new_branch_name: 'from-tag', old_ref_name: 't-two' }, { token: alice.token });
      expect(fromTag.status, fromTag.text).to.equal(201);
      expect(await g.serverRef('alice', 'proj', 'refs/heads/from-tag')).to.equal(c2);
      const old = await w.raw('POST', '/repos/alice/proj/branches', { new_branch_name: 'from-old', old_branch_name: 'from-sha' }, { token: alice.token });
      expect(old.status, old.text).to.equal(201);
      expect(old.body.commit.id).to.equal(main);
      main = c2;
    });

    it('creates names with "/" and gets them by raw path and by encoded path', async () => {
      const r = await w.raw('POST', '/repos/alice/proj/branches', { new_branch_name: 'feature/x' }, { token: carol.token });
      expect(r.status, r.text).to.equal(201);
      expect(await g.serverRef('alice', 'proj', 'refs/heads/feature/x')).to.equal(main);
      const raw = await w.raw('GET', '/repos/alice/proj/branches/feature/x');
      expect(raw.status).to.equal(200);
      expect(raw.body.name).to.equal('feature/x');
      const js = await bob.api.repos.repoGetBranch('alice', 'proj', 'feature/x');
      expect(js.data.name).to.equal('feature/x');
    });

    it('the branch table records the new branches with their creator', async () => {
      await waitFor('branch rows', async () => (await sql(w.server, "SELECT name FROM branch WHERE name = 'feature/x'")).length === 1);
      const rows = await sql(w.server, "SELECT name, commit_id, pusher_id, is_deleted FROM branch WHERE name = 'feature/x'");
      expect(rows[0]).to.include({ commit_id: main, pusher_id: carol.id });
      expect(Boolean(rows[0].is_deleted)).to.equal(false);
    });

    it('refuses existing names, path clashes and tag names with 409, changing nothing', async () => {
      const before = await heads('proj');
      const cases: [string, string][] = [
        ['dev', 'The branch already exists.'],
        ['feature', 'The branch with the same name already exists.'],
        ['dev/sub', 'The branch with the same name already exists.'],
        ['t-two', 'The branch with the same tag already exists.'],
      ];
      for (const [name, message] of cases) {
        const r = await w.raw('POST', '/repos/alice/proj/branches', { new_branch_name: name }, { token: alice.token });
        expect(r.status, name).to.equal(409);
        expect(r.body.message).to.equal(message);
      }
      expect(await heads('proj')).to.equal(before);
    });

    it('refuses invalid names with Gitea\'s 422, changing nothing', async () => {
      const before = await heads('proj');
      const cases: [Record<string, unknown>, string][] = [
        [{ new_branch_name: '-x' }, '[BranchName]: GitRefName'],
        [{ new_branch_name: '--output=/tmp/pwn' }, '[BranchName]: GitRefName'],
        [{ new_branch_name: 'a..b' }, '[BranchName]: GitRefName'],
        [{ new_branch_name: 'sp ace' }, '[BranchName]: GitRefName'],
        [{ new_branch_name: 'x~1' }, '[BranchName]: GitRefName'],
        [{ new_branch_name: 'x.lock' }, '[BranchName]: GitRefName'],
        [{ new_branch_name: 'nl\nx' }, '[BranchName]: GitRefName'],
        [{ new_branch_name: 'b'.repeat(101) }, '[BranchName]: MaxSize'],
        [{ new_branch_name: '' }, '[BranchName]: Required'],
        [{ new_branch_name: 'ok', old_ref_name: '-h' }, '[OldRefName]: GitRefName'],
        [{ new_branch_name: 'ok', old_branch_name: '--help' }, '[OldBranchName]: GitRefName'],
      ];
      for (const [body, message] of cases) {
        const r = await w.raw('POST', '/repos/alice/proj/branches', body, { token: alice.token });
        expect(r.status, JSON.stringify(body)).to.equal(422);
        expect(r.body.message).to.equal(message);
      }
      const mistyped = await w.raw('POST', '/repos/alice/proj/branches', { new_branch_name: 'ok', old_branch_name: 7, color: 'red' }, { token: alice.token });
      expect(mistyped.status).to.equal(422);
      expect(await heads('proj')).to.equal(before);
    });

    it('answers 404 for a start point that does not exist, changing nothing', async () => {
      const before = await heads('proj');
      for (const body of [{ new_branch_name: 'ok', old_ref_name: 'no-such-ref' }, { new_branch_name: 'ok', old_branch_name: 'no-such-branch' }, { new_branch_name: 'ok', old_ref_name: '0'.repeat(40) }]) {
        const r = await w.raw('POST', '/repos/alice/proj/branches', body, { token: alice.token });
        expect(r.status, JSON.stringify(body)).to.equal(404);
        expect(r.body.message).to.equal('The old branch does not exist');
      }
      expect(await heads('proj')).to.equal(before);
    });

    it('answers 404 "Git Repository is empty." in an empty repository', async () => {
      const r = await w.raw('POST', '/repos/alice/empty/branches', { new_branch_name: 'x' }, { token: alice.token });
      expect(r.status).to.equal(404);
      expect(r.body.message).to.equal('Git Repository is empty.');
    });

    it('needs write access: 401 anonymous, 403 readers, 404 strangers to a private repository', async () => {
      const before = await heads('proj');
      const anon = await w.raw('POST', '/repos/alice/proj/branches', { new_branch_name: 'anon' });
      expect(anon.status).to.equal(401);
      expect(anon.body.message).to.equal('token is required');
      const reader = await w.raw('POST', '/repos/alice/proj/branches', { new_branch_name: 'reader' }, { token: bob.token });
      expect(reader.status).to.equal(403);
      expect(reader.body.message).to.equal('user should have a permission to write to a repo');
      expect(await heads('proj')).to.equal(before);
      await apiRepo(w, alice, 'secret', { auto_init: true, private: true });
      for (const u of [bob]) {
        const r = await w.raw('POST', '/repos/alice/secret/branches', { new_branch_name: 'x' }, { token: u.token });
        expect(r.status).to.equal(404);
        expect((await w.raw('GET', '/repos/alice/secret/branches', undefined, { token: u.token })).status).to.equal(404);
        expect((await w.raw('GET', '/repos/alice/secret/branches/main', undefined, { token: u.token })).status).to.equal(404);
      }
      expect(await g.serverRef('alice', 'secret', 'refs/heads/x')).to.equal(null);
    });

    it('answers 423 in an archived repository', async () => {
      await apiRepo(w, alice, 'old');
      expect((await w.raw('PATCH', '/repos/alice/old', { archived: true }, { token: alice.token })).status).to.equal(200);
      const r = await w.raw('POST', '/repos/alice/old/branches', { new_branch_name: 'x' }, { token: alice.token });
      expect(r.status).to.equal(423);
      expect(await g.serverRef('alice', 'old', 'refs/heads/x')).to.equal(null);
      expect((await w.raw('DELETE', '/repos/alice/old/branches/main', undefined, { token: alice.token })).status).to.equal(423);
    });
  });

  describe('delete', () => {
    it('deletes a branch: gone from git, the list and the table', async () => {
      expect((await w.raw('POST', '/repos/alice/proj/branches', { new_branch_name: 'doomed' }, { token: alice.token })).status).to.equal(201);
      const r = await alice.api.repos.repoDeleteBranch('alice', 'proj', 'doomed');
      expect(r.status).to.equal(204);
      expect(await g.serverRef('alice', 'proj', 'refs/heads/doomed')).to.equal(null);
      expect((await w.raw('GET', '/repos/alice/proj/branches/doomed')).status).to.equal(404);
      const names = (await w.raw('GET', '/repos/alice/proj/branches?limit=50')).body.map((b: { name: string }) => b.name);
      expect(names).to.not.include('doomed');
      const row = (await sql(w.server, "SELECT is_deleted, deleted_by_id FROM branch WHERE name = 'doomed'"))[0];
      expect(Boolean(row.is_deleted)).to.equal(true);
      expect(row.deleted_by_id).to.equal(alice.id);
    });

    it('deletes a branch with "/" by its raw path', async () => {
      expect((await w.raw('POST', '/repos/alice/proj/branches', { new_branch_name: 'fix/one' }, { token: alice.token })).status).to.equal(201);
      expect((await w.raw('DELETE', '/repos/alice/proj/branches/fix/one', undefined, { token: alice.token })).status).to.equal(204);
      expect(await g.serverRef('alice', 'proj', 'refs/heads/fix/one')).to.equal(null);
    });

    it('refuses the default branch with 403 "can not delete default branch"', async () => {
      const r = await w.raw('DELETE', '/repos/alice/proj/branches/main', undefined, { token: alice.token });
      expect(r.status).to.equal(403);
      expect(r.body.message).to.equal('can not delete default branch');
      expect(await g.serverRef('alice', 'proj', 'refs/heads/main')).to.equal(main);
    });

    it('answers 404 for missing and dash-prefixed names, 403 for readers, changing nothing', async () => {
      const before = await heads('proj');
      for (const name of ['nope', '-d', '--force']) {
        const r = await w.raw('DELETE', `/repos/alice/proj/branches/${encodeURIComponent(name)}`, undefined, { token: alice.token });
        expect(r.status, name).to.equal(404);
      }
      const reader = await w.raw('DELETE', '/repos/alice/proj/branches/dev', undefined, { token: bob.token });
      expect(reader.status).to.equal(403);
      expect(await heads('proj')).to.equal(before);
    });
  });

  describe('rename', () => {
    it('renames a branch in one ref transaction (204)', async () => {
      expect((await w.raw('POST', '/repos/alice/proj/branches', { new_branch_name: 'old-name' }, { token: alice.token })).status).to.equal(201);
      const r = await alice.api.repos.repoUpdateBranch('alice', 'proj', 'old-name', { name: 'new/name' });
      expect(r.status).to.equal(204);
      expect(await g.serverRef('alice', 'proj', 'refs/heads/old-name')).to.equal(null);
      expect(await g.serverRef('alice', 'proj', 'refs/heads/new/name')).to.equal(main);
      expect((await w.raw('GET', '/repos/alice/proj/branches/new/name')).status).to.equal(200);
    });

    it('refuses an existing target or the same name with 422, a missing branch with 404, changing nothing', async () => {
      const before = await heads('proj');
      for (const [from, to] of [['dev', 'main'], ['dev', 'dev']]) {
        const r = await w.raw('PATCH', `/repos/alice/proj/branches/${from}`, { name: to }, { token: alice.token });
        expect(r.status).to.equal(422);
        expect(r.body.message).to.equal('Cannot rename a branch using the same name or rename to a branch that already exists.');
      }
      const missing = await w.raw('PATCH', '/repos/alice/proj/branches/nope', { name: 'x' }, { token: alice.token });
      expect(missing.status).to.equal(404);
      expect(missing.body.message).to.equal("Branch doesn't exist.");
      for (const bad of ['-x', 'a b', '']) {
        const r = await w.raw('PATCH', '/repos/alice/proj/branches/dev', { name: bad }, { token: alice.token });
        expect(r.status, bad).to.equal(422);
      }
      const reader = await w.raw('PATCH', '/repos/alice/proj/branches/dev', { name: 'x' }, { token: bob.token });
      expect(reader.status).to.equal(403);
      expect(await heads('proj')).to.equal(before);
    });

    it('renaming the default branch needs a repository admin and moves the default with it', async () => {
      await apiRepo(w, alice, 'moving');
      const c = await w.raw('PUT', '/repos/alice/moving/collaborators/carol', { permission: 'write' }, { token: alice.token });
      expect(c.status).to.equal(204);
      const byWriter = await w.raw('PATCH', '/repos/alice/moving/branches/main', { name: 'trunk' }, { token: carol.token });
      expect(byWriter.status).to.equal(403);
      expect(byWriter.body.message).to.equal('User must be a repo or site admin to rename default or protected branches.');
      const id = await g.serverRef('alice', 'moving', 'refs/heads/main');
      expect((await w.raw('PATCH', '/repos/alice/moving/branches/main', { name: 'trunk' }, { token: alice.token })).status).to.equal(204);
      expect(await g.serverRef('alice', 'moving', 'refs/heads/main')).to.equal(null);
      expect(await g.serverRef('alice', 'moving', 'refs/heads/trunk')).to.equal(id);
      expect(await g.bare('alice', 'moving', ['symbolic-ref', 'HEAD'])).to.equal('refs/heads/trunk');
      expect((await w.raw('GET', '/repos/alice/moving', undefined, { token: alice.token })).body.default_branch).to.equal('trunk');
      const clone = await g.clone(alice, 'alice', 'moving');
      expect(await g.ok(['rev-parse', '--abbrev-ref', 'HEAD'], clone)).to.equal('trunk');
      const del = await w.raw('DELETE', '/repos/alice/moving/branches/trunk', undefined, { token: alice.token });
      expect(del.status).to.equal(403);
    });
  });

  describe('pushed names starting with a dash', () => {
    it('a pushed refs/heads/--output=... branch is listed but never reaches git as an option', async () => {
      const d = await g.clone(alice, 'alice', 'proj');
      await g.ok(['push', '-q', 'origin', 'HEAD:refs/heads/--output=/tmp/forge-pwn-branch'], d);
      {
        await waitFor('the pushed branch row', async () => (await sql(w.server, "SELECT name FROM branch WHERE name = '--output=/tmp/forge-pwn-branch'")).length === 1);
        const list = await w.raw('GET', '/repos/alice/proj/branches?limit=50');
        expect(list.status).to.equal(200);
        expect(list.body.map((b: { name: string }) => b.name)).to.include('--output=/tmp/forge-pwn-branch');
        const del = await w.raw('DELETE', `/repos/alice/proj/branches/${encodeURIComponent('--output=/tmp/forge-pwn-branch')}`, undefined, { token: alice.token });
        expect(del.status).to.equal(404);
      }
      const created = await w.raw('POST', '/repos/alice/proj/branches', { new_branch_name: 'safe', old_ref_name: '--output=/tmp/forge-pwn-branch' }, { token: alice.token });
      expect(created.status).to.equal(422);
      expect(fs.existsSync('/tmp/forge-pwn-branch')).to.equal(false);
    });
  });
});
