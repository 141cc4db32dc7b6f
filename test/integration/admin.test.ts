/**
 * Site administration of users: list, edit, delete, rename, emails and badges under /admin.
 * gitea-js for every operation, raw HTTP for errors and headers, SQL for rows the API does not show.
 */
import { expect } from 'chai';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { sql, count, insert, insertOrg, insertRepo } from '../helpers/db';

const BLOCKED_DOMAIN = 'blocked.example';

describe('admin users API', function () {
  let w: World;
  let nonAdmin: TestUser;
  before(async () => {
    w = await startWorld({ env: { FORGE__SERVICE__EMAIL_DOMAIN_BLOCKLIST: BLOCKED_DOMAIN } });
    nonAdmin = await w.user('plain');
  });
  after(async () => { await w?.stop(); });

  /** The full (admin view of a) user, read back through the admin list. */
  async function reread(name: string) {
    const rows = await sql(w.server, 'SELECT login_name FROM users WHERE lower_name = $1', [name.toLowerCase()]);
    if (rows.length === 0) return null;
    const res = await w.admin.api.admin.adminSearchUsers({ login_name: rows[0].login_name, limit: 50 });
    return res.data.find((u) => u.login === name) ?? null;
  }

  describe('permissions', () => {
    const routes: [string, string, unknown?][] = [
      ['GET', '/admin/users'],
      ['PATCH', '/admin/users/plain', { login_name: 'hijacked', admin: true }],
      ['DELETE', '/admin/users/plain'],
      ['POST', '/admin/users/plain/rename', { new_username: 'renamed' }],
      ['GET', '/admin/emails'],
      ['GET', '/admin/emails/search?q=a'],
      ['GET', '/admin/users/plain/badges'],
      ['POST', '/admin/users/plain/badges', { badge_slugs: [] }],
    ];

    it('answers 403 to signed-in users who are not site administrators, and changes nothing', async () => {
      for (const [method, path, body] of routes) {
        const res = await w.raw(method, path, body, { token: nonAdmin.token });
        expect(res.status, `${method} ${path}`).to.equal(403);
        expect(res.body.message).to.equal('user should be the site admin');
      }
      const me = await reread('plain');
      expect(me).to.not.equal(null);
      expect(me!.is_admin).to.equal(false);
      expect(me!.login_name).to.equal('plain');
    });

    it('answers 401 to anonymous callers', async () => {
      for (const [method, path, body] of routes) {
        const res = await w.raw(method, path, body);
        expect(res.status, `${method} ${path}`).to.equal(401);
        expect(res.body.message).to.equal('token is required');
      }
    });

    it('needs the admin scope on the token of an administrator', async () => {
      const tok = await w.raw('POST', '/users/root/tokens', { name: 'read-user-only', scopes: ['read:user'] }, { basic: ['root', w.admin.password] });
      expect(tok.status).to.equal(201);
      const res = await w.raw('GET', '/admin/users', undefined, { token: tok.body.sha1 });
      expect(res.status).to.equal(403);
      expect(res.body.message).to.equal('token does not have at least one of required scope(s), required=[read:admin], token scope=read:user');
    });
  });

  describe('GET /admin/users', () => {
    before(async () => {
      await w.user('Zeta');
      await w.user('alpha');
      await w.user('Mike');
      await insertOrg(w.server, 'an-org', [w.admin.id]);
      await w.raw('POST', '/admin/users', { username: 'extuser', email: 'ext@example.com', password: 'password-123', login_name: 'ext-login', source_id: 7 }, { token: w.admin.token });
    });

    it('lists individual users only, alphabetically regardless of case, with paging headers', async () => {
      const res = await w.admin.api.admin.adminSearchUsers({ limit: 50 });
      const names = res.data.map((u) => u.login!);
      expect(names).to.not.include('an-org');
      expect(names).to.include.members(['root', 'plain', 'Zeta', 'alpha', 'Mike', 'extuser']);
      expect(names).to.deep.equal([...names].sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase())));
      // the admin sees the authed-only fields
      const root = res.data.find((u) => u.login === 'root')!;
      expect(root.is_admin).to.equal(true);
      expect(root.email).to.equal('root@example.com');

      const page = await w.raw('GET', '/admin/users?limit=2&page=2', undefined, { token: w.admin.token });
      expect(page.status).to.equal(200);
      expect(page.body).to.have.length(2);
      expect(page.body.map((u: { login: string }) => u.login)).to.deep.equal(names.slice(2, 4));
      expect(page.headers.get('x-total-count')).to.equal(String(names.length));
      const link = page.headers.get('link')!;
      expect(link).to.include('rel="next"').and.include('rel="prev"').and.include('rel="first"').and.include('rel="last"');
      expect(link).to.include(`${w.server.url}api/v1/admin/users?`);
    });

    it('filters by login_name and by source_id', async () => {
      const byLogin = await w.admin.api.admin.adminSearchUsers({ login_name: 'ext-login' });
      expect(byLogin.data.map((u) => u.login)).to.deep.equal(['extuser']);
      const bySource = await w.admin.api.admin.adminSearchUsers({ source_id: 7 });
      expect(bySource.data.map((u) => u.login)).to.deep.equal(['extuser']);
      const none = await w.raw('GET', '/admin/users?login_name=nobody', undefined, { token: w.admin.token });
      expect(none.body).to.deep.equal([]);
      expect(none.headers.get('x-total-count')).to.equal('0');
    });
  });

  describe('PATCH /admin/users/{username}', () => {
    let ed: TestUser;
    before(async () => { ed = await w.user('editme'); });

    it('edits every field given and returns the user', async () => {
      const res = await w.admin.api.admin.adminEditUser('editme', {
        source_id: 0, login_name: 'editme-login', full_name: 'Ed Itme', location: 'Berlin', description: 'hello',
        website: 'https://ed.example.com', visibility: 'limited', max_repo_creation: 5, allow_git_hook: true,
        allow_import_local: true, allow_create_organization: false, restricted: true, must_change_password: false,
      });
      expect(res.status).to.equal(200);
      expect(res.data).to.include({
        login: 'editme', login_name: 'editme-login', full_name: 'Ed Itme', location: 'Berlin', description: 'hello',
        website: 'https://ed.example.com', visibility: 'limited', restricted: true, is_admin: false, active: true,
      });
      const [row] = await sql(w.server, 'SELECT * FROM users WHERE lower_name = $1', ['editme']);
      expect(Number(row.max_repo_creation)).to.equal(5);
      expect(!!row.allow_git_hook).to.equal(true);
      expect(!!row.allow_import_local).to.equal(true);
      expect(!!row.allow_create_organization).to.equal(false);
      // fields not given stay as they are
      const again = await w.admin.api.admin.adminEditUser('editme', { source_id: 0, login_name: 'editme-login' });
      expect(again.data).to.include({ full_name: 'Ed Itme', location: 'Berlin', visibility: 'limited', restricted: true });
    });

    it('requires login_name (missing or empty) with a clear 422, and changes nothing', async () => {
      const missing = await w.raw('PATCH', '/admin/users/editme', { full_name: 'Changed' }, { token: w.admin.token });
      expect(missing.status).to.equal(422);
      expect(missing.body.message).to.equal("login_name: 'login_name' is required");
      const empty = await w.raw('PATCH', '/admin/users/editme', { login_name: '', full_name: 'Changed' }, { token: w.admin.token });
      expect(empty.status).to.equal(422);
      expect(empty.body.message).to.equal('[LoginName]: Required');
      expect((await reread('editme'))!.full_name).to.equal('Ed Itme');
    });

    it('refuses a bad website and a bad visibility with 422, and changes nothing', async () => {
      const site = await w.raw('PATCH', '/admin/users/editme', { login_name: 'x', full_name: 'Changed', website: 'javascript:alert(1)' }, { token: w.admin.token });
      expect(site.status).to.equal(422);
      expect(site.body.message).to.equal('[Website]: Url');
      const vis = await w.raw('PATCH', '/admin/users/editme', { login_name: 'x', full_name: 'Changed', visibility: 'secret' }, { token: w.admin.token });
      expect(vis.status).to.equal(422);
      expect(vis.body.message).to.match(/visibility/);
      const long = await w.raw('PATCH', '/admin/users/editme', { login_name: 'x', location: 'x'.repeat(51) }, { token: w.admin.token });
      expect(long.status).to.equal(422);
      const now = (await reread('editme'))!;
      expect(now.full_name).to.equal('Ed Itme');
      expect(now.login_name).to.equal('editme-login');
      expect(now.website).to.equal('https://ed.example.com');
      expect(now.location).to.equal('Berlin');
    });

    it('answers 404 for an unknown user and 422 for an organization', async () => {
      const res = await w.raw('PATCH', '/admin/users/nobody-here', { login_name: 'x' }, { token: w.admin.token });
      expect(res.status).to.equal(404);
      const org = await w.raw('PATCH', '/admin/users/an-org', { login_name: 'x' }, { token: w.admin.token });
      expect(org.status).to.equal(422);
      expect(org.body.message).to.equal('an-org is an organization not a user');
    });

    it('refuses a short password with 400 and keeps the old one', async () => {
      const res = await w.raw('PATCH', '/admin/users/editme', { login_name: 'editme-login', password: 'short' }, { token: w.admin.token });
      expect(res.status).to.equal(400);
      expect(res.body.message).to.equal('password must be at least 8 characters');
      const basic = await w.raw('GET', '/users/editme/tokens', undefined, { basic: ['editme', ed.password] });
      expect(basic.status).to.equal(200);
    });

    it('changes the password: the old one stops working, the new one works', async () => {
      await w.admin.api.admin.adminEditUser('editme', { source_id: 0, login_name: 'editme-login', password: 'a-new-password-1' });
      const old = await w.raw('GET', '/users/editme/tokens', undefined, { basic: ['editme', ed.password] });
      expect(old.status).to.equal(401);
      const fresh = await w.raw('GET', '/users/editme/tokens', undefined, { basic: ['editme', 'a-new-password-1'] });
      expect(fresh.status).to.equal(200);
      // as in Gitea, a password change does not revoke access tokens (only their cached lookups are dropped)
      const me = await w.raw('GET', '/users/editme/tokens', undefined, { basic: ['editme', ed.token] });
      expect(me.status).to.equal(200);
    });

    it('makes a new email the primary address and keeps the old one as secondary', async () => {
      const res = await w.admin.api.admin.adminEditUser('editme', { source_id: 0, login_name: 'editme-login', email: 'Ed.New@example.com' });
      expect(res.data.email).to.equal('Ed.New@example.com');
      expect(res.headers.get('x-gitea-warning')).to.equal(null);
      const emails = await w.admin.api.admin.adminSearchEmails({ q: 'editme' });
      const mine = emails.data.filter((e) => e.username === 'editme');
      expect(mine).to.deep.include({ email: 'Ed.New@example.com', primary: true, verified: true, user_id: ed.id, username: 'editme' });
      expect(mine).to.deep.include({ email: 'editme@example.com', primary: false, verified: true, user_id: ed.id, username: 'editme' });
      // switching back to the (own) old address makes it primary again without a new row
      await w.admin.api.admin.adminEditUser('editme', { source_id: 0, login_name: 'editme-login', email: 'editme@example.com' });
      const rows = await sql(w.server, 'SELECT email, is_primary FROM email_address WHERE uid = $1 ORDER BY id', [ed.id]);
      expect(rows.map((r) => [r.email, !!r.is_primary])).to.deep.equal([['editme@example.com', true], ['Ed.New@example.com', false]]);
    });

    it('refuses an email used by another user, or an invalid one, with 400 and changes nothing', async () => {
      const used = await w.raw('PATCH', '/admin/users/editme', { login_name: 'changed', email: 'PLAIN@example.com', full_name: 'Changed' }, { token: w.admin.token });
      expect(used.status).to.equal(400);
      expect(used.body.message).to.equal('e-mail already in use [email: PLAIN@example.com]');
      const bad = await w.raw('PATCH', '/admin/users/editme', { login_name: 'changed', email: 'not-an-email', full_name: 'Changed' }, { token: w.admin.token });
      expect(bad.status).to.equal(400);
      expect(bad.body.message).to.equal('e-mail invalid [email: not-an-email]');
      const now = (await reread('editme'))!;
      expect(now.email).to.equal('editme@example.com');
      expect(now.full_name).to.equal('Ed Itme');
      expect(now.login_name).to.equal('editme-login');
      expect(await count(w.server, 'SELECT COUNT(*) AS n FROM email_address WHERE uid = $1', [ed.id])).to.equal(2);
    });

    it('accepts an email of a blocked domain with an X-Gitea-Warning header', async () => {
      const email = `ed@${BLOCKED_DOMAIN}`;
      const res = await w.admin.api.admin.adminEditUser('editme', { source_id: 0, login_name: 'editme-login', email });
      expect(res.data.email).to.equal(email);
      expect(res.headers.get('x-gitea-warning')).to.equal(`the domain of user email ${email} conflicts with EMAIL_DOMAIN_ALLOWLIST or EMAIL_DOMAIN_BLOCKLIST`);
    });

    it('refuses to demote the last site administrator with 422 and changes nothing', async () => {
      const res = await w.raw('PATCH', '/admin/users/root', { login_name: 'root', admin: false, full_name: 'Not Root' }, { token: w.admin.token });
      expect(res.status).to.equal(422);
      expect(res.body.message).to.equal(`can not delete the last admin user [uid: ${w.admin.id}]`);
      const root = (await reread('root'))!;
      expect(root.is_admin).to.equal(true);
      expect(root.full_name).to.equal('');
    });

    it('promotes and demotes an administrator while another one is left', async () => {
      const up = await w.admin.api.admin.adminEditUser('editme', { source_id: 0, login_name: 'editme-login', admin: true });
      expect(up.data.is_admin).to.equal(true);
      const asAdmin = await w.raw('GET', '/admin/users', undefined, { token: ed.token });
      expect(asAdmin.status).to.equal(200);
      const down = await w.admin.api.admin.adminEditUser('editme', { source_id: 0, login_name: 'editme-login', admin: false });
      expect(down.data.is_admin).to.equal(false);
      const after = await w.raw('GET', '/admin/users', undefined, { token: ed.token });
      expect(after.status).to.equal(403);
    });

    it('shuts out a user at once when prohibited from signing in or deactivated, and lets them back in', async () => {
      const before = await w.raw('GET', '/users/editme/tokens', undefined, { basic: ['editme', ed.token] });
      expect(before.status).to.equal(200); // the token lookup is now cached
      const msg = 'This account is prohibited from signing in, please contact your site administrator.';
      for (const change of [{ prohibit_login: true }, { active: false }]) {
        await w.admin.api.admin.adminEditUser('editme', { source_id: 0, login_name: 'editme-login', ...change });
        const tokenRes = await w.raw('GET', '/users/editme/tokens', undefined, { token: ed.token });
        expect(tokenRes.status).to.equal(403);
        expect(tokenRes.body.message).to.equal(msg);
        const basicRes = await w.raw('GET', '/users/editme/tokens', undefined, { basic: ['editme', 'a-new-password-1'] });
        expect(basicRes.status).to.equal(403);
        await w.admin.api.admin.adminEditUser('editme', { source_id: 0, login_name: 'editme-login', prohibit_login: false, active: true });
        const back = await w.raw('GET', '/users/editme/tokens', undefined, { basic: ['editme', ed.token] });
        expect(back.status).to.equal(200);
      }
    });
  });

  describe('DELETE /admin/users/{username}', () => {
    it('refuses organizations, yourself and unknown users, and changes nothing', async () => {
      const org = await w.raw('DELETE', '/admin/users/an-org', undefined, { token: w.admin.token });
      expect(org.status).to.equal(422);
      expect(org.body.message).to.equal('an-org is an organization not a user');
      expect(await count(w.server, "SELECT COUNT(*) AS n FROM users WHERE lower_name = 'an-org'")).to.equal(1);
      const self = await w.raw('DELETE', '/admin/users/root', undefined, { token: w.admin.token });
      expect(self.status).to.equal(422);
      expect(self.body.message).to.equal('you cannot delete yourself');
      expect(await reread('root')).to.not.equal(null);
      const none = await w.raw('DELETE', '/admin/users/nobody-here', undefined, { token: w.admin.token });
      expect(none.status).to.equal(404);
    });

    it('refuses a member of organizations unless purge, then removes the memberships', async () => {
      const m = await w.user('member1');
      const orgId = await insertOrg(w.server, 'shared-org', [w.admin.id, m.id]);
      const res = await w.raw('DELETE', '/admin/users/member1', undefined, { token: w.admin.token });
      expect(res.status).to.equal(422);
      expect(res.body.message).to.equal(`user still has membership of organizations [uid: ${m.id}]`);
      expect((await w.raw('GET', '/users/member1/tokens', undefined, { basic: ['member1', m.token] })).status).to.equal(200);
      const del = await w.admin.api.admin.adminDeleteUser('member1', { purge: true });
      expect(del.status).to.equal(204);
      expect(await count(w.server, 'SELECT COUNT(*) AS n FROM org_user WHERE uid = $1', [m.id])).to.equal(0);
      expect(await count(w.server, 'SELECT COUNT(*) AS n FROM team_user WHERE uid = $1', [m.id])).to.equal(0);
      expect(await count(w.server, 'SELECT COUNT(*) AS n FROM org_user WHERE org_id = $1', [orgId])).to.equal(1);
    });

    it('refuses to purge the only owner of an organization, and changes nothing', async () => {
      const o = await w.user('soleowner');
      await insertOrg(w.server, 'solo-org', [o.id]);
      const res = await w.raw('DELETE', '/admin/users/soleowner?purge=true', undefined, { token: w.admin.token });
      expect(res.status).to.equal(422);
      expect(res.body.message).to.equal(`user is the last member of owner team [uid: ${o.id}]`);
      expect(await count(w.server, 'SELECT COUNT(*) AS n FROM team_user WHERE uid = $1', [o.id])).to.equal(1);
      expect(await reread('soleowner')).to.not.equal(null);
    });

    it('refuses an owner of repositories unless purge, which removes them', async () => {
      const o = await w.user('repoowner');
      const repoId = await insertRepo(w.server, o.id, 'repoowner', 'project');
      const res = await w.raw('DELETE', '/admin/users/repoowner', undefined, { token: w.admin.token });
      expect(res.status).to.equal(422);
      expect(res.body.message).to.equal(`user still has ownership of repositories [uid: ${o.id}]`);
      expect(await count(w.server, 'SELECT COUNT(*) AS n FROM repository WHERE owner_id = $1', [o.id])).to.equal(1);
      expect(await reread('repoowner')).to.not.equal(null);
      await w.admin.api.admin.adminDeleteUser('repoowner', { purge: true });
      expect(await count(w.server, 'SELECT COUNT(*) AS n FROM repository WHERE owner_id = $1', [o.id])).to.equal(0);
      expect(await count(w.server, 'SELECT COUNT(*) AS n FROM repo_unit WHERE repo_id = $1', [repoId])).to.equal(0);
    });

    it('deletes the user with tokens, emails, keys, follows, blocks and badges, fixing follow counters', async () => {
      const v = await w.user('victim');
      const fan = await w.user('fan');
      const idol = await w.user('idol');
      await insert(w.server, 'email_address', { uid: v.id, email: 'victim2@example.com', lower_email: 'victim2@example.com', is_activated: true, is_primary: false });
      await insert(w.server, 'public_key', { owner_id: v.id, name: 'k', fingerprint: 'SHA256:x', content: 'ssh-ed25519 AAAA', key_type: 'ssh-ed25519' });
      await insert(w.server, 'gpg_key', { owner_id: v.id, key_id: 'ABCDEF0123456789', content: 'x' });
      await insert(w.server, 'follow', { user_id: fan.id, follow_id: v.id });
      await insert(w.server, 'follow', { user_id: v.id, follow_id: idol.id });
      await sql(w.server, 'UPDATE users SET num_following = 1 WHERE id = $1', [fan.id]);
      await sql(w.server, 'UPDATE users SET num_followers = 1 WHERE id = $1', [idol.id]);
      await sql(w.server, 'UPDATE users SET num_followers = 1, num_following = 1 WHERE id = $1', [v.id]);
      await insert(w.server, 'user_blocking', { blocker_id: v.id, blockee_id: nonAdmin.id });
      await insert(w.server, 'user_blocking', { blocker_id: nonAdmin.id, blockee_id: v.id });
      expect((await w.server.cli(['admin', 'badge', 'create', '--slug', 'victim-badge'])).code).to.equal(0);
      await w.admin.api.admin.adminAddUserBadges('victim', { badge_slugs: ['victim-badge'] });
      // the token works (and is now cached) before the delete
      expect((await w.raw('GET', '/users/victim/tokens', undefined, { basic: ['victim', v.token] })).status).to.equal(200);

      const res = await w.admin.api.admin.adminDeleteUser('victim');
      expect(res.status).to.equal(204);

      for (const auth of [{ token: v.token }, { basic: ['victim', v.token] as [string, string] }]) {
        const gone = await w.raw('GET', '/users/victim/tokens', undefined, auth);
        expect(gone.status).to.equal(401);
        expect(gone.body.message).to.equal('user does not exist or token is invalid');
      }
      for (const [table, col] of [['access_token', 'uid'], ['email_address', 'uid'], ['public_key', 'owner_id'], ['gpg_key', 'owner_id'],
        ['user_badge', 'user_id'], ['follow', 'user_id'], ['follow', 'follow_id'], ['user_blocking', 'blocker_id'], ['user_blocking', 'blockee_id']]) {
        expect(await count(w.server, `SELECT COUNT(*) AS n FROM ${table} WHERE ${col} = $1`, [v.id]), `${table}.${col}`).to.equal(0);
      }
      expect(await reread('victim')).to.equal(null);
      expect((await reread('fan'))!.following_count).to.equal(0);
      expect((await reread('idol'))!.followers_count).to.equal(0);
      // the badge definition stays; the name and email can be used again
      expect(await count(w.server, "SELECT COUNT(*) AS n FROM badge WHERE slug = 'victim-badge'")).to.equal(1);
      await w.user('victim');
    });
  });

  describe('POST /admin/users/{username}/rename', () => {
    let r: TestUser;
    before(async () => {
      r = await w.user('oldname');
      await insertRepo(w.server, r.id, 'oldname', 'stuff');
    });

    it('renames the user and the owner name of its repositories', async () => {
      const res = await w.admin.api.admin.adminRenameUser('oldname', { new_username: 'newname' });
      expect(res.status).to.equal(204);
      expect(await reread('oldname')).to.equal(null);
      expect((await reread('newname'))!.id).to.equal(r.id);
      const [repo] = await sql(w.server, 'SELECT owner_name FROM repository WHERE owner_id = $1', [r.id]);
      expect(repo.owner_name).to.equal('newname');
      expect((await w.raw('GET', '/users/newname/tokens', undefined, { basic: ['newname', r.password] })).status).to.equal(200);
      // a change of capitalization only is allowed
      await w.admin.api.admin.adminRenameUser('newname', { new_username: 'NewName' });
      expect((await reread('NewName'))!.id).to.equal(r.id);
    });

    it('refuses taken, invalid, reserved and missing names with 422, and changes nothing', async () => {
      const cases: [unknown, RegExp | string][] = [
        [{ new_username: 'PLAIN' }, 'user already exists [name: PLAIN]'],
        [{ new_username: 'an-org' }, 'user already exists [name: an-org]'],
        [{ new_username: 'bad..name' }, /^\[NewName\]: name must start/],
        [{ new_username: '-x' }, /^\[NewName\]: /],
        [{ new_username: 'api' }, '[NewName]: name is reserved [name: api]'],
        [{ new_username: 'x.keys' }, /^\[NewName\]: name is reserved/],
        [{ new_username: '' }, '[NewName]: Required'],
        [{}, "new_username: 'new_username' is required"],
      ];
      for (const [body, msg] of cases) {
        const res = await w.raw('POST', '/admin/users/NewName/rename', body, { token: w.admin.token });
        expect(res.status, JSON.stringify(body)).to.equal(422);
        if (typeof msg === 'string') expect(res.body.message).to.equal(msg);
        else expect(res.body.message).to.match(msg);
      }
      expect((await reread('NewName'))!.id).to.equal(r.id);
      expect(await count(w.server, "SELECT COUNT(*) AS n FROM users WHERE lower_name = 'plain'")).to.equal(1);
    });

    it('refuses to rename an organization', async () => {
      const res = await w.raw('POST', '/admin/users/an-org/rename', { new_username: 'other-org' }, { token: w.admin.token });
      expect(res.status).to.equal(422);
      expect(res.body.message).to.equal('an-org is an organization not a user');
      expect(await count(w.server, "SELECT COUNT(*) AS n FROM users WHERE lower_name = 'an-org'")).to.equal(1);
    });
  });

  describe('GET /admin/emails', () => {
    it('lists every address with its owner, ordered by address, paginated', async () => {
      const all = await w.admin.api.admin.adminGetAllEmails({ limit: 50 });
      expect(all.data).to.deep.include({ email: 'root@example.com', verified: true, primary: true, user_id: w.admin.id, username: 'root' });
      const addrs = all.data.map((e) => e.email!.toLowerCase());
      // ordered as the database orders lower_email (its collation decides where punctuation goes)
      const ordered = await sql(w.server, 'SELECT e.lower_email FROM email_address e JOIN users u ON u.id = e.uid WHERE u.type = 0 ORDER BY e.lower_email, e.is_primary DESC, e.id');
      expect(addrs).to.deep.equal(ordered.map((r) => r.lower_email));
      const total = await count(w.server, 'SELECT COUNT(*) AS n FROM email_address');
      const page = await w.raw('GET', '/admin/emails?limit=1&page=2', undefined, { token: w.admin.token });
      expect(page.body).to.have.length(1);
      expect(page.body[0].email.toLowerCase()).to.equal(addrs[1]);
      expect(page.headers.get('x-total-count')).to.equal(String(total));
      expect(page.headers.get('link')).to.include('rel="next"');
    });

    it('searches by address, login or full name, case-insensitively, without wildcards', async () => {
      const byName = await w.admin.api.admin.adminSearchEmails({ q: 'ROOT' });
      expect(byName.data.map((e) => e.username)).to.deep.equal(['root']);
      const byAddr = await w.admin.api.admin.adminSearchEmails({ q: 'plain@' });
      expect(byAddr.data.map((e) => e.email)).to.deep.equal(['plain@example.com']);
      const byFull = await w.admin.api.admin.adminSearchEmails({ q: 'ed itme' });
      expect(byFull.data.every((e) => e.username === 'editme')).to.equal(true);
      expect(byFull.data.length).to.be.greaterThan(0);
      const wild = await w.raw('GET', '/admin/emails/search?q=%25', undefined, { token: w.admin.token });
      expect(wild.body).to.deep.equal([]);
      expect(wild.headers.get('x-total-count')).to.equal('0');
    });
  });

  describe('badges', () => {
    before(async () => {
      for (const slug of ['first', 'second']) {
        const out = await w.server.cli(['admin', 'badge', 'create', '--slug', slug, '--description', `The ${slug} badge`, '--image-url', `https://img.example.com/${slug}.png`]);
        expect(out.code, out.stderr).to.equal(0);
        expect(out.stdout).to.include(`New badge '${slug}' has been successfully created!`);
      }
    });

    it('refuses a duplicate badge slug in the CLI', async () => {
      const out = await w.server.cli(['admin', 'badge', 'create', '--slug', 'first', '--description', 'again']);
      expect(out.code).to.not.equal(0);
      expect(out.stderr).to.include('badge already exists [slug: first]');
      const [row] = await sql(w.server, "SELECT description FROM badge WHERE slug = 'first'");
      expect(row.description).to.equal('The first badge');
    });

    it('adds, lists and removes badges by slug', async () => {
      const add = await w.admin.api.admin.adminAddUserBadges('plain', { badge_slugs: ['first', 'second'] });
      expect(add.status).to.equal(204);
      const list = await w.admin.api.admin.adminListUserBadges('plain');
      expect(list.data).to.have.length(2);
      expect(list.data[0]).to.have.keys(['id', 'slug', 'description', 'image_url']);
      expect(list.data[0]).to.include({ slug: 'first', description: 'The first badge', image_url: 'https://img.example.com/first.png' });
      expect(list.headers.get('x-total-count')).to.equal('2');

      const del = await w.admin.api.admin.adminDeleteUserBadges('plain', { badge_slugs: ['first', 'no-such-badge'] });
      expect(del.status).to.equal(204);
      const after = await w.admin.api.admin.adminListUserBadges('plain');
      expect(after.data.map((b) => b.slug)).to.deep.equal(['second']);
    });

    it('adds the same badge twice as once', async () => {
      await w.admin.api.admin.adminAddUserBadges('plain', { badge_slugs: ['second', 'second'] });
      await w.admin.api.admin.adminAddUserBadges('plain', { badge_slugs: ['second'] });
      const list = await w.admin.api.admin.adminListUserBadges('plain');
      expect(list.data.map((b) => b.slug)).to.deep.equal(['second']);
      expect(await count(w.server, 'SELECT COUNT(*) AS n FROM user_badge WHERE user_id = $1', [nonAdmin.id])).to.equal(1);
    });

    it('refuses an unknown slug with 422 and adds none of the others', async () => {
      const res = await w.raw('POST', '/admin/users/plain/badges', { badge_slugs: ['first', 'nope'] }, { token: w.admin.token });
      expect(res.status).to.equal(422);
      expect(res.body.message).to.equal("badge with slug nope doesn't exist");
      const list = await w.admin.api.admin.adminListUserBadges('plain');
      expect(list.data.map((b) => b.slug)).to.deep.equal(['second']);
    });

    it('answers 404 for an unknown user', async () => {
      const res = await w.raw('GET', '/admin/users/nobody-here/badges', undefined, { token: w.admin.token });
      expect(res.status).to.equal(404);
    });

    it('documents the Badge type in the Swagger document', async () => {
      const res = await w.raw('GET', '//swagger.v1.json');
      expect(res.status).to.equal(200);
      const badge = res.body.definitions.Badge;
      expect(badge).to.be.an('object');
      expect(Object.keys(badge.properties)).to.have.members(['id', 'slug', 'description', 'image_url']);
      const op = res.body.paths['/admin/users/{username}/badges'].get;
      expect(op.responses['200'].schema.items.$ref).to.equal('#/definitions/Badge');
    });
  });
});
