/**
 * Self sign-up through the web form (`POST /user/sign_up`): the account works with HTTP Basic
 * afterwards; DISABLE_REGISTRATION and EMAIL_DOMAIN_ALLOWLIST refuse it and create nothing,
 * while the admin API still accepts such an address with a warning header.
 */
import { expect } from 'chai';
import { giteaApi } from 'gitea-js';
import { startWorld, type World } from '../helpers/world';
import { WebClient } from '../helpers/web';

interface Form { user_name: string; email: string; password: string; retype?: string }

/** Fill in the sign-up form as a browser does (its page first, for the session and CSRF token). */
async function signUp(w: World, f: Form): Promise<{ status: number; location: string | null; text: string; web: WebClient }> {
  const web = new WebClient(w);
  await web.get('user/sign_up');
  return { ...(await web.form('user/sign_up', { ...f, retype: f.retype ?? f.password })), web };
}

/** Does a user of this name exist (asked as the site admin, who sees everyone)? */
async function exists(w: World, name: string): Promise<boolean> {
  const res = await w.raw('GET', `/users/${name}`, undefined, { token: w.admin.token });
  return res.status === 200;
}

/** Is this email address used by any account? (Admins' searches match every email.) */
async function emailUsed(w: World, email: string): Promise<boolean> {
  const res = await w.admin.api.users.userSearch({ q: email });
  return (res.data.data ?? []).length > 0;
}

describe('sign-up', () => {
  let w: World;
  before(async () => { w = await startWorld(); });
  after(async () => { await w?.stop(); });

  it('creates an account, signed in at once, that can then authenticate with HTTP Basic', async () => {
    const res = await signUp(w, { user_name: 'newbie', email: 'newbie@example.com', password: 'newbie-pass-1' });
    expect(res.status).to.equal(303);
    expect(res.location).to.equal(w.server.url);
    expect((await res.web.get('user/settings')).status, 'the new account is signed in').to.equal(200);
    const api = giteaApi(w.server.url.replace(/\/$/, ''), {
      customFetch: (input: string | URL | Request, init?: RequestInit) => fetch(input, {
        ...init, headers: { ...(init?.headers as Record<string, string>), Authorization: `Basic ${Buffer.from('newbie:newbie-pass-1').toString('base64')}` },
      }),
    });
    const me = (await api.user.userGetCurrent()).data;
    expect(me.login).to.equal('newbie');
    expect(me.email).to.equal('newbie@example.com');
    expect(me.is_admin).to.equal(false);
    expect(me.active).to.equal(true);
    expect(me.visibility).to.equal('public');
    const emails = (await api.user.userListEmails()).data;
    expect(emails).to.deep.equal([{ email: 'newbie@example.com', verified: true, primary: true, user_id: 0, username: '' }]);
    const wrong = await w.raw('GET', '/user', undefined, { basic: ['newbie', 'not-the-password'] });
    expect(wrong.status).to.equal(401);
  });

  it('refuses a retype that differs and creates nothing', async () => {
    const res = await signUp(w, { user_name: 'typo', email: 'typo@example.com', password: 'typo-pass-1', retype: 'typo-pass-2' });
    expect(res.status).to.equal(422);
    expect(res.text).to.contain('The passwords do not match.');
    expect(await exists(w, 'typo')).to.equal(false);
    expect(await emailUsed(w, 'typo@example.com')).to.equal(false);
  });

  it('refuses a taken name or email and creates nothing', async () => {
    const name = await signUp(w, { user_name: 'NEWBIE', email: 'other@example.com', password: 'other-pass-1' });
    expect(name.status).to.equal(422);
    expect(await emailUsed(w, 'other@example.com')).to.equal(false);
    const email = await signUp(w, { user_name: 'other', email: 'NEWBIE@example.com', password: 'other-pass-1' });
    expect(email.status).to.equal(422);
    expect(await exists(w, 'other')).to.equal(false);
  });

  it('refuses a bad name, a bad email and a short password, and creates nothing', async () => {
    // a value that breaks a rule is 422; a password shorter than MIN_PASSWORD_LENGTH is 400, as in Gitea's API
    for (const [f, status] of [
      [{ user_name: '-bad', email: 'bad1@example.com', password: 'bad-pass-12' }, 422],
      [{ user_name: 'api', email: 'bad2@example.com', password: 'bad-pass-12' }, 422],
      [{ user_name: 'bad3', email: 'not-an-email', password: 'bad-pass-12' }, 422],
      [{ user_name: 'bad4', email: 'bad4@example.com', password: 'short' }, 400],
    ] as const) {
      const res = await signUp(w, f);
      expect(res.status, f.user_name).to.equal(status);
      expect(await exists(w, f.user_name)).to.equal(false);
    }
    expect(await emailUsed(w, 'bad4@example.com')).to.equal(false);
  });
});

describe('sign-up with DISABLE_REGISTRATION', () => {
  let w: World;
  before(async () => { w = await startWorld({ env: { FORGE__SERVICE__DISABLE_REGISTRATION: 'true' } }); });
  after(async () => { await w?.stop(); });

  it('refuses the form with 403 and creates nothing', async () => {
    const form = await fetch(`${w.server.url}user/sign_up`);
    expect(form.status).to.equal(403);
    const res = await signUp(w, { user_name: 'walker', email: 'walker@example.com', password: 'walker-pass-1' });
    expect(res.status).to.equal(403);
    expect(res.text).to.contain('Registration is disabled');
    expect(await exists(w, 'walker')).to.equal(false);
    expect(await emailUsed(w, 'walker@example.com')).to.equal(false);
    expect((await w.raw('GET', '/user', undefined, { basic: ['walker', 'walker-pass-1'] })).status).to.equal(401);
  });

  it('still lets the admin API create users', async () => {
    const u = await w.user('walker2');
    expect((await u.api.user.userGetCurrent()).data.login).to.equal('walker2');
  });
});

describe('sign-up with EMAIL_DOMAIN_ALLOWLIST', () => {
  let w: World;
  before(async () => { w = await startWorld({ env: { FORGE__SERVICE__EMAIL_DOMAIN_ALLOWLIST: 'allowed.test' } }); });
  after(async () => { await w?.stop(); });

  it('refuses an address outside the allowlist and creates nothing', async () => {
    const res = await signUp(w, { user_name: 'outsider', email: 'outsider@example.com', password: 'outsider-pass-1' });
    expect(res.status).to.equal(403);
    expect(await exists(w, 'outsider')).to.equal(false);
    expect(await emailUsed(w, 'outsider@example.com')).to.equal(false);
  });

  it('accepts an address inside the allowlist', async () => {
    const res = await signUp(w, { user_name: 'insider', email: 'insider@allowed.test', password: 'insider-pass-1' });
    expect(res.status).to.equal(303);
    const me = await w.raw('GET', '/user', undefined, { basic: ['insider', 'insider-pass-1'] });
    expect(me.status).to.equal(200);
    expect(me.body.email).to.equal('insider@allowed.test');
  });

  it('lets the admin API create the same address, with an X-Gitea-Warning header', async () => {
    const res = await w.raw('POST', '/admin/users', {
      username: 'outsider', email: 'outsider@example.com', password: 'outsider-pass-1', must_change_password: false,
    }, { token: w.admin.token });
    expect(res.status).to.equal(201);
    expect(res.body.login).to.equal('outsider');
    expect(res.headers.get('x-gitea-warning')).to.equal(
      'the domain of user email outsider@example.com conflicts with EMAIL_DOMAIN_ALLOWLIST or EMAIL_DOMAIN_BLOCKLIST');
    expect(await exists(w, 'outsider')).to.equal(true);
  });

  it('refuses the same domain rule for self-service email additions', async () => {
    const u = await w.user('mailer');
    const res = await w.raw('POST', '/user/emails', { emails: ['mailer2@example.com'] }, { token: u.token });
    expect(res.status).to.equal(422);
    expect(res.body.message).to.equal('Email address "mailer2@example.com" invalid');
    expect((await u.api.user.userListEmails()).data.map((e) => e.email)).to.deep.equal(['mailer@example.com']);
    const ok = await u.api.user.userAddEmail({ emails: ['mailer@allowed.test'] });
    expect(ok.data.map((e) => e.email)).to.deep.equal(['mailer@example.com', 'mailer@allowed.test']);
  });
});
