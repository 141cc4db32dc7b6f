/**
 * Releases through the API (gitea-js and raw HTTP), checked against git and the release table:
 * create (a missing tag is created, annotated with tag_message), converting a tag-only row,
 * drafts and pre-releases with their visibility, latest, by tag, edit (publish, rename the tag),
 * delete (the tag stays), the disabled unit, permissions, and every refusal with nothing changed.
 */
import { expect } from 'chai';
import type { World, TestUser } from '../helpers/world';
import { GitTool, apiRepo, startRefsWorld, waitFor } from '../helpers/refs';
import { sql } from '../helpers/db';

describe('releases', () => {
  let w: World;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  let g: GitTool;
  let main: string;

  const rows = (tag: string) => sql(w.server, 'SELECT id, tag_name, sha1, is_tag, is_draft, title, publisher_id FROM release WHERE tag_name = $1', [tag]);
  const tags = () => g.serverRefsUnder('alice', 'proj', 'refs/tags/');
  const releaseCount = async () => Number((await sql(w.server, 'SELECT COUNT(*) AS n FROM release WHERE is_tag = $1', [false]))[0].n);

  before(async () => {
    ({ w, alice, bob, carol, g, main } = await startRefsWorld());
  });
  after(async () => { await w?.stop(); });

  describe('create', () => {
    it('creates a release and its lightweight tag at target_commitish', async () => {
      const r = await alice.api.repos.repoCreateRelease('alice', 'proj', { tag_name: 'v1.0', name: 'One', body: 'notes', target_commitish: 'main' });
      expect(r.status).to.equal(201);
      const rel = r.data;
      expect(rel).to.deep.include({ tag_name: 'v1.0', target_commitish: 'main', name: 'One', body: 'notes', draft: false, prerelease: false });
      const base = `${w.server.url}alice/proj`;
      expect(rel.url).to.equal(`${w.server.url}api/v1/repos/alice/proj/releases/${rel.id}`);
      expect(rel.html_url).to.equal(`${base}/releases/tag/v1.0`);
      expect(rel.tarball_url).to.equal(`${base}/archive/v1.0.tar.gz`);
      expect(rel.zipball_url).to.equal(`${base}/archive/v1.0.zip`);
      expect(rel.upload_url).to.equal(`${rel.url}/assets`);
      expect(rel.author!.login).to.equal('alice');
      expect(rel.assets).to.deep.equal([]);
      expect(rel.created_at).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      expect(rel.published_at).to.equal(rel.created_at);
      expect(await g.serverRef('alice', 'proj', 'refs/tags/v1.0')).to.equal(main);
      expect(await g.bare('alice', 'proj', ['cat-file', '-t', 'refs/tags/v1.0'])).to.equal('commit');
      const row = (await rows('v1.0'))[0];
      expect(row).to.include({ id: rel.id, sha1: main, publisher_id: alice.id });
      expect(Boolean(row.is_tag)).to.equal(false);
    });

    it('creates an annotated tag when tag_message is given', async () => {
      const r = await w.raw('POST', '/repos/alice/proj/releases', { tag_name: 'v1.1', tag_message: 'Tagged for 1.1', name: 'One one' }, { token: carol.token });
      expect(r.status, r.text).to.equal(201);
      expect(r.body.target_commitish).to.equal('main');
      expect(await g.bare('alice', 'proj', ['cat-file', '-t', 'refs/tags/v1.1'])).to.equal('tag');
      const raw = await g.bare('alice', 'proj', ['cat-file', '-p', 'refs/tags/v1.1']);
      expect(raw).to.include('Tagged for 1.1');
      expect(raw).to.match(/^tagger carol <carol@example\.com>/m);
      expect((await rows('v1.1'))[0].sha1).to.equal(main);
    });

    it('publishing a release for an existing tag converts its tag-only row', async () => {
      expect((await w.raw('POST', '/repos/alice/proj/tags', { tag_name: 'v0.9', message: 'old' }, { token: alice.token })).status).to.equal(201);
      const tagRow = (await rows('v0.9'))[0];
      expect(Boolean(tagRow.is_tag)).to.equal(true);
      const r = await w.raw('POST', '/repos/alice/proj/releases', { tag_name: 'v0.9', name: 'Nine' }, { token: carol.token });
      expect(r.status, r.text).to.equal(201);
      expect(r.body.id).to.equal(tagRow.id);
      expect(r.body.author.login).to.equal('carol');
      const after = await rows('v0.9');
      expect(after).to.have.length(1);
      expect(Boolean(after[0].is_tag)).to.equal(false);
      expect(after[0].title).to.equal('Nine');
    });

    it('a second release for a tag is 409, changing nothing', async () => {
      const n = await releaseCount();
      const r = await w.raw('POST', '/repos/alice/proj/releases', { tag_name: 'v1.0', name: 'again' }, { token: alice.token });
      expect(r.status).to.equal(409);
      expect(r.body.message).to.equal('Release is has no Tag');
      expect(await releaseCount()).to.equal(n);
      expect((await rows('v1.0'))[0].title).to.equal('One');
    });

    it('refuses bad tag names (422), unknown targets (404) and an empty repository (422), changing nothing', async () => {
      const before = await tags();
      const n = await releaseCount();
      for (const [tag, status, message] of [['', 422, '[TagName]: Required'], ['-x', 422, 'release tag name is not valid [tag_name: -x]'], ['a b', 422, 'release tag name is not valid [tag_name: a b]']] as const) {
        const r = await w.raw('POST', '/repos/alice/proj/releases', { tag_name: tag }, { token: alice.token });
        expect(r.status, tag).to.equal(status);
        expect(r.body.message).to.equal(message);
      }
      const long = await w.raw('POST', '/repos/alice/proj/releases', { tag_name: 'v5', name: 't'.repeat(256) }, { token: alice.token });
      expect(long.status).to.equal(422);
      expect(long.body.message).to.equal('[Title]: MaxSize');
      const missing = await w.raw('POST', '/repos/alice/proj/releases', { tag_name: 'v5', target_commitish: 'no-branch' }, { token: alice.token });
      expect(missing.status).to.equal(404);
      expect(missing.body.message).to.match(/^target "no-branch" not found/);
      const dash = await w.raw('POST', '/repos/alice/proj/releases', { tag_name: 'v5', target_commitish: '--output=/tmp/x' }, { token: alice.token });
      expect(dash.status).to.equal(404);
      expect(await tags()).to.equal(before);
      expect(await releaseCount()).to.equal(n);
      await apiRepo(w, alice, 'empty', {});
      const empty = await w.raw('POST', '/repos/alice/empty/releases', { tag_name: 'v1' }, { token: alice.token });
      expect(empty.status).to.equal(422);
      expect(empty.body.message).to.equal('repo is empty');
    });

    it('a protected tag is refused (422) for users the rule does not list', async () => {
      expect((await w.raw('POST', '/repos/alice/proj/tag_protections', { name_pattern: 'prot-*', whitelist_usernames: ['alice'] }, { token: alice.token })).status).to.equal(201);
      const r = await w.raw('POST', '/repos/alice/proj/releases', { tag_name: 'prot-1' }, { token: carol.token });
      expect(r.status).to.equal(422);
      expect(r.body.message).to.equal('release tag name is protected [tag_name: prot-1]');
      expect(await g.serverRef('alice', 'proj', 'refs/tags/prot-1')).to.equal(null);
      expect(await rows('prot-1')).to.have.length(0);
      expect((await w.raw('POST', '/repos/alice/proj/releases', { tag_name: 'prot-1' }, { token: alice.token })).status).to.equal(201);
    });

    it('needs write access to releases: 401 anonymous, 403 readers, 404 strangers to a private repository', async () => {
      const n = await releaseCount();
      expect((await w.raw('POST', '/repos/alice/proj/releases', { tag_name: 'anon' })).status).to.equal(401);
      const reader = await w.raw('POST', '/repos/alice/proj/releases', { tag_name: 'reader' }, { token: bob.token });
      expect(reader.status).to.equal(403);
      expect(reader.body.message).to.equal('user should have a permission to write to a repo');
      await apiRepo(w, alice, 'secret', { auto_init: true, private: true });
      expect((await w.raw('POST', '/repos/alice/secret/releases', { tag_name: 'x' }, { token: bob.token })).status).to.equal(404);
      expect((await w.raw('GET', '/repos/alice/secret/releases', undefined, { token: bob.token })).status).to.equal(404);
      expect((await w.raw('GET', '/repos/alice/secret/releases')).status).to.equal(404);
      expect(await releaseCount()).to.equal(n);
    });
  });

  describe('drafts, pre-releases, latest', () => {
    let draftId: number;

    it('a draft creates no tag and is seen only by writers', async () => {
      const r = await w.raw('POST', '/repos/alice/proj/releases', { tag_name: 'v2.0', name: 'Two', draft: true }, { token: alice.token });
      expect(r.status, r.text).to.equal(201);
      expect(r.body.draft).to.equal(true);
      draftId = r.body.id;
      expect(await g.serverRef('alice', 'proj', 'refs/tags/v2.0')).to.equal(null);
      expect((await w.raw('GET', `/repos/alice/proj/releases/${draftId}`, undefined, { token: carol.token })).status).to.equal(200);
      for (const auth of [{ token: bob.token }, {}]) {
        expect((await w.raw('GET', `/repos/alice/proj/releases/${draftId}`, undefined, auth)).status).to.equal(404);
        expect((await w.raw('GET', '/repos/alice/proj/releases/tags/v2.0', undefined, auth)).status).to.equal(404);
        const list = await w.raw('GET', '/repos/alice/proj/releases', undefined, auth);
        expect(list.body.map((x: { tag_name: string }) => x.tag_name)).to.not.include('v2.0');
      }
      const mine = await alice.api.repos.repoListReleases('alice', 'proj');
      expect(mine.data.map((x) => x.tag_name)).to.include('v2.0');
    });

    it('filters by draft and pre-release', async () => {
      expect((await w.raw('POST', '/repos/alice/proj/releases', { tag_name: 'v3.0-rc1', prerelease: true }, { token: alice.token })).status).to.equal(201);
      const drafts = await alice.api.repos.repoListReleases('alice', 'proj', { draft: true });
      expect(drafts.data.map((x) => x.tag_name)).to.deep.equal(['v2.0']);
      const pre = await alice.api.repos.repoListReleases('alice', 'proj', { 'pre-release': true });
      expect(pre.data.map((x) => x.tag_name)).to.deep.equal(['v3.0-rc1']);
      const bobDrafts = await w.raw('GET', '/repos/alice/proj/releases?draft=true', undefined, { token: bob.token });
      expect(bobDrafts.body).to.deep.equal([]);
      const all = await w.raw('GET', '/repos/alice/proj/releases?limit=2', undefined, { token: alice.token });
      expect(all.body).to.have.length(2);
      expect(Number(all.headers.get('x-total-count'))).to.equal(await releaseCount());
      expect(all.body[0].tag_name).to.equal('v3.0-rc1');
    });

    it('latest is the newest published release that is not a pre-release', async () => {
      const r = await bob.api.repos.repoGetLatestRelease('alice', 'proj');
      expect(r.data.tag_name).to.equal('prot-1');
      await apiRepo(w, alice, 'bare');
      expect((await w.raw('GET', '/repos/alice/bare/releases/latest')).status).to.equal(404);
    });

    it('publishing a draft creates its tag at the target and makes it the latest', async () => {
      const createdBefore = (await sql(w.server, 'SELECT created_at FROM release WHERE id = $1', [draftId]))[0].created_at;
      const r = await w.raw('PATCH', `/repos/alice/proj/releases/${draftId}`, { draft: false }, { token: alice.token });
      expect(r.status, r.text).to.equal(200);
      expect(r.body.draft).to.equal(false);
      expect(await g.serverRef('alice', 'proj', 'refs/tags/v2.0')).to.equal(main);
      expect((await rows('v2.0'))[0].sha1).to.equal(main);
      const createdAfter = (await sql(w.server, 'SELECT created_at FROM release WHERE id = $1', [draftId]))[0].created_at;
      expect(new Date(createdAfter).getTime()).to.be.greaterThan(new Date(createdBefore).getTime());
      expect((await w.raw('GET', '/repos/alice/proj/releases/latest')).body.tag_name).to.equal('v2.0');
      expect((await w.raw('GET', `/repos/alice/proj/releases/${draftId}`, undefined, { token: bob.token })).status).to.equal(200);
    });
  });

  describe('get, edit, delete', () => {
    it('gets by id and by tag; tag-only rows are not releases', async () => {
      const byTag = await bob.api.repos.repoGetReleaseByTag('alice', 'proj', 'v1.0');
      expect(byTag.data.name).to.equal('One');
      expect((await bob.api.repos.repoGetRelease('alice', 'proj', byTag.data.id!)).data.tag_name).to.equal('v1.0');
      expect((await w.raw('POST', '/repos/alice/proj/tags', { tag_name: 'only-tag' }, { token: alice.token })).status).to.equal(201);
      const tagRow = (await rows('only-tag'))[0];
      expect((await w.raw('GET', `/repos/alice/proj/releases/${tagRow.id}`)).status).to.equal(404);
      expect((await w.raw('GET', '/repos/alice/proj/releases/tags/only-tag')).status).to.equal(404);
      expect((await w.raw('GET', '/repos/alice/proj/releases/999999')).status).to.equal(404);
    });

    it('edits fields; empty values keep the old ones', async () => {
      const id = (await rows('v1.0'))[0].id;
      const r = await alice.api.repos.repoEditRelease('alice', 'proj', id, { name: 'One!', prerelease: true });
      expect(r.status).to.equal(200);
      expect(r.data).to.deep.include({ name: 'One!', body: 'notes', prerelease: true, tag_name: 'v1.0' });
      const keep = await w.raw('PATCH', `/repos/alice/proj/releases/${id}`, { name: '', body: '' }, { token: alice.token });
      expect(keep.body).to.deep.include({ name: 'One!', body: 'notes' });
      const reader = await w.raw('PATCH', `/repos/alice/proj/releases/${id}`, { name: 'x' }, { token: bob.token });
      expect(reader.status).to.equal(403);
      expect((await rows('v1.0'))[0].title).to.equal('One!');
    });

    it('moving a release to a new tag creates that tag and keeps the old one as a tag', async () => {
      const id = (await rows('v1.1'))[0].id;
      const r = await w.raw('PATCH', `/repos/alice/proj/releases/${id}`, { tag_name: 'v1.1.1' }, { token: alice.token });
      expect(r.status, r.text).to.equal(200);
      expect(r.body.tag_name).to.equal('v1.1.1');
      expect(await g.serverRef('alice', 'proj', 'refs/tags/v1.1.1')).to.equal(main);
      expect(await g.serverRef('alice', 'proj', 'refs/tags/v1.1')).to.not.equal(null);
      const old = await rows('v1.1');
      expect(old).to.have.length(1);
      expect(Boolean(old[0].is_tag)).to.equal(true);
      expect((await rows('v1.1.1'))[0].id).to.equal(id);
      const clash = await w.raw('PATCH', `/repos/alice/proj/releases/${id}`, { tag_name: 'v1.0' }, { token: alice.token });
      expect(clash.status).to.equal(409);
      expect((await rows('v1.1.1'))[0].id).to.equal(id);
    });

    it('deleting a release keeps its tag as a tag-only row', async () => {
      const id = (await rows('v0.9'))[0].id;
      expect((await alice.api.repos.repoDeleteRelease('alice', 'proj', id)).status).to.equal(204);
      expect((await w.raw('GET', `/repos/alice/proj/releases/${id}`)).status).to.equal(404);
      expect(await g.serverRef('alice', 'proj', 'refs/tags/v0.9')).to.not.equal(null);
      expect(Boolean((await rows('v0.9'))[0].is_tag)).to.equal(true);
      expect((await w.raw('DELETE', '/repos/alice/proj/tags/v0.9', undefined, { token: alice.token })).status).to.equal(204);
    });

    it('deletes by tag; a deleted draft leaves no row', async () => {
      expect((await alice.api.repos.repoDeleteReleaseByTag('alice', 'proj', 'v3.0-rc1')).status).to.equal(204);
      expect((await w.raw('GET', '/repos/alice/proj/releases/tags/v3.0-rc1')).status).to.equal(404);
      expect(await g.serverRef('alice', 'proj', 'refs/tags/v3.0-rc1')).to.not.equal(null);
      const d = await w.raw('POST', '/repos/alice/proj/releases', { tag_name: 'draft-x', draft: true }, { token: alice.token });
      expect((await w.raw('DELETE', `/repos/alice/proj/releases/${d.body.id}`, undefined, { token: alice.token })).status).to.equal(204);
      expect(await rows('draft-x')).to.have.length(0);
    });

    it('refuses deletes from readers (403) and of missing releases (404)', async () => {
      const id = (await rows('v1.0'))[0].id;
      expect((await w.raw('DELETE', `/repos/alice/proj/releases/${id}`, undefined, { token: bob.token })).status).to.equal(403);
      expect((await w.raw('DELETE', '/repos/alice/proj/releases/tags/v1.0', undefined, { token: bob.token })).status).to.equal(403);
      expect((await w.raw('DELETE', '/repos/alice/proj/releases/999999', undefined, { token: alice.token })).status).to.equal(404);
      expect((await w.raw('DELETE', '/repos/alice/proj/releases/tags/only-tag', undefined, { token: alice.token })).status).to.equal(404);
      expect(Boolean((await rows('v1.0'))[0].is_tag)).to.equal(false);
    });

    it('the release rows stay in step with git: the next push records only its own change', async () => {
      const last = Number((await sql(w.server, 'SELECT COALESCE(MAX(id), 0) AS n FROM push_event'))[0].n);
      const d = await g.clone(alice, 'alice', 'proj');
      await g.commit(d, 'z.txt', 'z');
      await g.ok(['push', '-q', 'origin', 'HEAD:main'], d);
      await waitFor('the push', async () => (await sql(w.server, 'SELECT id FROM push_event WHERE id > $1', [last])).length > 0);
      const events = await sql(w.server, 'SELECT ref_name FROM push_event WHERE id > $1 ORDER BY id', [last]);
      expect(events.map((e) => e.ref_name)).to.deep.equal(['refs/heads/main']);
    });
  });

  describe('the releases unit', () => {
    it('a disabled releases unit answers 404 everywhere', async () => {
      await apiRepo(w, alice, 'norel');
      expect((await w.raw('POST', '/repos/alice/norel/releases', { tag_name: 'v1' }, { token: alice.token })).status).to.equal(201);
      expect((await w.raw('PATCH', '/repos/alice/norel', { has_releases: false }, { token: alice.token })).status).to.equal(200);
      for (const [method, path] of [['GET', '/releases'], ['GET', '/releases/latest'], ['GET', '/releases/tags/v1'], ['POST', '/releases'], ['GET', '/releases/1/assets']]) {
        const r = await w.raw(method, `/repos/alice/norel${path}`, method === 'POST' ? { tag_name: 'v2' } : undefined, { token: alice.token });
        expect(r.status, `${method} ${path}`).to.equal(404);
      }
      expect(await g.serverRef('alice', 'norel', 'refs/tags/v2')).to.equal(null);
    });
  });
});
