/**
 * Tags and tag protection through the API (gitea-js and raw HTTP) and through `git push`, checked
 * against the server's bare repository: lightweight and annotated tags (the caller as tagger),
 * list, get, delete, names with '/' or a leading '-', the release guard, and protection rules
 * (globs, regular expressions, users and teams) for API writes and pushes alike.
 */
import { expect } from 'chai';
import type { World, TestUser } from '../helpers/world';
import { GitTool, apiRepo, startRefsWorld, waitFor } from '../helpers/refs';
import { sql } from '../helpers/db';

describe('tags and tag protection', () => {
  let w: World;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  let g: GitTool;
  let main: string;

  const tags = (owner: string, repo: string) => g.serverRefsUnder(owner, repo, 'refs/tags/');

  before(async () => {
    ({ w, alice, bob, carol, g, main } = await startRefsWorld());
  });
  after(async () => { await w?.stop(); });

  describe('create, list, get', () => {
    it('creates a lightweight tag at the default branch', async () => {
      const r = await alice.api.repos.repoCreateTag('alice', 'proj', { tag_name: 'v1.0' });
      expect(r.status).to.equal(201);
      expect(r.data).to.deep.include({ name: 'v1.0', id: main, message: 'Initial commit' });
      expect(r.data.commit).to.deep.include({ sha: main, url: `${w.server.url}api/v1/repos/alice/proj/git/commits/${main}` });
      expect(r.data.zipball_url).to.equal(`${w.server.url}alice/proj/archive/v1.0.zip`);
      expect(r.data.tarball_url).to.equal(`${w.server.url}alice/proj/archive/v1.0.tar.gz`);
      expect(await g.serverRef('alice', 'proj', 'refs/tags/v1.0')).to.equal(main);
      expect(await g.bare('alice', 'proj', ['cat-file', '-t', 'refs/tags/v1.0'])).to.equal('commit');
    });

    it('creates an annotated tag with the caller as tagger when a message is given', async () => {
      const r = await w.raw('POST', '/repos/alice/proj/tags', { tag_name: 'v1.1', message: 'Release 1.1\n\nwith notes', target: 'main' }, { token: carol.token });
      expect(r.status, r.text).to.equal(201);
      const tagObject = await g.serverRef('alice', 'proj', 'refs/tags/v1.1');
      expect(r.body.id).to.equal(tagObject);
      expect(tagObject).to.not.equal(main);
      expect(r.body.commit.sha).to.equal(main);
      expect(r.body.message).to.equal('Release 1.1\n\nwith notes');
      expect(await g.bare('alice', 'proj', ['cat-file', '-t', 'refs/tags/v1.1'])).to.equal('tag');
      const raw = await g.bare('alice', 'proj', ['cat-file', '-p', 'refs/tags/v1.1']);
      expect(raw).to.match(/^tagger carol <carol@example\.com> \d+ \+0000$/m);
      expect(raw).to.include(`object ${main}`);
      expect(await g.bare('alice', 'proj', ['fsck', '--no-dangling'])).to.equal('');
    });

    it('tags a commit id and names with "/"', async () => {
      const r = await w.raw('POST', '/repos/alice/proj/tags', { tag_name: 'rel/2.0', target: main }, { token: alice.token });
      expect(r.status, r.text).to.equal(201);
      expect(await g.serverRef('alice', 'proj', 'refs/tags/rel/2.0')).to.equal(main);
      const get = await w.raw('GET', '/repos/alice/proj/tags/rel/2.0');
      expect(get.status).to.equal(200);
      expect(get.body.name).to.equal('rel/2.0');
      expect((await bob.api.repos.repoGetTag('alice', 'proj', 'rel/2.0')).data.name).to.equal('rel/2.0');
    });

    it('records a tag-only row for each created tag', async () => {
      const rows = await sql(w.server, "SELECT tag_name, sha1, is_tag, publisher_id FROM release WHERE tag_name IN ('v1.0', 'v1.1') ORDER BY tag_name");
      expect(rows.map((r) => [r.tag_name, r.sha1, Boolean(r.is_tag)])).to.deep.equal([['v1.0', main, true], ['v1.1', main, true]]);
      expect(rows[1].publisher_id).to.equal(carol.id);
    });

    it('lists tags with X-Total-Count and pages', async () => {
      const r = await alice.api.repos.repoListTags('alice', 'proj');
      expect(r.data.map((t) => t.name).sort()).to.deep.equal(['rel/2.0', 'v1.0', 'v1.1']);
      const page = await w.raw('GET', '/repos/alice/proj/tags?page=2&limit=2');
      expect(page.headers.get('x-total-count')).to.equal('3');
      expect(page.body).to.have.length(1);
      const first = (await w.raw('GET', '/repos/alice/proj/tags?limit=2')).body.map((t: { name: string }) => t.name);
      expect([...first, page.body[0].name].sort()).to.deep.equal(['rel/2.0', 'v1.0', 'v1.1']);
    });

    it('answers 404 "tag doesn\'t exist" for missing and dash-prefixed names', async () => {
      for (const name of ['nope', '-h', '--list']) {
        const r = await w.raw('GET', `/repos/alice/proj/tags/${encodeURIComponent(name)}`);
        expect(r.status, name).to.equal(404);
        expect(r.body.message).to.equal(`tag doesn't exist: ${name}`);
      }
    });

    it('an empty repository has no tags, and tagging in it is a 404', async () => {
      await apiRepo(w, alice, 'empty', {});
      expect((await w.raw('GET', '/repos/alice/empty/tags')).body).to.deep.equal([]);
      const r = await w.raw('POST', '/repos/alice/empty/tags', { tag_name: 'v1' }, { token: alice.token });
      expect(r.status).to.equal(404);
      expect(r.body.message).to.match(/^target not found: /);
    });

    it('refuses existing tags (409), bad names (422) and unknown targets (404), changing nothing', async () => {
      const before = await tags('alice', 'proj');
      const dup = await w.raw('POST', '/repos/alice/proj/tags', { tag_name: 'v1.0' }, { token: alice.token });
      expect(dup.status).to.equal(409);
      expect(dup.body.message).to.equal('tag already exists [name: v1.0]');
      for (const [name, message] of [['-v', '[TagName]: GitRefName'], ['--output=/tmp/x', '[TagName]: GitRefName'], ['a b', '[TagName]: GitRefName'], ['x^', '[TagName]: GitRefName'], ['t'.repeat(51), '[TagName]: MaxSize'], ['', '[TagName]: Required']]) {
        const r = await w.raw('POST', '/repos/alice/proj/tags', { tag_name: name }, { token: alice.token });
        expect(r.status, name).to.equal(422);
        expect(r.body.message).to.equal(message);
      }
      for (const target of ['no-such-branch', '-h', '0'.repeat(40)]) {
        const r = await w.raw('POST', '/repos/alice/proj/tags', { tag_name: 'new', target }, { token: alice.token });
        expect(r.status, target).to.equal(404);
        expect(r.body.message).to.match(/^target not found: /);
      }
      expect(await tags('alice', 'proj')).to.equal(before);
    });

    it('needs write access: 401 anonymous, 403 readers', async () => {
      const before = await tags('alice', 'proj');
      expect((await w.raw('POST', '/repos/alice/proj/tags', { tag_name: 'anon' })).status).to.equal(401);
      const r = await w.raw('POST', '/repos/alice/proj/tags', { tag_name: 'reader' }, { token: bob.token });
      expect(r.status).to.equal(403);
      expect(r.body.message).to.equal('user should have a permission to write to a repo');
      expect((await w.raw('DELETE', '/repos/alice/proj/tags/v1.0', undefined, { token: bob.token })).status).to.equal(403);
      expect(await tags('alice', 'proj')).to.equal(before);
    });
  });

  describe('delete', () => {
    it('deletes a tag from git and drops its tag-only row', async () => {
      expect((await w.raw('POST', '/repos/alice/proj/tags', { tag_name: 'gone' }, { token: alice.token })).status).to.equal(201);
      const r = await alice.api.repos.repoDeleteTag('alice', 'proj', 'gone');
      expect(r.status).to.equal(204);
      expect(await g.serverRef('alice', 'proj', 'refs/tags/gone')).to.equal(null);
      expect(await sql(w.server, "SELECT id FROM release WHERE tag_name = 'gone'")).to.have.length(0);
      expect((await w.raw('GET', '/repos/alice/proj/tags/gone')).status).to.equal(404);
    });

    it('deletes a tag with "/" and a freshly pushed tag', async () => {
      expect((await w.raw('DELETE', '/repos/alice/proj/tags/rel/2.0', undefined, { token: alice.token })).status).to.equal(204);
      expect(await g.serverRef('alice', 'proj', 'refs/tags/rel/2.0')).to.equal(null);
      const d = await g.clone(alice, 'alice', 'proj');
      await g.ok(['tag', 'pushed'], d);
      await g.ok(['push', '-q', 'origin', 'pushed'], d);
      expect((await w.raw('DELETE', '/repos/alice/proj/tags/pushed', undefined, { token: alice.token })).status).to.equal(204);
      expect(await g.serverRef('alice', 'proj', 'refs/tags/pushed')).to.equal(null);
    });

    it('refuses a tag that carries a release with 409, and missing tags with 404', async () => {
      const rel = await w.raw('POST', '/repos/alice/proj/releases', { tag_name: 'v1.1', name: 'One one' }, { token: alice.token });
      expect(rel.status, rel.text).to.equal(201);
      const before = await tags('alice', 'proj');
      const r = await w.raw('DELETE', '/repos/alice/proj/tags/v1.1', undefined, { token: alice.token });
      expect(r.status).to.equal(409);
      expect(r.body.message).to.equal('a tag attached to a release cannot be deleted directly');
      for (const name of ['nope', '-d', '--delete']) {
        expect((await w.raw('DELETE', `/repos/alice/proj/tags/${encodeURIComponent(name)}`, undefined, { token: alice.token })).status, name).to.equal(404);
      }
      expect(await tags('alice', 'proj')).to.equal(before);
    });
  });

  describe('tag protection rules', () => {
    let ruleId: number;

    it('creates, lists, gets, edits and deletes rules (repository admins)', async () => {
      const r = await alice.api.repos.repoCreateTagProtection('alice', 'proj', { name_pattern: 'tmp-*', whitelist_usernames: ['alice'] });
      expect(r.status).to.equal(201);
      expect(r.data).to.deep.include({ name_pattern: 'tmp-*', whitelist_usernames: ['alice'], whitelist_teams: [] });
      expect(r.data.created_at).to.be.a('string');
      ruleId = r.data.id!;
      expect((await alice.api.repos.repoListTagProtection('alice', 'proj')).data.map((p) => p.id)).to.deep.equal([ruleId]);
      expect((await alice.api.repos.repoGetTagProtection('alice', 'proj', ruleId)).data.name_pattern).to.equal('tmp-*');
      const e = await alice.api.repos.repoEditTagProtection('alice', 'proj', ruleId, { whitelist_usernames: ['alice', 'carol'] });
      expect(e.status).to.equal(200);
      expect(e.data).to.deep.include({ name_pattern: 'tmp-*', whitelist_usernames: ['alice', 'carol'] });
      expect((await alice.api.repos.repoDeleteTagProtection('alice', 'proj', ruleId)).status).to.equal(204);
      expect((await w.raw('GET', `/repos/alice/proj/tag_protections/${ruleId}`, undefined, { token: alice.token })).status).to.equal(404);
    });

    it('validates rules with Gitea\'s answers, changing nothing', async () => {
      const cases: [Record<string, unknown>, number, string | RegExp][] = [
        [{ name_pattern: '  ', whitelist_usernames: ['alice'] }, 400, 'name_pattern are empty'],
        [{ name_pattern: 'v*' }, 400, 'both whitelist_usernames and whitelist_teams are empty'],
        [{ name_pattern: 'v*', whitelist_usernames: ['nobody'] }, 422, 'user does not exist [uid: 0, name: nobody]'],
        [{ name_pattern: '[v', whitelist_usernames: ['alice'] }, 422, /^invalid name_pattern/],
        [{ name_pattern: '/(/', whitelist_usernames: ['alice'] }, 422, /^invalid name_pattern/],
      ];
      for (const [body, status, message] of cases) {
        const r = await w.raw('POST', '/repos/alice/proj/tag_protections', body, { token: alice.token });
        expect(r.status, JSON.stringify(body)).to.equal(status);
        if (typeof message === 'string') expect(r.body.message).to.equal(message);
        else expect(r.body.message).to.match(message);
      }
      expect((await w.raw('GET', '/repos/alice/proj/tag_protections', undefined, { token: alice.token })).body).to.deep.equal([]);
    });

    it('needs a repository admin: 403 for writers, 401 anonymous; 404 for another repository\'s rule', async () => {
      const r = await w.raw('POST', '/repos/alice/proj/tag_protections', { name_pattern: 'x*', whitelist_usernames: ['carol'] }, { token: carol.token });
      expect(r.status).to.equal(403);
      expect(r.body.message).to.equal('user should be an owner or a collaborator with admin write of a repository');
      expect((await w.raw('GET', '/repos/alice/proj/tag_protections', undefined, { token: carol.token })).status).to.equal(403);
      expect((await w.raw('GET', '/repos/alice/proj/tag_protections')).status).to.equal(401);
      await apiRepo(w, carol, 'own');
      const other = await w.raw('POST', '/repos/carol/own/tag_protections', { name_pattern: 'x*', whitelist_usernames: ['carol'] }, { token: carol.token });
      expect(other.status).to.equal(201);
      expect((await w.raw('GET', `/repos/alice/proj/tag_protections/${other.body.id}`, undefined, { token: alice.token })).status).to.equal(404);
      expect((await w.raw('DELETE', `/repos/alice/proj/tag_protections/${other.body.id}`, undefined, { token: alice.token })).status).to.equal(404);
      expect((await w.raw('GET', `/repos/carol/own/tag_protections/${other.body.id}`, undefined, { token: carol.token })).status).to.equal(200);
    });

    it('a second rule with the same pattern is 403 "Tag protection already exist"', async () => {
      expect((await w.raw('POST', '/repos/alice/proj/tag_protections', { name_pattern: 'v*', whitelist_usernames: ['alice'] }, { token: alice.token })).status).to.equal(201);
      const r = await w.raw('POST', '/repos/alice/proj/tag_protections', { name_pattern: 'v*', whitelist_usernames: ['carol'] }, { token: alice.token });
      expect(r.status).to.equal(403);
      expect(r.body.message).to.equal('Tag protection already exist');
      expect((await w.raw('GET', '/repos/alice/proj/tag_protections', undefined, { token: alice.token })).body).to.have.length(1);
    });

    it('guards API tag creation and deletion: only listed users control matching tags', async () => {
      const before = await tags('alice', 'proj');
      const denied = await w.raw('POST', '/repos/alice/proj/tags', { tag_name: 'v9' }, { token: carol.token });
      expect(denied.status).to.equal(422);
      expect(denied.body.message).to.equal('user not allowed to create protected tag');
      expect(await tags('alice', 'proj')).to.equal(before);
      expect((await w.raw('POST', '/repos/alice/proj/tags', { tag_name: 'x9' }, { token: carol.token })).status).to.equal(201);
      expect((await w.raw('POST', '/repos/alice/proj/tags', { tag_name: 'v9' }, { token: alice.token })).status).to.equal(201);
      const del = await w.raw('DELETE', '/repos/alice/proj/tags/v9', undefined, { token: carol.token });
      expect(del.status).to.equal(422);
      expect(del.body.message).to.equal('user not allowed to delete protected tag');
      expect(await g.serverRef('alice', 'proj', 'refs/tags/v9')).to.equal(main);
    });

    it('applies /regex/ patterns (unanchored, as Gitea) and glob classes and braces', async () => {
      const rx = await w.raw('POST', '/repos/alice/proj/tag_protections', { name_pattern: '/^rc-\\d+$/', whitelist_usernames: ['alice'] }, { token: alice.token });
      expect(rx.status, rx.text).to.equal(201);
      const glob = await w.raw('POST', '/repos/alice/proj/tag_protections', { name_pattern: '{stable,lts}/[0-9]*', whitelist_usernames: ['alice'] }, { token: alice.token });
      expect(glob.status, glob.text).to.equal(201);
      const tries: [string, number][] = [['rc-12', 422], ['rc-x', 201], ['stable/1.0', 422], ['lts/2', 422], ['stable/x', 201], ['beta/1', 201]];
      for (const [name, status] of tries) {
        const r = await w.raw('POST', '/repos/alice/proj/tags', { tag_name: name }, { token: carol.token });
        expect(r.status, name).to.equal(status);
        expect(await g.serverRef('alice', 'proj', `refs/tags/${name}`), name).to.equal(status === 201 ? main : null);
      }
    });

    it('a regular expression that backtracks for ever fails closed instead of stalling the server', async () => {
      expect((await w.raw('POST', '/repos/alice/proj/tag_protections', { name_pattern: '/^(a+)+$/', whitelist_usernames: ['alice'] }, { token: alice.token })).status).to.equal(201);
      const name = `${'a'.repeat(40)}!`;
      const slow = w.raw('POST', '/repos/alice/proj/tags', { tag_name: name }, { token: carol.token });
      const version = await w.raw('GET', '/version');
      expect(version.status).to.equal(200);
      const r = await slow;
      expect(r.status).to.equal(422);
      expect(await g.serverRef('alice', 'proj', `refs/tags/${name}`)).to.equal(null);
    });

    it('guards pushes: a protected tag pushed by someone not listed is refused with Gitea\'s message', async () => {
      const d = await g.clone(carol, 'alice', 'proj');
      await g.ok(['tag', 'v10'], d);
      const push = await g.run(['push', 'origin', 'v10'], d);
      expect(push.code).to.not.equal(0);
      expect(push.stderr).to.include('Tag v10 is protected');
      expect(await g.serverRef('alice', 'proj', 'refs/tags/v10')).to.equal(null);
      const del = await g.run(['push', 'origin', ':refs/tags/v9'], d);
      expect(del.code).to.not.equal(0);
      expect(del.stderr).to.include('Tag v9 is protected');
      expect(await g.serverRef('alice', 'proj', 'refs/tags/v9')).to.equal(main);
      await g.ok(['tag', 'free-1'], d);
      await g.ok(['push', '-q', 'origin', 'free-1'], d);
      expect(await g.serverRef('alice', 'proj', 'refs/tags/free-1')).to.equal(main);
    });

    it('lets listed users push protected tags', async () => {
      const d = await g.clone(alice, 'alice', 'proj');
      await g.ok(['tag', 'v11'], d);
      await g.ok(['push', '-q', 'origin', 'v11'], d);
      expect(await g.serverRef('alice', 'proj', 'refs/tags/v11')).to.equal(main);
      await waitFor('the tag row', async () => (await sql(w.server, "SELECT id FROM release WHERE tag_name = 'v11'")).length === 1);
    });

    it('allow-lists teams in an organization\'s repository', async () => {
      const org = await w.raw('POST', '/orgs', { username: 'acme' }, { token: alice.token });
      expect(org.status, org.text).to.equal(201);
      const team = await w.raw('POST', '/orgs/acme/teams', { name: 'releasers', permission: 'write', units: ['repo.code', 'repo.releases'], includes_all_repositories: true }, { token: alice.token });
      expect(team.status, team.text).to.equal(201);
      expect((await w.raw('PUT', `/teams/${team.body.id}/members/carol`, undefined, { token: alice.token })).status).to.equal(204);
      const repo = await w.raw('POST', '/orgs/acme/repos', { name: 'tool', auto_init: true }, { token: alice.token });
      expect(repo.status, repo.text).to.equal(201);
      const bad = await w.raw('POST', '/repos/acme/tool/tag_protections', { name_pattern: '*', whitelist_teams: ['nope'] }, { token: alice.token });
      expect(bad.status).to.equal(422);
      expect(bad.body.message).to.match(/^team does not exist \[org_id \d+, team_id 0, name: nope\]$/);
      const rule = await w.raw('POST', '/repos/acme/tool/tag_protections', { name_pattern: '*', whitelist_teams: ['releasers'] }, { token: alice.token });
      expect(rule.status, rule.text).to.equal(201);
      expect(rule.body.whitelist_teams).to.deep.equal(['releasers']);
      expect((await w.raw('POST', '/repos/acme/tool/tags', { tag_name: 'by-team' }, { token: carol.token })).status).to.equal(201);
      expect((await w.raw('POST', '/repos/acme/tool/tags', { tag_name: 'by-owner' }, { token: alice.token })).status).to.equal(422);
      const d = await g.clone(carol, 'acme', 'tool');
      await g.ok(['tag', 'pushed-by-team'], d);
      await g.ok(['push', '-q', 'origin', 'pushed-by-team'], d);
    });
  });
});
