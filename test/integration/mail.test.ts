/**
 * Mail, end to end: a real SMTP server on loopback receives what the forge sends, and each mail is
 * parsed and checked (recipients, subject, threading and list headers, links followed against the
 * server). Notification mails by watch, participation, mention and preference; none for an
 * unreadable repository, a blocker of the doer or a user with mail off; account mails (activation,
 * reset, confirmation, security notices); a server that refuses or is down; the admin's tools.
 */
import { expect } from 'chai';
import { startWorld, expectError, type World, type TestUser } from '../helpers/world';
import { WebClient } from '../helpers/web';
import { MailSink, linksOf, type Received } from '../helpers/mail';
import { ConformanceRunner } from '../helpers/actions-runner';
import * as OTPAuth from 'otpauth';

describe('mail', function () {
  this.timeout(120_000);
  let w: World;
  let sink: MailSink;
  let alice: TestUser; let bob: TestUser; let carol: TestUser;
  const repo = 'mailed';

  const header = (r: Received, name: string) => {
    const v = r.mail.headers.get(name.toLowerCase());
    return typeof v === 'string' ? v : v === undefined ? undefined : JSON.stringify(v);
  };
  const subjectIs = (s: string) => (r: Received) => r.mail.subject === s;
  /** Wait a moment for mail that must not come (the sender is woken at once; two rounds are plenty). */
  const settle = async () => {
    const probe = await w.raw('POST', `/repos/${alice.name}/${repo}/issues`, { title: `settle ${Date.now()}` }, { token: alice.token });
    await sink.waitFor(subjectIs(`[${alice.name}/${repo}] ${probe.body.title} (#${probe.body.number})`), 1);
  };
  const setPreference = async (u: TestUser, preference: string) => {
    const c = await WebClient.signedIn(w, u);
    await c.get('user/settings/account');
    const res = await c.form('user/settings/account/email', { action: 'preference', preference });
    expect(res.status).to.equal(303);
  };

  before(async () => {
    sink = await MailSink.start();
    w = await startWorld({ env: sink.env({ FORGE__SERVICE__ENABLE_NOTIFY_MAIL: 'true', FORGE__SERVICE__REGISTER_EMAIL_CONFIRM: 'true', FORGE__MAILER__SUBJECT_PREFIX: '' }) });
    [alice, bob, carol] = await Promise.all([w.user(), w.user(), w.user()]);
    expect((await w.raw('POST', '/user/repos', { name: repo, auto_init: true }, { token: alice.token })).status).to.equal(201);
    for (const u of [bob, carol]) expect((await w.raw('PUT', `/repos/${alice.name}/${repo}/subscription`, undefined, { token: u.token })).status).to.equal(200);
    await settle();
    sink.clear();
  });
  after(async () => {
    await w?.stop();
    await sink?.close();
  });

  describe('notifications', () => {
    it('mails a new issue and its comments to watchers and participants, threaded, one message per recipient, links that open', async () => {
      const issue = await w.raw('POST', `/repos/${alice.name}/${repo}/issues`, { title: 'Printer on fire', body: 'It **burns**.' }, { token: alice.token });
      const subject = `[${alice.name}/${repo}] Printer on fire (#${issue.body.number})`;
      const opened = await sink.waitFor(subjectIs(subject), 2);
      const thread = `<${alice.name}/${repo}/issues/${issue.body.number}@127.0.0.1>`;
      expect(opened.map((r) => r.rcpt).sort()).to.deep.equal([[bob.email], [carol.email]].sort());
      for (const r of opened) {
        expect(r.mail.messageId).to.equal(thread);
        expect(header(r, 'in-reply-to')).to.equal(thread);
        expect(r.mail.from?.value[0]).to.include({ address: 'forge@example.com', name: alice.name });
        expect(r.mail.to && !Array.isArray(r.mail.to) ? r.mail.to.value.map((a) => a.address) : []).to.have.length(1);
        expect(r.raw).to.match(new RegExp(`List-ID: ${alice.name}/${repo} <${repo}\\.${alice.name}\\.127\\.0\\.0\\.1>`, 'i'));
        expect(r.raw).to.match(/List-Unsubscribe: <http:\/\/127\.0\.0\.1:\d+\/[^>]+\/issues\/\d+>/i);
        expect(r.raw).to.match(/X-Auto-Response-Suppress: All/);
        expect(r.mail.html).to.contain('<strong>burns</strong>');
        expect(r.mail.text).to.contain('burns');
      }
      for (const link of linksOf(opened[0]).filter((l) => l.includes(`/issues/${issue.body.number}`))) {
        expect((await fetch(link)).status, link).to.equal(200);
      }
      const comment = await w.raw('POST', `/repos/${alice.name}/${repo}/issues/${issue.body.number}/comments`, { body: 'Have you tried water?' }, { token: bob.token });
      const replies = await sink.waitFor(subjectIs(`Re: ${subject}`), 2);
      expect(replies.map((r) => r.rcpt[0]).sort()).to.deep.equal([alice.email, carol.email].sort());
      for (const r of replies) {
        expect(r.mail.messageId).to.equal(`<${alice.name}/${repo}/issues/${issue.body.number}/comment/${comment.body.id}@127.0.0.1>`);
        expect(header(r, 'in-reply-to')).to.equal(thread);
        expect(r.mail.references).to.equal(thread);
        expect(r.mail.text).to.contain('Have you tried water?');
      }
      await settle();
      expect(sink.to(bob.email).filter(subjectIs(`Re: ${subject}`)), 'the doer gets none').to.have.length(0);
    });

    it('lets a recipient unsubscribe on the page List-Unsubscribe names; later mails of the issue do not reach them', async () => {
      const issue = await w.raw('POST', `/repos/${alice.name}/${repo}/issues`, { title: 'Too noisy' }, { token: alice.token });
      const subject = `[${alice.name}/${repo}] Too noisy (#${issue.body.number})`;
      const [mail] = await sink.waitFor((r) => r.rcpt[0] === carol.email && r.mail.subject === subject);
      const target = /List-Unsubscribe: <([^>]+)>/i.exec(mail.raw)![1];
      const c = await WebClient.signedIn(w, carol);
      const page = await c.get(target);
      expect(page.status).to.equal(200);
      expect(page.text).to.contain('You receive notifications of this issue.');
      expect((await c.form(`${new URL(target).pathname}/subscription`, { action: 'unsubscribe' })).status).to.equal(303);
      expect((await c.get(target)).text).to.contain('You do not receive notifications of this issue.');
      await w.raw('POST', `/repos/${alice.name}/${repo}/issues/${issue.body.number}/comments`, { body: 'still there?' }, { token: bob.token });
      await sink.waitFor((r) => r.rcpt[0] === alice.email && r.mail.subject === `Re: ${subject}`);
      await settle();
      expect(sink.to(carol.email).filter(subjectIs(`Re: ${subject}`))).to.have.length(0);
      const forged = await c.form(`${new URL(target).pathname}/subscription`, { action: 'subscribe' }, { csrf: null });
      expect(forged.status, 'a forged form').to.equal(403);
      expect((await c.get(target)).text, 'changes nothing').to.contain('You do not receive notifications of this issue.');
    });

    it('follows each preference: onmention only when mentioned, disabled never, andyourown with their own actions', async () => {
      const [dave, erin] = await Promise.all([w.user(), w.user()]);
      for (const u of [dave, erin]) await w.raw('PUT', `/repos/${alice.name}/${repo}/subscription`, undefined, { token: u.token });
      await setPreference(dave, 'onmention');
      await setPreference(erin, 'disabled');
      await setPreference(carol, 'andyourown');
      const issue = await w.raw('POST', `/repos/${alice.name}/${repo}/issues`, { title: 'Preferences' }, { token: carol.token });
      const subject = `[${alice.name}/${repo}] Preferences (#${issue.body.number})`;
      await sink.waitFor(subjectIs(subject), 3);
      await w.raw('POST', `/repos/${alice.name}/${repo}/issues/${issue.body.number}/comments`, { body: `@${dave.name} @${erin.name} please look` }, { token: alice.token });
      const re = await sink.waitFor(subjectIs(`Re: ${subject}`), 3);
      await settle();
      const to = (u: TestUser, s: string) => sink.to(u.email).filter(subjectIs(s)).length;
      expect(to(carol, subject), 'andyourown: their own new issue').to.equal(1);
      expect(to(dave, subject), 'onmention: not mentioned').to.equal(0);
      expect(to(dave, `Re: ${subject}`), 'onmention: mentioned').to.equal(1);
      expect(re.find((r) => r.rcpt[0] === dave.email)!.mail.text).to.contain(`@${alice.name} mentioned you`);
      expect(to(erin, subject) + to(erin, `Re: ${subject}`), 'disabled').to.equal(0);
      await setPreference(carol, 'enabled');
      const c = await WebClient.signedIn(w, dave);
      await c.get('user/settings/account');
      expect((await c.form('user/settings/account/email', { action: 'preference', preference: 'sometimes' })).status).to.equal(303);
      const page = await c.get('user/settings/account');
      expect(page.text, 'a bad value is refused').to.contain('must be one of');
      expect(page.text, 'and changes nothing').to.match(/<option value="onmention" selected>/);
    });

    it('never mails about a repository the recipient can no longer read, nor a user who blocked the doer', async () => {
      const secret = 'secret-plans';
      await w.raw('POST', '/user/repos', { name: secret, private: true }, { token: alice.token });
      const [frank, gina] = await Promise.all([w.user(), w.user()]);
      for (const u of [frank, gina]) {
        await w.raw('PUT', `/repos/${alice.name}/${secret}/collaborators/${u.name}`, { permission: 'read' }, { token: alice.token });
        await w.raw('PUT', `/repos/${alice.name}/${secret}/subscription`, undefined, { token: u.token });
      }
      expect((await w.raw('DELETE', `/repos/${alice.name}/${secret}/collaborators/${frank.name}`, undefined, { token: alice.token })).status).to.equal(204);
      const issue = await w.raw('POST', `/repos/${alice.name}/${secret}/issues`, { title: 'Hidden' }, { token: alice.token });
      const subject = `[${alice.name}/${secret}] Hidden (#${issue.body.number})`;
      await sink.waitFor(subjectIs(subject), 1);
      expect(sink.to(gina.email).filter(subjectIs(subject))).to.have.length(1);
      // gina blocks alice: alice's next comment does not reach her
      expect((await w.raw('PUT', `/user/blocks/${alice.name}`, undefined, { token: gina.token })).status).to.equal(204);
      await w.raw('POST', `/repos/${alice.name}/${repo}/issues`, { title: 'After the block' }, { token: alice.token });
      await settle();
      expect(sink.to(frank.email).filter(subjectIs(subject)), 'no longer a reader').to.have.length(0);
      expect(sink.to(gina.email).filter((r) => r.mail.subject?.includes('After the block') ?? false), 'blocked the doer').to.have.length(0);
    });

    it('mails an assignee, a requested reviewer, the merge, and a published release to watchers', async () => {
      const issue = await w.raw('POST', `/repos/${alice.name}/${repo}/issues`, { title: 'Assign me' }, { token: alice.token });
      await w.raw('POST', `/repos/${alice.name}/${repo}/collaborators/${bob.name}`, undefined, { token: alice.token });
      await w.raw('PUT', `/repos/${alice.name}/${repo}/collaborators/${bob.name}`, { permission: 'write' }, { token: alice.token });
      await w.raw('PATCH', `/repos/${alice.name}/${repo}/issues/${issue.body.number}`, { assignees: [bob.name] }, { token: alice.token });
      const assigned = await sink.waitFor((r) => r.rcpt[0] === bob.email && (r.mail.text ?? '').includes('assigned you'), 1);
      expect(assigned[0].mail.subject).to.equal(`Re: [${alice.name}/${repo}] Assign me (#${issue.body.number})`);
      expect(assigned[0].mail.text).to.not.contain('mentioned you');

      const file = await w.raw('POST', `/repos/${alice.name}/${repo}/contents/feature.txt`, { content: Buffer.from('new\n').toString('base64'), new_branch: 'feature', message: 'Add a feature' }, { token: alice.token });
      expect(file.status).to.equal(201);
      const pr = await w.raw('POST', `/repos/${alice.name}/${repo}/pulls`, { title: 'Feature', head: 'feature', base: 'main' }, { token: alice.token });
      expect(pr.status).to.equal(201);
      const prSubject = `[${alice.name}/${repo}] Feature (#${pr.body.number})`;
      await sink.waitFor(subjectIs(prSubject), 2);
      expect((await w.raw('POST', `/repos/${alice.name}/${repo}/pulls/${pr.body.number}/requested_reviewers`, { reviewers: [bob.name] }, { token: alice.token })).status).to.equal(201);
      const asked = await sink.waitFor((r) => r.rcpt[0] === bob.email && (r.mail.text ?? '').includes('requested your review'), 1);
      expect(asked[0].mail.subject).to.equal(`Re: ${prSubject}`);
      expect(header(asked[0], 'x-gitea-reason')).to.equal('pull');
      expect((await w.raw('POST', `/repos/${alice.name}/${repo}/pulls/${pr.body.number}/merge`, { Do: 'merge' }, { token: alice.token })).status).to.equal(200);
      const merged = await sink.waitFor((r) => r.mail.subject === `Re: ${prSubject}` && (r.mail.text ?? '').includes('merged'), 2);
      expect(merged[0].mail.messageId).to.match(new RegExp(`^<${alice.name}/${repo}/pulls/${pr.body.number}/merge/\\d+@127\\.0\\.0\\.1>$`));

      await w.raw('POST', `/repos/${alice.name}/${repo}/releases`, { tag_name: 'v0.9', name: 'Almost', prerelease: true }, { token: alice.token });
      await w.raw('POST', `/repos/${alice.name}/${repo}/releases`, { tag_name: 'v1.0', name: 'First', body: 'Notes' }, { token: alice.token });
      const released = await sink.waitFor(subjectIs(`v1.0 in ${alice.name}/${repo} released`), 2);
      expect(released.map((r) => r.rcpt[0])).to.not.include(alice.email);
      await settle();
      expect(sink.received.filter((r) => r.mail.subject?.startsWith('v0.9')), 'no mail for a pre-release').to.have.length(0);
    });
  });

  it('mails a failed workflow run to the user who pushed it, and nobody else', async () => {
    const reg = await w.raw('POST', '/user/actions/runners/registration-token', undefined, { token: alice.token });
    const runner = await ConformanceRunner.register(w.server.url, reg.body.token, { name: 'mail-runner', labels: ['ubuntu-latest'] });
    const workflow = 'on: push\njobs:\n  build:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo broken; exit 1\n';
    const put = await w.raw('POST', `/repos/${alice.name}/${repo}/contents/.gitea/workflows/ci.yml`, { content: Buffer.from(workflow).toString('base64'), message: 'Add CI' }, { token: alice.token });
    expect(put.status).to.equal(201);
    let outcomes: Awaited<ReturnType<typeof runner.drain>> = [];
    for (let i = 0; i < 50 && outcomes.length === 0; i++) outcomes = await runner.drain();
    expect(outcomes).to.have.length(1);
    const [mail] = await sink.waitFor((r) => /Run failed/.test(r.mail.subject ?? ''));
    expect(mail.rcpt).to.deep.equal([alice.email]);
    expect(mail.mail.subject).to.equal(`[${alice.name}/${repo}] Run failed: Add CI (ci.yml)`);
    const commit = linksOf(mail).find((l) => l.includes(`/commit/${put.body.commit.sha}`))!;
    expect((await fetch(commit, { headers: { Authorization: `token ${alice.token}` } })).status).to.equal(200);
    await settle();
    expect(sink.received.filter((r) => /Run failed/.test(r.mail.subject ?? ''))).to.have.length(1);
  });

  describe('accounts', () => {
    it('signs up inactive with a confirmation mail; the API answers 403 until the link (with the password) activates it, once', async () => {
      const c = new WebClient(w);
      await c.get('user/sign_up');
      const name = `new${Date.now() % 100000}`;
      const email = `${name}@example.com`;
      const res = await c.form('user/sign_up', { user_name: name, email, password: 'password-123456', retype: 'password-123456' });
      expect(res.status).to.equal(200);
      expect(res.text).to.contain('A confirmation mail has been sent to');
      const [mail] = await sink.waitFor((r) => r.rcpt[0] === email && r.mail.subject === 'Please activate your account');
      const link = linksOf(mail).find((l) => l.includes('/user/activate?code='))!;
      expectError(await w.raw('GET', '/user', undefined, { basic: [name, 'password-123456'] }), 403, 'This account is not activated.');

      const form = await c.get(link);
      expect(form.status).to.equal(200);
      const wrong = await c.form('user/activate', { code: new URL(link).searchParams.get('code')!, password: 'not-the-password' });
      expect(wrong.status).to.equal(422);
      expectError(await w.raw('GET', '/user', undefined, { basic: [name, 'password-123456'] }), 403, 'This account is not activated.');
      const ok = await c.form('user/activate', { code: new URL(link).searchParams.get('code')!, password: 'password-123456' });
      expect(ok.status).to.equal(303);
      expect((await w.raw('GET', '/user', undefined, { basic: [name, 'password-123456'] })).status).to.equal(200);
      expect((await c.get(link)).status, 'the link works once').to.equal(403);
    });

    it('resets a forgotten password by mail: the same answer for any address, a link that works once, a notice after', async () => {
      const elsewhere = await WebClient.signedIn(w, carol);
      expect((await elsewhere.get('user/settings')).status).to.equal(200);
      const c = new WebClient(w);
      await c.get('user/forgot_password');
      const unknown = await c.form('user/forgot_password', { email: 'nobody@example.com' });
      const known = await c.form('user/forgot_password', { email: carol.email });
      expect(unknown.status).to.equal(200);
      expect(known.status).to.equal(200);
      const same = (text: string, email: string) => text.split(email).join('X').replace(/name="_csrf" value="[^"]+"/, '').replace(/\d+ ms/g, '1 ms');
      expect(same(unknown.text, 'nobody@example.com')).to.equal(same(known.text, carol.email));
      const [mail] = await sink.waitFor((r) => r.rcpt[0] === carol.email && r.mail.subject === 'Recover your account');
      const link = linksOf(mail).find((l) => l.includes('/user/recover_account?code='))!;
      const code = new URL(link).searchParams.get('code')!;
      for (const forged of [`${code.slice(0, -2)}00`, `${code.slice(0, 20)}${code[20] === 'a' ? 'b' : 'a'}${code.slice(21)}`, 'x']) {
        const answer = await c.get(`user/recover_account?code=${forged}`);
        expect(answer.status, forged).to.equal(200);
        expect(answer.text, forged).to.contain('not valid or has expired');
      }
      const page = await c.get(link);
      expect(page.text).to.contain(carol.email);
      const weak = await c.form('user/recover_account', { code, password: 'x', retype: 'x' });
      expect(weak.status).to.equal(400);
      expect(weak.text).to.match(/class="flash error"[^>]*>[^<]*password/i);
      const mismatch = await c.form('user/recover_account', { code, password: 'brand-new-pass-1', retype: 'brand-new-pass-2' });
      expect(mismatch.status).to.equal(422);
      expect((await w.raw('GET', '/user', undefined, { basic: [carol.name, carol.password] })).status, 'a refused reset changes nothing').to.equal(200);
      const done = await c.form('user/recover_account', { code, password: 'brand-new-pass-1', retype: 'brand-new-pass-1' });
      expect(done.status).to.equal(303);
      expect((await w.raw('GET', '/user', undefined, { basic: [carol.name, 'brand-new-pass-1'] })).status).to.equal(200);
      expect((await w.raw('GET', '/user', undefined, { basic: [carol.name, carol.password] })).status).to.equal(401);
      carol.password = 'brand-new-pass-1';
      expect((await elsewhere.get('user/settings')).status, 'the other session ended').to.equal(303);
      const again = await new WebClient(w).get(link);
      expect(again.text, 'the link works once').to.contain('not valid or has expired');
      await sink.waitFor((r) => r.rcpt[0] === carol.email && r.mail.subject === 'Security notice: your password was changed');
      // a second request within three minutes sends nothing more
      await c.get('user/forgot_password');
      await c.form('user/forgot_password', { email: carol.email });
      await settle();
      expect(sink.to(carol.email).filter(subjectIs('Recover your account'))).to.have.length(1);
    });

    it('asks a user with TOTP for a passcode on reset; mails a notice when a second factor goes or an administrator sets the password; welcomes a new account', async () => {
      const hana = await w.user();
      const c = await WebClient.signedIn(w, hana);
      const enrol = await c.get('user/settings/security/two_factor/enroll');
      const secret = /class="totp-secret">([A-Z2-7]+)</.exec(enrol.text)![1];
      const totp = () => new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate();
      expect((await c.form('user/settings/security/two_factor/enroll', { passcode: totp() })).status).to.equal(303);

      const anon = new WebClient(w);
      await anon.get('user/forgot_password');
      await anon.form('user/forgot_password', { email: hana.email });
      const [mail] = await sink.waitFor((r) => r.rcpt[0] === hana.email && r.mail.subject === 'Recover your account');
      const code = new URL(linksOf(mail).find((l) => l.includes('recover_account'))!).searchParams.get('code')!;
      expect((await anon.get(`user/recover_account?code=${code}`)).text).to.contain('name="passcode"');
      const guesser = { headers: { 'X-Forwarded-For': '203.0.113.41' } };
      const without = await anon.form('user/recover_account', { code, password: 'hana-new-pass-1', retype: 'hana-new-pass-1', passcode: '000000' }, guesser);
      expect(without.status).to.equal(422);
      expect((await w.raw('GET', '/user', undefined, { basic: [hana.name, hana.password], headers: { 'X-Gitea-OTP': totp() } })).status, 'nothing changed').to.equal(200);
      // guessing the six digits through the reset link meets the sign-in's limit (LOGIN_MAX_FAILURES, 10);
      // why: from an address of its own (believed from loopback), so the other tests' sign-ins are not held back.
      for (let i = 0; i < 9; i++) await anon.form('user/recover_account', { code, password: 'hana-new-pass-1', retype: 'hana-new-pass-1', passcode: String(100000 + i) }, guesser);
      expect((await anon.form('user/recover_account', { code, password: 'hana-new-pass-1', retype: 'hana-new-pass-1', passcode: totp() }, guesser)).status).to.equal(429);

      await c.get('user/settings/security');
      expect((await c.form('user/settings/security/two_factor/disable', { password: hana.password })).status).to.equal(303);
      await sink.waitFor((r) => r.rcpt[0] === hana.email && r.mail.subject === 'Security notice: two-factor authentication was turned off');
      expect((await w.raw('PATCH', `/admin/users/${hana.name}`, { login_name: hana.name, source_id: 0, password: 'set-by-admin-1' }, { token: w.admin.token })).status).to.equal(200);
      const notices = await sink.waitFor((r) => r.rcpt[0] === hana.email && r.mail.subject === 'Security notice: your password was changed');
      expect(notices[0].mail.text).to.contain('/user/forgot_password');

      const welcomed = await w.raw('POST', '/admin/users', { username: 'welcomed', email: 'welcomed@example.com', password: 'welcome-pass-1', send_notify: true }, { token: w.admin.token });
      expect(welcomed.status).to.equal(201);
      await sink.waitFor((r) => r.rcpt[0] === 'welcomed@example.com' && /^Welcome to /.test(r.mail.subject ?? ''));
    });

    it('confirms an added address by the link mailed to it', async () => {
      const c = await WebClient.signedIn(w, bob);
      await c.get('user/settings/account');
      const extra = `${bob.name}-work@example.com`;
      await c.form('user/settings/account/email', { email: extra });
      const list = await w.raw('GET', '/user/emails', undefined, { token: bob.token });
      expect(list.body.find((e: { email: string }) => e.email === extra).verified).to.equal(false);
      const [mail] = await sink.waitFor((r) => r.rcpt[0] === extra && r.mail.subject === 'Verify your email address');
      const link = linksOf(mail).find((l) => l.includes('/user/activate_email'))!;
      expect((await c.get(link)).status).to.equal(303);
      const after = await w.raw('GET', '/user/emails', undefined, { token: bob.token });
      expect(after.body.find((e: { email: string }) => e.email === extra).verified).to.equal(true);
    });
  });

  describe('delivery', () => {
    it('keeps mail while the server is down or refuses, then delivers each exactly once', async () => {
      const issue = await w.raw('POST', `/repos/${alice.name}/${repo}/issues`, { title: 'Outage' }, { token: bob.token });
      const subject = `[${alice.name}/${repo}] Outage (#${issue.body.number})`;
      await sink.waitFor(subjectIs(subject), 2);
      await sink.close();
      const started = Date.now();
      const comment = await w.raw('POST', `/repos/${alice.name}/${repo}/issues/${issue.body.number}/comments`, { body: 'while down' }, { token: bob.token });
      expect(comment.status).to.equal(201);
      expect(Date.now() - started, 'a request never waits for mail').to.be.below(5_000);
      let health = await w.raw('GET', '//api/healthz');
      for (let i = 0; i < 50 && health.body.checks['mailer:send'][0].status !== 'warn'; i++) {
        await new Promise((r) => setTimeout(r, 100));
        health = await w.raw('GET', '//api/healthz');
      }
      expect(health.body.checks['mailer:send'][0].status).to.equal('warn');
      expect(health.body.checks['mailer:send'][0].output).to.match(/sending fails since/);
      sink.refusing = '451 try again later';
      await sink.listen();
      await new Promise((r) => setTimeout(r, 1500));
      sink.refusing = null;
      const got = await sink.waitFor(subjectIs(`Re: ${subject}`), 2, 60_000);
      await settle();
      expect(sink.received.filter(subjectIs(`Re: ${subject}`)).map((r) => r.rcpt[0]).sort(), 'each once').to.deep.equal([alice.email, carol.email].sort());
      expect(new Set(got.map((r) => r.mail.messageId)).size).to.equal(1);
      health = await w.raw('GET', '//api/healthz');
      expect(health.body.checks['mailer:send'][0].status).to.equal('pass');
    });
  });

  describe('administration', () => {
    it('sends to all users with forge admin sendmail, and to the users named', async () => {
      const all = await w.server.cli(['admin', 'sendmail', '--title', 'Maintenance tonight', '--content', '<p>Down at 22:00</p>', '-f']);
      expect(all.code, all.stderr).to.equal(0);
      const n = Number(/Sent (\d+) email/.exec(all.stdout)![1]);
      expect(n).to.be.greaterThan(3);
      const got = await sink.waitFor(subjectIs('Maintenance tonight'), n);
      expect(new Set(got.map((r) => r.rcpt[0])).size).to.equal(n);
      const some = await w.server.cli(['admin', 'sendmail', '--title', 'Just you', '--to', `${bob.name},${carol.email}`, '--force']);
      expect(some.stdout).to.contain('Sent 2 email(s)');
      expect((await sink.waitFor(subjectIs('Just you'), 2)).map((r) => r.rcpt[0]).sort()).to.deep.equal([bob.email, carol.email].sort());
      const none = await w.server.cli(['admin', 'sendmail', '--title', 'Nobody', '--to', 'no-such-user', '-f']);
      expect(none.code).to.equal(1);
      expect(none.stderr).to.contain('no-such-user');
      const untitled = await w.server.cli(['admin', 'sendmail', '--content', 'x', '-f']);
      expect(untitled.code).to.not.equal(0);
      await settle();
      expect(sink.received.filter(subjectIs('Nobody'))).to.have.length(0);
    });

    it('sends a test mail from the site administration, to administrators only', async () => {
      const admin = await WebClient.signedIn(w, w.admin);
      expect((await admin.get('admin')).text).to.contain('admin/config#mailer');
      expect((await admin.get('admin/config')).text).to.contain('Send test mail');
      const sent = await admin.form('admin/config/test_mail', { email: 'ops@example.com' });
      expect([sent.status, new URL(sent.location!).pathname]).to.deep.equal([303, '/admin/config']);
      expect((await admin.get('admin/config')).text).to.contain('A test mail has been sent to');
      await sink.waitFor((r) => r.rcpt[0] === 'ops@example.com' && /Test Email!/.test(r.mail.subject ?? ''));
      const user = await WebClient.signedIn(w, bob);
      await user.get('user/settings');
      expect((await user.form('admin/config/test_mail', { email: 'evil@example.com' })).status).to.equal(404);
      await settle();
      expect(sink.to('evil@example.com')).to.have.length(0);
    });
  });
});
