/**
 * The user's account in the browser's HTTP side: the password changed with the current one (then
 * used by git over HTTP and the API; other sessions and remembered browsers signed out), sign-in by
 * email, "remember me" (a hashed, rotating, single-use long-lived cookie), email addresses (added,
 * confirmed through the mail, made primary), the profile's visibility, deleting one's account,
 * an administrator's new password with must_change_password (the user held on
 * /user/change_password), and the lists (repositories, organizations with Leave, the user's
 * webhooks). Each refusal is shown to change nothing.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { WebClient } from '../helpers/web';
import { MailSink, linksOf } from '../helpers/mail';
import sharp from 'sharp';
import { count, sql } from '../helpers/db';

const run = promisify(execFile);

describe('account settings in the browser', function () {
  this.timeout(120_000);
  let w: World;
  let sink: MailSink;

  /** Does `name` + `password` authenticate on the API with HTTP Basic? */
  const basicWorks = async (name: string, password: string) => (await w.raw('GET', '/user', undefined, { basic: [name, password] })).status === 200;
  /** Does git over HTTP accept `name` + `password` for this repository? */
  const gitWorks = async (name: string, password: string, repo: string) => {
    const u = new URL(`${w.server.url}${repo}.git`);
    u.username = name;
    u.password = password;
    try {
      await run('git', ['ls-remote', u.toString()], { env: { ...process.env, GIT_TERMINAL_PROMPT: '0' } });
      return true;
    } catch {
      return false;
    }
  };
  const me = async (u: TestUser) => (await w.raw('GET', '/user', undefined, { token: u.token })).body as Record<string, unknown>;

  before(async () => {
    sink = await MailSink.start();
    w = await startWorld({ env: sink.env({ FORGE__SERVICE__REGISTER_EMAIL_CONFIRM: 'true', FORGE__WEBHOOK__ALLOWED_HOST_LIST: 'loopback' }) });
  });
  after(async () => {
    await w?.stop();
    await sink?.close();
  });

  describe('password', () => {
    it('changes with the current password; git and the API take the new one; other browsers are signed out', async () => {
      const u = await w.user();
      expect((await w.raw('POST', '/user/repos', { name: 'code', auto_init: true, private: true }, { token: u.token })).status).to.equal(201);
      const a = await WebClient.signedIn(w, u);
      const other = await WebClient.signedIn(w, u);
      const page = await a.get('user/settings/account');
      expect(page.status).to.equal(200);
      expect(page.text).to.include('name="old_password"').and.include('class="active" href="/user/settings/account">Account</a>');
      expect((await a.form('user/settings/account', { old_password: u.password, password: 'a-new-secret-9', retype: 'a-new-secret-9' })).status).to.equal(303);
      expect((await a.get('user/settings/account')).text).to.include('Your password has been changed.');
      expect(await gitWorks(u.name, 'a-new-secret-9', `${u.name}/code`)).to.equal(true);
      expect(await gitWorks(u.name, u.password, `${u.name}/code`)).to.equal(false);
      expect(await basicWorks(u.name, 'a-new-secret-9')).to.equal(true);
      expect((await a.get('user/settings')).status, 'this browser stays signed in').to.equal(200);
      expect((await other.get('user/settings')).status, 'the other browser is signed out').to.equal(303);
    });

    it('refuses a wrong current password, a retype that differs and a short password, changing nothing', async () => {
      const u = await w.user();
      const a = await WebClient.signedIn(w, u);
      await a.get('user/settings/account');
      for (const [fields, message] of [
        [{ old_password: 'not-it-at-all', password: 'fine-password-1', retype: 'fine-password-1' }, 'The current password is incorrect.'],
        [{ old_password: u.password, password: 'fine-password-1', retype: 'fine-password-2' }, 'The passwords do not match.'],
        [{ old_password: u.password, password: 'short', retype: 'short' }, 'Password'],
      ] as const) {
        expect((await a.form('user/settings/account', fields)).status).to.equal(303);
        expect((await a.get('user/settings/account')).text, message).to.include(message);
      }
      expect(await basicWorks(u.name, u.password)).to.equal(true);
      expect(await basicWorks(u.name, 'fine-password-1')).to.equal(false);
    });
  });

  describe('signing in', () => {
    it('takes the email address (any of the account\'s) in place of the name, in the browser and with HTTP Basic', async () => {
      const u = await w.user();
      const c = new WebClient(w);
      const res = await c.signIn(u.email.toUpperCase(), u.password);
      expect(res.status).to.equal(303);
      expect((await c.get('user/settings')).text).to.include(u.name);
      expect(await basicWorks(u.email, u.password)).to.equal(true);
      expect(await basicWorks(u.email, 'wrong-password')).to.equal(false);
      expect((await new WebClient(w).signIn('nobody@example.com', u.password)).status).to.equal(401);
    });

    it('remembers a browser with a hashed, single-use cookie that rotates, and forgets it on sign-out and on a new password', async () => {
      const u = await w.user();
      const c = new WebClient(w);
      await c.get('user/login');
      const res = await c.form('user/login', { user_name: u.name, password: u.password, remember: 'on' });
      const cookie = res.headers.getSetCookie().find((h) => h.startsWith('gitea_incredible='))!;
      expect(cookie, 'the long-lived cookie').to.be.a('string');
      expect(Number(/Max-Age=(\d+)/i.exec(cookie)![1])).to.equal(31 * 86400);
      expect(cookie).to.match(/HttpOnly/i);
      const value = decodeURIComponent(cookie.split(';')[0].split('=')[1]);
      const [id, validator] = value.split(':');
      const rows = await sql(w.server, 'SELECT token_hash, user_id FROM auth_token WHERE id = $1', [id]);
      expect(rows).to.have.length(1);
      expect(rows[0].token_hash).to.have.length(64);
      expect(rows[0].token_hash).not.to.equal(validator);
      expect(Number(rows[0].user_id)).to.equal(u.id);

      // The session gone (the browser closed), the remembered cookie signs in again and is replaced.
      const later = new WebClient(w);
      const back = await later.request('GET', 'user/settings', { headers: { Cookie: `gitea_incredible=${value}` } });
      expect(back.status).to.equal(200);
      const rotated = back.headers.getSetCookie().find((h) => h.startsWith('gitea_incredible='))!;
      expect(rotated).to.be.a('string').and.not.include(value);
      // The old value opens nothing any more (used once).
      const replay = await new WebClient(w).request('GET', 'user/settings', { headers: { Cookie: `gitea_incredible=${value}` } });
      expect(replay.status).to.equal(303);
      expect(replay.headers.getSetCookie().join()).to.match(/gitea_incredible=;/);

      // Signing out forgets the token the browser holds.
      await later.get('user/settings');
      await later.form('user/logout', {});
      const newValue = decodeURIComponent(rotated.split(';')[0].split('=')[1]);
      expect(await count(w.server, 'SELECT COUNT(*) AS n FROM auth_token WHERE id = $1', [newValue.split(':')[0]])).to.equal(0);

      // A new password forgets every remembered browser of the account.
      const d = new WebClient(w);
      await d.get('user/login');
      await d.form('user/login', { user_name: u.name, password: u.password, remember: 'on' });
      expect(await count(w.server, 'SELECT COUNT(*) AS n FROM auth_token WHERE user_id = $1', [u.id])).to.equal(1);
      await d.get('user/settings/account');
      await d.form('user/settings/account', { old_password: u.password, password: 'another-pass-77', retype: 'another-pass-77' });
      expect(await count(w.server, 'SELECT COUNT(*) AS n FROM auth_token WHERE user_id = $1', [u.id])).to.equal(0);
    });
  });

  describe('email addresses', () => {
    it('adds one, mails its confirmation, refuses it as primary until confirmed, then makes it primary', async () => {
      const u = await w.user();
      const a = await WebClient.signedIn(w, u);
      await a.get('user/settings/account');
      const extra = `${u.name}-work@example.com`;
      await a.form('user/settings/account/email', { action: 'add', email: extra });
      expect((await a.get('user/settings/account')).text).to.include(`A confirmation mail has been sent to ${extra}`).and.include('Not confirmed');
      await a.form('user/settings/account/email', { action: 'primary', email: extra });
      expect((await a.get('user/settings/account')).text).to.include('is not confirmed yet');
      expect((await me(u)).email).to.equal(u.email);

      const [mail] = await sink.waitFor((r) => r.rcpt[0] === extra);
      const link = linksOf(mail).find((l) => l.includes('/user/activate_email'))!;
      const confirmed = await a.get(link);
      expect(confirmed.status).to.equal(303);
      await a.get('user/settings/account');
      await a.form('user/settings/account/email', { action: 'primary', email: extra });
      expect((await a.get('user/settings/account')).text).to.include(`${extra} is now your primary email address.`);
      expect((await me(u)).email).to.equal(extra);
      // The old primary is now an ordinary address; the new primary cannot be deleted.
      await a.form('user/settings/account/email', { action: 'delete', email: extra });
      expect((await a.get('user/settings/account')).text).to.include('primary email address cannot be deleted');
      expect((await me(u)).email).to.equal(extra);
    });

    it("refuses another user's address as primary, and sends the old /user/settings/emails to the account page", async () => {
      const [u, v] = [await w.user(), await w.user()];
      const a = await WebClient.signedIn(w, u);
      const old = await a.get('user/settings/emails');
      expect(old.status).to.equal(301);
      expect(old.location).to.equal(`${w.server.url}user/settings/account`);
      await a.get('user/settings/account');
      await a.form('user/settings/account/email', { action: 'primary', email: v.email });
      expect((await a.get('user/settings/account')).text).to.include('email address does not exist');
      expect((await me(u)).email).to.equal(u.email);
      expect((await me(v)).email).to.equal(v.email);
    });
  });

  describe('profile', () => {
    it('sets the visibility; a bad one is refused with the rest of the form', async () => {
      const u = await w.user();
      const a = await WebClient.signedIn(w, u);
      await a.get('user/settings');
      await a.form('user/settings', { full_name: 'Private Person', visibility: 'private' });
      expect((await me(u)).visibility).to.equal('private');
      expect((await w.raw('GET', `/users/${u.name}`)).status, 'hidden from visitors').to.equal(404);
      await a.get('user/settings');
      await a.form('user/settings', { full_name: 'Changed Name', visibility: 'everyone' });
      expect((await a.get('user/settings')).text).to.include('visibility must be one of');
      expect(await me(u)).to.include({ full_name: 'Private Person', visibility: 'private' });
    });
  });

  describe('avatar', () => {
    const png = (width: number, height: number) => sharp({ create: { width, height, channels: 3, background: '#3366cc' } }).png().toBuffer();
    const avatarOf = async (u: TestUser) => String((await me(u)).avatar_url);

    it('takes a picture cropped to the square chosen, stores a PNG the forge made, and deletes it', async () => {
      const u = await w.user();
      const a = await WebClient.signedIn(w, u);
      const generated = await avatarOf(u);
      expect(generated).to.match(/\/avatars\/identicon-/);
      await a.get('user/settings');
      const res = await a.upload('user/settings/avatar', { field: 'avatar', name: 'me.png', content: await png(300, 200) }, { crop_x: '60', crop_y: '10', crop_size: '150' });
      expect(res.status).to.equal(303);
      expect((await a.get('user/settings')).text).to.include('Your avatar has been updated.');
      const url = await avatarOf(u);
      expect(url).to.match(new RegExp(`/avatars/${u.id}-[0-9a-f]{32}$`));
      const served = await fetch(url);
      expect(served.headers.get('content-type')).to.equal('image/png');
      const meta = await sharp(Buffer.from(await served.arrayBuffer())).metadata();
      expect([meta.format, meta.width, meta.height]).to.deep.equal(['png', 150, 150]);

      await a.get('user/settings');
      await a.form('user/settings/avatar/delete', {});
      expect(await avatarOf(u)).to.equal(generated);
      expect((await fetch(url)).status, 'the file is gone').to.equal(404);
    });

    it('crops the middle without a choice, and refuses SVG, a picture too large, a crop outside it and bytes that are no picture, changing nothing', async () => {
      const u = await w.user();
      const a = await WebClient.signedIn(w, u);
      await a.get('user/settings');
      await a.upload('user/settings/avatar', { field: 'avatar', name: 'wide.png', content: await png(900, 300) });
      const kept = await avatarOf(u);
      const meta = await sharp(Buffer.from(await (await fetch(kept)).arrayBuffer())).metadata();
      expect([meta.width, meta.height]).to.deep.equal([300, 300]);
      const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script></svg>';
      const garbage = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(200, 7)]);
      for (const [file, fields, message] of [
        [{ name: 'x.svg', content: svg }, {}, 'must be a PNG, JPEG, GIF or WebP'],
        [{ name: 'big.png', content: await png(4097, 2) }, {}, 'at most 4096x4096 pixels'],
        [{ name: 'huge.bin', content: Buffer.alloc(1024 * 1024 + 1, 0) }, {}, 'larger than 1048576 bytes'],
        [{ name: 'me.png', content: await png(100, 100) }, { crop_x: '50', crop_y: '0', crop_size: '60' }, 'not valid'],
        [{ name: 'me.png', content: await png(100, 100) }, { crop_x: '-1', crop_y: '0', crop_size: '10' }, 'not valid'],
        [{ name: 'no.png', content: garbage }, {}, 'not a picture'],
      ] as const) {
        await a.get('user/settings');
        await a.upload('user/settings/avatar', { field: 'avatar', ...file }, fields);
        expect((await a.get('user/settings')).text, message).to.include(message);
        expect(await avatarOf(u), message).to.equal(kept);
      }
      expect((await a.upload('user/settings/avatar', { field: 'avatar', name: 'me.png', content: await png(50, 50) }, {}, { csrf: null })).status).to.equal(403);
      expect(await avatarOf(u)).to.equal(kept);
    });
  });

  describe('deleting one\'s account', () => {
    it('asks for the password, refuses while repositories are owned and for an administrator, then deletes', async () => {
      const u = await w.user();
      const a = await WebClient.signedIn(w, u);
      expect((await w.raw('POST', '/user/repos', { name: 'mine' }, { token: u.token })).status).to.equal(201);
      await a.get('user/settings/account');
      await a.form('user/settings/account/delete', { password: 'wrong-one-1234' });
      expect((await a.get('user/settings/account')).text).to.include('The password you entered is incorrect.');
      await a.form('user/settings/account/delete', { password: u.password });
      expect((await a.get('user/settings/account')).text).to.include('user still has ownership of repositories');
      expect(await basicWorks(u.name, u.password)).to.equal(true);

      expect((await w.raw('DELETE', `/repos/${u.name}/mine`, undefined, { token: u.token })).status).to.equal(204);
      await a.get('user/settings/account');
      const res = await a.form('user/settings/account/delete', { password: u.password });
      expect(res.status).to.equal(303);
      expect(res.location).to.equal(w.server.url);
      expect((await w.raw('GET', `/users/${u.name}`, undefined, { token: w.admin.token })).status).to.equal(404);
      expect((await a.get('user/settings')).status, 'signed out').to.equal(303);

      const admin = await WebClient.signedIn(w, w.admin);
      const page = await admin.get('user/settings/account');
      expect(page.text).to.include('A site administrator cannot delete their own account');
      await admin.form('user/settings/account/delete', { password: w.admin.password });
      expect((await admin.get('user/settings/account')).text).to.include('A site administrator cannot delete their own account.');
      expect((await w.raw('GET', '/users/root', undefined, { token: w.admin.token })).status).to.equal(200);
    });

    it('is not offered when [admin] USER_DISABLED_FEATURES has deletion: the form is gone and its POST is 404', async () => {
      const w2 = await startWorld({ env: { FORGE__ADMIN__USER_DISABLED_FEATURES: 'deletion' } });
      try {
        const u = await w2.user();
        const a = await WebClient.signedIn(w2, u);
        expect((await a.get('user/settings/account')).text).not.to.include('Delete your account');
        expect((await a.form('user/settings/account/delete', { password: u.password })).status).to.equal(404);
        expect((await w2.raw('GET', `/users/${u.name}`, undefined, { token: w2.admin.token })).status).to.equal(200);
      } finally {
        await w2.stop();
      }
    });
  });

  describe('an administrator\'s new password', () => {
    it('sets a password and must_change_password; the user is held on /user/change_password until they choose one', async () => {
      const u = await w.user();
      const admin = await WebClient.signedIn(w, w.admin);
      const edit = await admin.get(`admin/users/${u.name}`);
      expect(edit.text).to.include('name="must_change_password"');
      await admin.form(`admin/users/${u.name}`, { full_name: '', email: u.email, active: 'on', password: 'given-by-admin-1', must_change_password: 'on' });
      expect(await basicWorks(u.name, u.password)).to.equal(false);
      expect((await w.raw('GET', '/user', undefined, { basic: [u.name, 'given-by-admin-1'] })).status, 'the API says to change it').to.equal(403);

      const c = new WebClient(w);
      await c.signIn(u.name, 'given-by-admin-1');
      const held = await c.get(`${u.name}?tab=repositories`);
      expect(held.status).to.equal(303);
      expect(held.location).to.equal(`/user/change_password?redirect_to=${encodeURIComponent(`/${u.name}?tab=repositories`)}`);
      expect((await c.get('user/settings/account')).location).to.match(/\/user\/change_password/);
      const form = await c.get(held.location!);
      expect(form.status).to.equal(200);
      await c.form('user/change_password', { password: 'chosen-by-me-22', retype: 'chosen-by-me-23', redirect_to: `/${u.name}?tab=repositories` });
      expect((await c.get('user/change_password')).text).to.include('The passwords do not match.');
      expect(await basicWorks(u.name, 'chosen-by-me-22')).to.equal(false);
      const done = await c.form('user/change_password', { password: 'chosen-by-me-22', retype: 'chosen-by-me-22', redirect_to: `/${u.name}?tab=repositories` });
      expect(done.location).to.equal(`/${u.name}?tab=repositories`);
      expect((await c.get('user/settings')).status).to.equal(200);
      expect(await basicWorks(u.name, 'chosen-by-me-22')).to.equal(true);
    });

    it('is refused to a non-administrator with a 404, changing nothing', async () => {
      const [u, v] = [await w.user(), await w.user()];
      const c = await WebClient.signedIn(w, u);
      await c.get('user/settings');
      const res = await c.form(`admin/users/${v.name}`, { email: v.email, password: 'taken-over-123', must_change_password: 'on', active: 'on' });
      expect(res.status).to.equal(404);
      expect(await basicWorks(v.name, v.password)).to.equal(true);
    });
  });

  describe('lists', () => {
    it('lists the own repositories and organizations; Leave refuses the last owner; the user\'s webhooks are theirs alone', async () => {
      const [u, v] = [await w.user(), await w.user()];
      expect((await w.raw('POST', '/user/repos', { name: 'listed', private: true }, { token: u.token })).status).to.equal(201);
      const org = `org${u.name}`;
      expect((await w.raw('POST', '/orgs', { username: org }, { token: u.token })).status).to.equal(201);
      const a = await WebClient.signedIn(w, u);
      expect((await a.get('user/settings/repos')).text).to.include(`href="/${u.name}/listed"`);
      const orgs = await a.get('user/settings/organization');
      expect(orgs.text).to.include(`href="/${org}"`);
      await a.form('user/settings/organization/leave', { org });
      expect((await a.get('user/settings/organization')).text).to.match(/last owner|owner/i);
      expect((await w.raw('GET', `/orgs/${org}/members/${u.name}`, undefined, { token: u.token })).status).to.equal(204);

      await a.get('user/settings/hooks/new');
      const made = await a.form('user/settings/hooks/new', { url: 'http://127.0.0.1:9/u-hook', content_type: 'json', events: 'all', active: 'on', branch_filter: '*' });
      expect(made.status).to.equal(303);
      expect((await a.get(made.location!)).text).to.include('127.0.0.1:9/u-hook');
      const hooks = (await w.raw('GET', '/user/hooks', undefined, { token: u.token })).body as { config: { url: string } }[];
      expect(hooks.map((h) => h.config.url)).to.deep.equal(['http://127.0.0.1:9/u-hook']);
      const b = await WebClient.signedIn(w, v);
      expect((await b.get('user/settings/hooks')).text).not.to.include('127.0.0.1:9/u-hook');
      expect((await w.raw('GET', '/user/hooks', undefined, { token: v.token })).body).to.deep.equal([]);
    });
  });
});
