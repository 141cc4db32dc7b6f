/**
 * The remaining Gitea operations, on one server: avatars of users, organizations and repositories
 * (API and settings forms), renaming an organization (API and form) with the old name redirecting
 * (API, pages, git) until it is taken again, the deprecated `POST /org/{org}/repos`, a repository's
 * teams, the heatmap (API and profile calendar), the reviewers a pull request may ask, and the
 * instance's signing key. Every refusal is shown to change nothing.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { expect } from 'chai';
import sharp from 'sharp';
import { startWorld, expectError, type World, type TestUser } from '../helpers/world';
import { WebClient } from '../helpers/web';
import { GpgHome, tempDir } from '../helpers/keys';
import { git, gitHome } from '../helpers/repo-fixture';
import { sql } from '../helpers/db';

const png = (w: number, h: number, background = '#3366cc') => sharp({ create: { width: w, height: h, channels: 3, background } }).png().toBuffer();
const b64 = (b: Buffer) => b.toString('base64');
const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>');

describe('remaining API operations', () => {
  let w: World;
  let alice: TestUser; // owner of the organization "acme"
  let bob: TestUser; // member of acme's team "devs" (code write, pulls read)
  let carol: TestUser; // outsider, later an admin collaborator of acme/widgets
  let dave: TestUser; // outsider
  let gpg: GpgHome;
  let fpr: string;
  const files = (dir: string) => (fs.existsSync(path.join(w.server.dataDir, dir)) ? fs.readdirSync(path.join(w.server.dataDir, dir)).filter((f) => !f.endsWith('.tmp')) : []);

  before(async () => {
    gpg = new GpgHome();
    fpr = gpg.generate('Forge Signer <signer@forge.test>');
    // why: the server's git (and so gpg) runs with HOME=FORGE_GIT_HOME; its keyring is that home's .gnupg.
    const home = tempDir('forge-git-home-');
    fs.symlinkSync(gpg.home, path.join(home, '.gnupg'));
    w = await startWorld({
      env: {
        FORGE_GIT_HOME: home,
        FORGE__REPOSITORY_0X2E_SIGNING__SIGNING_KEY: fpr,
        FORGE__PICTURE__AVATAR_MAX_FILE_SIZE: '65536',
        FORGE__PICTURE__AVATAR_MAX_WIDTH: '512',
        FORGE__PICTURE__AVATAR_MAX_HEIGHT: '512',
      },
    });
    [alice, bob, carol, dave] = [await w.user('alice'), await w.user('bob'), await w.user('carol'), await w.user('dave')];
    expect((await alice.api.orgs.orgCreate({ username: 'acme' })).status).to.equal(201);
    const devs = await alice.api.orgs.orgCreateTeam('acme', { name: 'devs', units_map: { 'repo.code': 'write', 'repo.pulls': 'read', 'repo.issues': 'read' } } as never);
    expect((await alice.api.teams.orgAddTeamMember(devs.data.id!, 'bob')).status).to.equal(204);
    expect((await w.raw('POST', '/orgs/acme/repos', { name: 'widgets' }, { token: alice.token })).status).to.equal(201);
    expect((await w.raw('POST', '/user/repos', { name: 'solo' }, { token: alice.token })).status).to.equal(201);
    expect((await w.raw('POST', '/user/repos', { name: 'hidden', private: true }, { token: alice.token })).status).to.equal(201);
    expect((await w.raw('POST', '/user/repos', { name: 'secret', private: true }, { token: carol.token })).status).to.equal(201);
  });
  after(async () => {
    await w?.stop();
    // why: gpg started an agent for the test's own keyring; it is ours to stop.
    if (gpg) execFileSync('gpgconf', ['--kill', 'gpg-agent'], { env: { ...process.env, GNUPGHOME: gpg.home } });
  });

  describe('user avatars', () => {
    it('uploads (base64 JSON) a picture served as a square PNG, and deletes it', async () => {
      const before = (await alice.api.user.userGetCurrent()).data.avatar_url!;
      const res = await alice.api.user.userUpdateAvatar({ image: b64(await png(120, 80)) });
      expect(res.status).to.equal(204);
      const url = (await alice.api.user.userGetCurrent()).data.avatar_url!;
      expect(url).to.match(new RegExp(`/avatars/${alice.id}-[0-9a-f]{32}$`));
      const img = await fetch(url);
      expect(img.status).to.equal(200);
      expect(img.headers.get('content-type')).to.equal('image/png');
      const meta = await sharp(Buffer.from(await img.arrayBuffer())).metadata();
      expect([meta.width, meta.height]).to.deep.equal([80, 80]);
      expect(files('avatars')).to.deep.equal([url.split('/').pop()]);
      expect((await alice.api.user.userDeleteAvatar()).status).to.equal(204);
      expect((await alice.api.user.userGetCurrent()).data.avatar_url).to.equal(before);
      expect(files('avatars')).to.deep.equal([]);
    });

    it('refuses what is not base64, not a picture, too large or too many pixels, and keeps the avatar', async () => {
      await alice.api.user.userUpdateAvatar({ image: b64(await png(40, 40, '#aa0000')) });
      const kept = (await alice.api.user.userGetCurrent()).data.avatar_url;
      const cases: [unknown, number, RegExp][] = [
        [{ image: `data:image/png;base64,${b64(await png(8, 8))}` }, 400, /base64/],
        [{ image: 'not base64!' }, 400, /base64/],
        [{}, 400, /base64/],
        [{ image: b64(SVG) }, 422, /PNG, JPEG, GIF or WebP/],
        [{ image: b64(crypto.randomBytes(70_000)) }, 413, /larger than 65536 bytes/],
        [{ image: b64(await png(600, 10)) }, 422, /at most 512x512 pixels/],
      ];
      for (const [body, status, msg] of cases) expectError(await w.raw('POST', '/user/avatar', body, { token: alice.token }), status, msg);
      expectError(await w.raw('POST', '/user/avatar', { image: b64(await png(8, 8)) }), 401);
      expect((await alice.api.user.userGetCurrent()).data.avatar_url).to.equal(kept);
      expect(files('avatars')).to.have.length(1);
      await alice.api.user.userDeleteAvatar();
    });
  });

  describe('organization avatars', () => {
    const orgAvatar = async () => (await w.raw('GET', '/orgs/acme', undefined, { token: alice.token })).body.avatar_url as string;

    it('lets owners set and delete it; members and others get 403 and change nothing', async () => {
      const before = await orgAvatar();
      const image = b64(await png(64, 64));
      for (const u of [bob, carol]) {
        expectError(await w.raw('POST', '/orgs/acme/avatar', { image }, { token: u.token }), 403, 'Must be an organization owner');
        expectError(await w.raw('DELETE', '/orgs/acme/avatar', undefined, { token: u.token }), 403);
      }
      expect(await orgAvatar()).to.equal(before);
      expectError(await w.raw('POST', '/orgs/nope/avatar', { image }, { token: alice.token }), 404);
      expect((await alice.api.orgs.orgUpdateAvatar('acme', { image })).status).to.equal(204);
      const set = await orgAvatar();
      expect(set).to.match(/\/avatars\/\d+-[0-9a-f]{32}$/);
      expect((await fetch(set)).status).to.equal(200);
      expectError(await w.raw('DELETE', '/orgs/acme/avatar', undefined, { token: bob.token }), 403);
      expect(await orgAvatar()).to.equal(set);
      expect((await alice.api.orgs.orgDeleteAvatar('acme')).status).to.equal(204);
      expect(await orgAvatar()).to.equal(before);
    });
  });

  describe('repository avatars', () => {
    const repoAvatar = async () => (await w.raw('GET', '/repos/acme/widgets', undefined, { token: alice.token })).body.avatar_url as string;

    it('lets repository admins set it (avatar_url, /repo-avatars/) and delete it; others get 403 or 404', async () => {
      expect(await repoAvatar()).to.equal('');
      const image = b64(await png(50, 70));
      expectError(await w.raw('POST', '/repos/acme/widgets/avatar', { image }, { token: bob.token }), 403, 'user should be an owner or a collaborator with admin write of a repository');
      expectError(await w.raw('POST', '/repos/carol/secret/avatar', { image }, { token: bob.token }), 404);
      expect(await repoAvatar()).to.equal('');
      expect(files('repo-avatars')).to.deep.equal([]);
      expect((await alice.api.repos.repoUpdateAvatar('acme', 'widgets', { image })).status).to.equal(204);
      const url = await repoAvatar();
      expect(url).to.match(new RegExp(`^${w.server.rootUrl}repo-avatars/\\d+-[0-9a-f]{32}$`));
      const img = await fetch(url.replace(w.server.rootUrl, w.server.url));
      expect(img.status).to.equal(200);
      expect((await sharp(Buffer.from(await img.arrayBuffer())).metadata()).width).to.equal(50);
      expectError(await w.raw('POST', '/repos/acme/widgets/avatar', { image: b64(SVG) }, { token: alice.token }), 422);
      expectError(await w.raw('DELETE', '/repos/acme/widgets/avatar', undefined, { token: bob.token }), 403);
      expect(await repoAvatar()).to.equal(url);
      expect((await alice.api.repos.repoDeleteAvatar('acme', 'widgets')).status).to.equal(204);
      expect(await repoAvatar()).to.equal('');
      expect(files('repo-avatars')).to.deep.equal([]);
    });
  });

  describe('a repository\'s teams', () => {
    const names = async () => (await alice.api.repos.repoListTeams('acme', 'widgets')).data.map((t) => t.name);

    it('lists the teams that reach the repository, the Owners team first, and checks one by name', async () => {
      const list = await alice.api.repos.repoListTeams('acme', 'widgets');
      expect(list.data.map((t) => t.name)).to.deep.equal(['Owners']);
      expect(list.data[0]).to.include({ permission: 'owner', includes_all_repositories: true, organization: null });
      expect((await alice.api.repos.repoCheckTeam('acme', 'widgets', 'owners')).data.name).to.equal('Owners');
      expectError(await w.raw('GET', '/repos/acme/widgets/teams/devs', undefined, { token: alice.token }), 404);
      expectError(await w.raw('GET', '/repos/acme/widgets/teams'), 401);
      expectError(await w.raw('GET', '/repos/alice/solo/teams', undefined, { token: alice.token }), 405, 'repo is not owned by an organization');
      expectError(await w.raw('PUT', '/repos/alice/solo/teams/devs', undefined, { token: alice.token }), 405);
    });

    it('adds and removes teams for repository admins, with Gitea\'s refusals changing nothing', async () => {
      expectError(await w.raw('PUT', '/repos/acme/widgets/teams/devs', undefined, { token: bob.token }), 403);
      expectError(await w.raw('PUT', '/repos/acme/widgets/teams/nope', undefined, { token: alice.token }), 404, /team does not exist/);
      expect(await names()).to.deep.equal(['Owners']);
      expect((await alice.api.repos.repoAddTeam('acme', 'widgets', 'devs')).status).to.equal(204);
      expect(await names()).to.deep.equal(['Owners', 'devs']);
      expect((await alice.api.repos.repoCheckTeam('acme', 'widgets', 'DEVS')).data).to.include({ name: 'devs', permission: 'read', organization: null });
      expectError(await w.raw('PUT', '/repos/acme/widgets/teams/devs', undefined, { token: alice.token }), 422, "team 'devs' is already added to repo");
      expectError(await w.raw('DELETE', '/repos/acme/widgets/teams/Owners', undefined, { token: alice.token }), 422, /includes all repositories/);
      expect(await names()).to.deep.equal(['Owners', 'devs']);
    });

    it('lets a repository admin who is no owner change teams only when the organization allows it', async () => {
      expect((await w.raw('PUT', '/repos/acme/widgets/collaborators/carol', { permission: 'admin' }, { token: alice.token })).status).to.equal(204);
      expectError(await w.raw('DELETE', '/repos/acme/widgets/teams/devs', undefined, { token: carol.token }), 403, 'user is nor repo admin nor owner');
      expect(await names()).to.deep.equal(['Owners', 'devs']);
      expect((await w.raw('PATCH', '/orgs/acme', { repo_admin_change_team_access: true }, { token: alice.token })).status).to.equal(200);
      expect((await w.raw('DELETE', '/repos/acme/widgets/teams/devs', undefined, { token: carol.token })).status).to.equal(204);
      expect(await names()).to.deep.equal(['Owners']);
      expectError(await w.raw('DELETE', '/repos/acme/widgets/teams/devs', undefined, { token: carol.token }), 422, "team 'devs' was not added to repo");
      expect((await w.raw('PUT', '/repos/acme/widgets/teams/devs', undefined, { token: carol.token })).status).to.equal(204);
    });
  });

  describe('reviewers', () => {
    it('lists collaborators and the members of teams reading pull requests, sorted, to those who may choose reviewers', async () => {
      const res = await alice.api.repos.repoGetReviewers('acme', 'widgets');
      expect(res.data.map((u) => u.login)).to.deep.equal(['alice', 'bob', 'carol']);
      expectError(await w.raw('GET', '/repos/acme/widgets/reviewers', undefined, { token: dave.token }), 403, 'doer has no permission to get reviewers');
      expectError(await w.raw('GET', '/repos/acme/widgets/reviewers'), 401);
    });

    it('puts a user owner after its collaborators', async () => {
      expect((await w.raw('PUT', '/repos/alice/solo/collaborators/dave', { permission: 'read' }, { token: alice.token })).status).to.equal(204);
      expect((await alice.api.repos.repoGetReviewers('alice', 'solo')).data.map((u) => u.login)).to.deep.equal(['dave', 'alice']);
    });
  });

  describe('heatmap', () => {
    const total = (b: { contributions?: number }[]) => b.reduce((n, x) => n + (x.contributions ?? 0), 0);
    const heat = async (who: string, token?: string) => {
      const r = await w.raw('GET', `/users/${who}/heatmap`, undefined, { token });
      expect(r.status, r.text).to.equal(200);
      return r.body as { timestamp: number; contributions: number }[];
    };

    it('counts the acts per 15-minute bucket over the last year, in repositories the caller reads', async () => {
      const [repo] = await sql(w.server, "SELECT id FROM repository WHERE lower_name = 'solo'");
      const [hidden] = await sql(w.server, "SELECT id FROM repository WHERE lower_name = 'hidden'");
      const t0 = Math.floor(Date.now() / 1000 / 900) * 900 - 10 * 86_400;
      const rows: [number, number][] = [[repo.id, t0 + 10], [repo.id, t0 + 899], [repo.id, t0 + 900], [hidden.id, t0 + 5], [repo.id, t0 - 400 * 86_400]];
      for (const [repoId, at] of rows) {
        await sql(w.server, 'INSERT INTO action (op_type, act_user_id, repo_id, comment_id, is_deleted, ref_name, is_private, content, created_unix) VALUES (5, $1, $2, 0, $3, \'\', $4, \'\', $5)',
          [alice.id, repoId, false, repoId === hidden.id, at]);
      }
      const own = (await alice.api.users.userGetHeatmapData('alice')).data as unknown as { timestamp: number; contributions: number }[];
      expect(own.every((b) => b.timestamp % 900 === 0 && b.contributions > 0)).to.equal(true);
      expect(own.map((b) => b.timestamp)).to.deep.equal([...own.map((b) => b.timestamp)].sort((a, b) => a - b));
      expect(own.find((b) => b.timestamp === t0)).to.deep.equal({ timestamp: t0, contributions: 3 });
      expect(own.find((b) => b.timestamp === t0 + 900)).to.deep.equal({ timestamp: t0 + 900, contributions: 1 });
      expect(own.some((b) => b.timestamp < t0 - 380 * 86_400)).to.equal(false);
      // the private repository's events (its creation and the one above) are the caller's to see
      const [{ n: privateEvents }] = await sql(w.server, 'SELECT COUNT(*) AS n FROM action WHERE act_user_id = $1 AND repo_id = $2', [alice.id, hidden.id]);
      for (const other of [await heat('alice', carol.token), await heat('alice')]) {
        expect(total(other)).to.equal(total(own) - Number(privateEvents));
        expect(other.find((b) => b.timestamp === t0)).to.deep.equal({ timestamp: t0, contributions: 2 });
      }
      expect(total(await heat('alice', w.admin.token))).to.equal(total(own));
      expect(total(await heat('acme'))).to.be.greaterThan(0);
      expectError(await w.raw('GET', '/users/nobody-here/heatmap'), 404);
    });

    it('is empty for others while the user keeps its activity private', async () => {
      expect((await w.raw('PATCH', '/user/settings', { hide_activity: true }, { token: alice.token })).status).to.equal(200);
      expect(await heat('alice', carol.token)).to.deep.equal([]);
      expect(await heat('alice')).to.deep.equal([]);
      expect(total(await heat('alice', alice.token))).to.be.greaterThan(0);
      expect(total(await heat('alice', w.admin.token))).to.be.greaterThan(0);
      const page = await new WebClient(w).get('alice');
      expect(page.text).to.include('keeps their activity private');
      expect(page.text).to.not.include('heatmap-grid');
      expect((await w.raw('PATCH', '/user/settings', { hide_activity: false }, { token: alice.token })).status).to.equal(200);
    });

    it('shows the calendar of the last year on the profile', async () => {
      const page = await new WebClient(w).get('alice');
      expect(page.status).to.equal(200);
      const days = page.text.match(/class="heatmap-day level-\d" title="/g) ?? [];
      expect(days.length).to.be.within(365, 371);
      expect(page.text).to.match(/\d+ contributions in the last year/);
      expect(page.text).to.match(/heatmap-day level-[1-4]" title="3 contributions on/);
    });
  });

  describe('signing key', () => {
    it('answers the armored public key of SIGNING_KEY as text/plain, for the instance and a readable repository', async () => {
      const armored = gpg.exportPublic(fpr);
      expect(armored).to.match(/^-----BEGIN PGP PUBLIC KEY BLOCK-----/);
      // gitea-js reaches it (and, as for Gitea, cannot read the text as JSON)
      expect((await w.client().signingKeyGpg.getSigningKey()).status).to.equal(200);
      const res = await w.raw('GET', '/signing-key.gpg');
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^text\/plain/);
      expect(res.text).to.equal(armored);
      const repo = await w.raw('GET', '/repos/acme/widgets/signing-key.gpg');
      expect(repo.status).to.equal(200);
      expect(repo.text).to.equal(armored);
      expectError(await w.raw('GET', '/repos/carol/secret/signing-key.gpg', undefined, { token: bob.token }), 404);
    });
  });

  describe('deprecated POST /org/{org}/repos', () => {
    it('creates a repository in the organization as POST /orgs/{org}/repos does, with its refusals', async () => {
      const res = await alice.api.org.createOrgRepoDeprecated('acme', { name: 'gadgets' });
      expect(res.status).to.equal(201);
      expect(res.data.full_name).to.equal('acme/gadgets');
      expectError(await w.raw('POST', '/org/acme/repos', { name: 'gizmos' }, { token: dave.token }), 403);
      expectError(await w.raw('POST', '/org/acme/repos', { name: 'gadgets' }, { token: alice.token }), 409);
      expectError(await w.raw('POST', '/org/nope/repos', { name: 'gizmos' }, { token: alice.token }), 404);
      expectError(await w.raw('GET', '/repos/acme/gizmos', undefined, { token: alice.token }), 404);
    });
  });

  describe('renaming', () => {
    const orgName = async (name: string) => (await w.raw('GET', `/orgs/${name}`, undefined, { token: alice.token })).body.name;

    it('refuses non-owners and bad, reserved or taken names with nothing renamed', async () => {
      expectError(await w.raw('POST', '/orgs/acme/rename', { new_name: 'acme-corp' }, { token: bob.token }), 403, 'Must be an organization owner');
      const cases: [unknown, RegExp][] = [
        [{ new_name: 'carol' }, /^user already exists \[name: carol\]$/], [{ new_name: 'api' }, /reserved/], [{ new_name: '-x' }, /^\[NewName\]/],
        [{ new_name: '' }, /Required/], [{}, /new_name/],
      ];
      for (const [body, msg] of cases) expectError(await w.raw('POST', '/orgs/acme/rename', body, { token: alice.token }), 422, msg);
      expect((await w.raw('POST', '/orgs/acme/rename', { new_name: 'acme' }, { token: alice.token })).status).to.equal(204);
      expect(await orgName('acme')).to.equal('acme');
      expectError(await w.raw('GET', '/orgs/acme-corp', undefined, { token: alice.token }), 404);
    });

    it('renames an organization; API, pages and clone URLs under the old name answer 307 to the new one', async () => {
      expect((await w.raw('POST', '/orgs/acme/rename', { new_name: 'acme-corp' }, { token: alice.token })).status).to.equal(204);
      expect(await orgName('acme-corp')).to.equal('acme-corp');
      const api = await w.raw('GET', '/repos/acme/widgets/teams?limit=5', undefined, { token: alice.token });
      expect(api.status).to.equal(307);
      expect(api.headers.get('location')).to.equal('/api/v1/repos/acme-corp/widgets/teams?limit=5');
      expect((await w.raw('GET', '/orgs/ACME', undefined, { token: alice.token })).headers.get('location')).to.equal('/api/v1/orgs/acme-corp');
      // gitea-js follows the redirect
      expect((await alice.api.repos.repoGet('acme', 'widgets')).data.full_name).to.equal('acme-corp/widgets');
      const web = await WebClient.signedIn(w, alice);
      const pageRes = await web.get('acme/widgets/issues');
      expect(pageRes.status).to.equal(307);
      expect(pageRes.location).to.equal('/acme-corp/widgets/issues');
      expect((await web.get('acme')).location).to.equal('/acme-corp');
      expect((await web.get('org/acme/settings')).location).to.equal('/org/acme-corp/settings');
      const home = gitHome();
      const ls = await git(['ls-remote', `${w.server.url}acme/widgets.git`], { home });
      expect(ls.code, ls.stderr).to.equal(0);
      const lfs = await fetch(`${w.server.url}acme/widgets.git/info/lfs/objects/batch`, {
        method: 'POST', redirect: 'manual', body: JSON.stringify({ operation: 'download', objects: [] }),
        headers: { Accept: 'application/vnd.git-lfs+json', 'Content-Type': 'application/vnd.git-lfs+json' },
      });
      expect(lfs.status).to.equal(307);
      expect(lfs.headers.get('location')).to.equal('/acme-corp/widgets.git/info/lfs/objects/batch');
      // the repositories moved with the organization
      expect(fs.existsSync(path.join(w.server.dataDir, 'repositories', 'acme-corp', 'widgets.git'))).to.equal(true);
      expect(fs.existsSync(path.join(w.server.dataDir, 'repositories', 'acme'))).to.equal(false);
    });

    it('keeps every old name leading to the account until another account takes the name', async () => {
      expect((await w.raw('POST', '/orgs/acme-corp/rename', { new_name: 'Acme-Corp' }, { token: alice.token })).status).to.equal(204);
      expect(await orgName('acme-corp')).to.equal('Acme-Corp');
      expect((await w.raw('GET', '/orgs/acme', undefined, { token: alice.token })).headers.get('location')).to.equal('/api/v1/orgs/Acme-Corp');
      expect((await carol.api.orgs.orgCreate({ username: 'acme' })).status).to.equal(201);
      const taken = await w.raw('GET', '/orgs/acme', undefined, { token: alice.token });
      expect(taken.status).to.equal(200);
      expect(taken.body.name).to.equal('acme');
      expect(taken.body.id).to.not.equal((await w.raw('GET', '/orgs/Acme-Corp', undefined, { token: alice.token })).body.id);
    });

    it('deletes an organization\'s avatar file with the organization', async () => {
      expect((await carol.api.orgs.orgUpdateAvatar('acme', { image: b64(await png(20, 20)) })).status).to.equal(204);
      const file = ((await w.raw('GET', '/orgs/acme', undefined, { token: carol.token })).body.avatar_url as string).split('/').pop();
      expect(files('avatars')).to.include(file);
      expect((await w.raw('DELETE', '/orgs/acme', undefined, { token: carol.token })).status).to.equal(204);
      expect(files('avatars')).to.not.include(file);
    });

    it('keeps the old name of a user renamed by an administrator leading to it', async () => {
      expect((await w.raw('POST', '/admin/users/dave/rename', { new_username: 'david' }, { token: w.admin.token })).status).to.equal(204);
      const res = await w.raw('GET', '/users/dave', undefined, { token: alice.token });
      expect(res.status).to.equal(307);
      expect(res.headers.get('location')).to.equal('/api/v1/users/david');
      expectError(await w.raw('GET', '/users/never-was'), 404, 'user redirect does not exist [name: never-was]');
    });
  });

  describe('settings pages', () => {
    const orgName = async (name: string) => (await w.raw('GET', `/orgs/${name}`, undefined, { token: alice.token })).body.name;
    let web: WebClient;
    before(async () => { web = await WebClient.signedIn(w, alice); });
    const orgAvatar = async () => (await w.raw('GET', '/orgs/Acme-Corp', undefined, { token: alice.token })).body.avatar_url as string;
    const repoAvatar = async () => (await w.raw('GET', '/repos/Acme-Corp/widgets', undefined, { token: alice.token })).body.avatar_url as string;

    it('sets and deletes the organization avatar with the settings form; refusals change nothing', async () => {
      const page = await web.get('org/Acme-Corp/settings');
      expect(page.status).to.equal(200);
      expect(page.text).to.include('Organization avatar').and.to.include('Rename this organization');
      const before = await orgAvatar();
      const bobWeb = await WebClient.signedIn(w, bob);
      await bobWeb.get('user/settings');
      expect((await bobWeb.upload('org/Acme-Corp/settings/avatar', { field: 'avatar', name: 'a.png', content: await png(30, 30) })).status).to.equal(404);
      expect((await web.upload('org/Acme-Corp/settings/avatar', { field: 'avatar', name: 'a.svg', content: SVG })).status).to.equal(303);
      expect((await web.get('org/Acme-Corp/settings')).text).to.include('PNG, JPEG, GIF or WebP');
      expect(await orgAvatar()).to.equal(before);
      const up = await web.upload('org/Acme-Corp/settings/avatar', { field: 'avatar', name: 'a.png', content: await png(90, 60) }, { crop_x: '10', crop_y: '0', crop_size: '60' });
      expect(up.status).to.equal(303);
      const set = await orgAvatar();
      expect(set).to.match(/\/avatars\/\d+-[0-9a-f]{32}$/);
      await web.get('org/Acme-Corp/settings');
      expect((await web.form('org/Acme-Corp/settings/avatar/delete', {})).status).to.equal(303);
      expect(await orgAvatar()).to.equal(before);
    });

    it('sets and deletes the repository avatar with the settings form, shown in the header', async () => {
      await web.get('Acme-Corp/widgets/settings');
      expect((await web.upload('Acme-Corp/widgets/settings/avatar', { field: 'avatar', name: 'r.png', content: await png(40, 40) })).status).to.equal(303);
      const url = await repoAvatar();
      expect(url).to.match(/\/repo-avatars\/\d+-[0-9a-f]{32}$/);
      expect((await web.get('Acme-Corp/widgets')).text).to.include(`class="avatar repo-avatar" src="${url}"`);
      const bobWeb = await WebClient.signedIn(w, bob);
      await bobWeb.get('user/settings');
      expect((await bobWeb.form('Acme-Corp/widgets/settings/avatar/delete', {})).status).to.equal(404);
      expect(await repoAvatar()).to.equal(url);
      await web.get('Acme-Corp/widgets/settings');
      expect((await web.form('Acme-Corp/widgets/settings/avatar/delete', {})).status).to.equal(303);
      expect(await repoAvatar()).to.equal('');
    });

    it('renames the organization with the danger zone form after the name is typed again', async () => {
      await web.get('org/Acme-Corp/settings');
      const wrong = await web.form('org/Acme-Corp/settings/rename', { org_name: 'acme', new_org_name: 'acme-inc' });
      expect(wrong.location).to.equal('/org/Acme-Corp/settings');
      expect((await web.get('org/Acme-Corp/settings')).text).to.include('type the current name of the organization');
      expect((await web.form('org/Acme-Corp/settings/rename', { org_name: 'Acme-Corp', new_org_name: 'carol' })).location).to.equal('/org/Acme-Corp/settings');
      expect(await orgName('Acme-Corp')).to.equal('Acme-Corp');
      await web.get('org/Acme-Corp/settings');
      const done = await web.form('org/Acme-Corp/settings/rename', { org_name: 'Acme-Corp', new_org_name: 'acme-inc' });
      expect(done.status).to.equal(303);
      expect(done.location).to.equal('/org/acme-inc/settings');
      expect(await orgName('acme-inc')).to.equal('acme-inc');
      expect((await web.get('org/acme-inc/settings')).text).to.include('is now acme-inc');
    });
  });
});
