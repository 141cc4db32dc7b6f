/**
 * The system pages of the site administration against the real server: the configuration summary
 * (grouped, never a password, key or token) with the test mail form, the system status, the cron
 * tasks with Run now, every user's email addresses with search and paging, every owner's packages
 * filtered by type and name and deleted through the owners' removal; every page a 404 for a user
 * who is not a site administrator, a visitor sent to sign in, and their forms changing nothing.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { WebClient } from '../helpers/web';
import { basicAuth, goModuleZip } from '../helpers/packages';
import { count, sql } from '../helpers/db';

describe('site administration system pages', () => {
  let w: World;
  let alice: TestUser;
  let root: WebClient;
  let tmp: string;
  const MAIL_PASSWORD = 'mail-password-do-not-show';
  const api = (method: string, p: string, body?: unknown) => w.raw(method, p, body, { token: w.admin.token });
  const flashOf = (html: string) => [...html.matchAll(/<p class="flash (\w+)" role="status">([^<]*)<\/p>/g)].map((m) => `${m[1]}: ${m[2].replace(/&#34;|&quot;/g, '"')}`);
  const submit = async (c: WebClient, p: string, fields: Record<string, string>) => {
    const res = await c.form(p, fields);
    expect(res.status, `${p}: ${res.text.slice(0, 200)}`).to.equal(303);
    const back = await c.get(res.location!);
    return { location: new URL(res.location!, w.server.url).pathname, text: back.text, flash: flashOf(back.text) };
  };
  const publishGo = async (module: string, version: string) => {
    const res = await fetch(`${w.server.url}api/packages/alice/go/upload`, { method: 'PUT', body: await goModuleZip(tmp, module, version, 'hi'), headers: { Authorization: basicAuth(alice) } });
    expect(res.status, await res.text()).to.equal(201);
  };
  const versionCount = () => count(w.server, 'SELECT COUNT(*) AS n FROM package_version WHERE is_internal = $1', [false]);

  before(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'admin-system-'));
    w = await startWorld({ env: { FORGE__MAILER__ENABLED: 'true', FORGE__MAILER__PROTOCOL: 'dummy', FORGE__MAILER__FROM: 'forge@example.com', FORGE__MAILER__PASSWD: MAIL_PASSWORD } });
    alice = await w.user('alice');
    for (let i = 0; i < 3; i++) await w.user(`mailer${i}`);
    await publishGo('example.com/alpha', 'v1.0.0');
    await publishGo('example.com/alpha', 'v1.1.0');
    await publishGo('example.com/beta', 'v0.1.0');
    for (const [type, text, at] of [[2, 'Cron task update_mirrors failed: disk full', 1000], [1, 'Repository alice/gone: its directory could not be removed', 2000], [2, 'Cron task cleanup_packages failed: <b>no</b>', 3000]] as const) {
      await sql(w.server, 'INSERT INTO notice (type, description, created_unix) VALUES ($1, $2, $3)', [type, text, at]);
    }
    root = await WebClient.signedIn(w, w.admin);
    await root.get('admin');
  });
  after(async () => {
    await w?.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('is a 404 for users who are not site administrators and sends visitors to sign in; their forms change nothing', async () => {
    const pages = ['admin/config', 'admin/monitor', 'admin/cron', 'admin/notices', 'admin/emails', 'admin/packages', 'admin/actions/runners'];
    const anon = new WebClient(w);
    const plain = await WebClient.signedIn(w, alice);
    for (const p of pages) {
      expect((await plain.get(p)).status, p).to.equal(404);
      const a = await anon.get(p);
      expect([a.status, a.location], p).to.deep.equal([303, `${w.server.rootUrl}user/login?redirect_to=${encodeURIComponent(`/${p}`)}`]);
    }
    await plain.get('user/settings');
    const versions = await versionCount();
    const runs = (await api('GET', '/admin/cron')).body.find((t: { name: string }) => t.name === 'cleanup_sessions').exec_times;
    const firstVersion = Number((await sql(w.server, 'SELECT MIN(id) AS id FROM package_version'))[0].id);
    const mailer0 = (await api('GET', '/users/mailer0')).body as { id: number; email: string };
    for (const [p, fields] of [
      ['admin/cron/cleanup_sessions/run', {}], [`admin/packages/${firstVersion}/delete`, {}], ['admin/config/test_mail', { email: 'x@example.com' }],
      ['admin/emails/activate', { uid: String(mailer0.id), email: mailer0.email, activate: 'false' }],
      ['admin/notices/delete', { 'id-1': 'on' }], ['admin/notices/delete_all', {}],
    ] as const) {
      expect((await plain.form(p, fields)).status, p).to.equal(404);
      expect((await anon.form(p, fields)).status, p).to.equal(403);
    }
    expect(await versionCount()).to.equal(versions);
    expect(await count(w.server, 'SELECT COUNT(*) AS n FROM notice')).to.equal(3);
    expect((await api('GET', '/admin/emails/search?q=mailer0')).body.map((e: { verified: boolean }) => e.verified)).to.deep.equal([true]);
    expect((await api('GET', '/users/mailer0')).body.active).to.equal(true);
    // why: the run count is per process; with one worker the API's process is the one the form reached.
    if (Number(process.env.FORGE_TEST_WORKERS ?? '1') === 1) {
      expect((await api('GET', '/admin/cron')).body.find((t: { name: string }) => t.name === 'cleanup_sessions').exec_times).to.equal(runs);
    }
  });

  it('summarises the configuration by group without any password, key or token, with the test mail form', async () => {
    const res = await root.get('admin/config');
    expect(res.status).to.equal(200);
    for (const id of ['server', 'ssh', 'database', 'service', 'mailer', 'cache', 'packages', 'actions', 'federation', 'log']) expect(res.text, id).to.include(`id="${id}"`);
    expect(res.text).to.include(`<dd>${w.server.rootUrl}</dd>`);
    expect(res.text).to.include(w.server.env.FORGE__DATABASE__DB_TYPE === 'postgres' ? '<dd>PostgreSQL</dd>' : '<dd>SQLite</dd>');
    expect(res.text).to.include('<dd>forge@example.com</dd>');
    const secrets = JSON.parse(fs.readFileSync(path.join(w.server.dataDir, 'secrets.json'), 'utf8')) as Record<string, string>;
    const hidden = [MAIL_PASSWORD, ...Object.values(secrets).filter((v) => typeof v === 'string' && v.length >= 8)];
    // why: a short database password (the test cluster's equals its user name) is checked as the absence of its row.
    if ((w.server.env.FORGE__DATABASE__PASSWD ?? '').length >= 8) hidden.push(w.server.env.FORGE__DATABASE__PASSWD!);
    for (const s of hidden) expect(res.text).to.not.include(s);
    expect(res.text).to.not.match(/<dt>[^<]*(Pass|Secret|Token|Key)[^<]*<\/dt>/i);
    expect(res.text).to.include('action="/admin/config/test_mail"');
    const sent = await submit(root, 'admin/config/test_mail', { email: 'ops@example.com' });
    expect([sent.location, sent.flash]).to.deep.equal(['/admin/config', ['success: A test mail has been sent to "ops@example.com".']]);
    const bad = await submit(root, 'admin/config/test_mail', { email: 'not-an-address' });
    expect(bad.flash).to.deep.equal(['error: "not-an-address" is not an email address.']);
    expect((await root.get('admin')).text).to.include('href="/admin/config#mailer"');
  });

  it('shows the system status: uptime, memory, health checks and the outbox by topic', async () => {
    const res = await root.get('admin/monitor');
    expect(res.status).to.equal(200);
    expect(res.text).to.match(/class="uptime">[^<]+</).and.match(/class="rss">[\d.]+ (KiB|MiB|GiB)</);
    for (const check of ['database:ping', 'cache:ping', 'data-dir:write', 'mailer:send']) expect(res.text, check).to.include(`<strong>${check}</strong>`);
    expect(res.text).to.match(/class="table is-fullwidth is-narrow outbox-topics"|class="muted outbox-empty"/);
  });

  it('lists the cron tasks as the API does, runs one now and refuses an unknown one', async () => {
    const res = await root.get('admin/cron');
    const listed = [...res.text.matchAll(/data-task="([^"]+)"/g)].map((m) => m[1]);
    expect(listed).to.deep.equal((await api('GET', '/admin/cron')).body.map((t: { name: string }) => t.name));
    expect(listed).to.include('cleanup_sessions');
    const ran = await submit(root, 'admin/cron/cleanup_sessions/run', {});
    expect([ran.location, ran.flash]).to.deep.equal(['/admin/cron', ['success: The task "cleanup_sessions" has run.']]);
    const unknown = await submit(root, 'admin/cron/nope/run', {});
    expect(unknown.flash).to.deep.equal(['error: Unknown cron task: nope']);
  });

  it('leaves a system notice when a cron task fails, and says so on the cron page', async () => {
    const pg = w.server.env.FORGE__DATABASE__DB_TYPE === 'postgres';
    // why: a trigger that refuses to delete one expired session makes cleanup_sessions fail the way a broken database would.
    await sql(w.server, 'INSERT INTO web_session (id, uid, data, created_unix, expiry) VALUES ($1, 0, $2, 1, 1)', ['doomed', '']);
    if (pg) {
      await sql(w.server, "CREATE FUNCTION forge_test_refuse() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'refused by the test'; END $$ LANGUAGE plpgsql");
      await sql(w.server, "CREATE TRIGGER refuse_doomed BEFORE DELETE ON web_session FOR EACH ROW WHEN (OLD.id = 'doomed') EXECUTE FUNCTION forge_test_refuse()");
    } else {
      await sql(w.server, "CREATE TRIGGER refuse_doomed BEFORE DELETE ON web_session FOR EACH ROW WHEN OLD.id = 'doomed' BEGIN SELECT RAISE(ABORT, 'refused by the test'); END");
    }
    try {
      const failed = await submit(root, 'admin/cron/cleanup_sessions/run', {});
      expect(failed.flash).to.deep.equal(['error: The task "cleanup_sessions" failed; the system notices say why.']);
      const notices = await sql(w.server, "SELECT type, description FROM notice WHERE description LIKE 'Cron task cleanup_sessions%'");
      expect(notices).to.have.length(1);
      expect(Number(notices[0].type)).to.equal(2);
      expect(notices[0].description).to.match(/^Cron task cleanup_sessions failed: .*refused by the test/);
      expect((await root.get('admin/notices')).text).to.include('Cron task cleanup_sessions failed');
    } finally {
      await sql(w.server, 'DROP TRIGGER refuse_doomed' + (pg ? ' ON web_session' : ''));
      if (pg) await sql(w.server, 'DROP FUNCTION forge_test_refuse()');
      await sql(w.server, "DELETE FROM notice WHERE description LIKE 'Cron task cleanup_sessions%'");
    }
  });

  it('lists the system notices newest first, deletes the selected ones and then all', async () => {
    const list = await root.get('admin/notices');
    expect(list.status).to.equal(200);
    const shown = (html: string) => [...html.matchAll(/class="notice-description">([^<]*)</g)].map((m) => m[1]);
    expect(shown(list.text)).to.deep.equal(['Cron task cleanup_packages failed: &lt;b&gt;no&lt;/b&gt;', 'Repository alice/gone: its directory could not be removed', 'Cron task update_mirrors failed: disk full']);
    const ids = (await sql(w.server, 'SELECT id FROM notice ORDER BY id')).map((r) => Number(r.id));
    const none = await submit(root, 'admin/notices/delete', {});
    expect(none.flash).to.deep.equal(['error: Select the notices to delete.']);
    expect(await count(w.server, 'SELECT COUNT(*) AS n FROM notice')).to.equal(3);
    const two = await submit(root, 'admin/notices/delete', { [`id-${ids[0]}`]: 'on', [`id-${ids[2]}`]: 'on' });
    expect([two.location, two.flash]).to.deep.equal(['/admin/notices', ['success: 2 notices deleted.']]);
    expect(shown(two.text)).to.deep.equal(['Repository alice/gone: its directory could not be removed']);
    const all = await submit(root, 'admin/notices/delete_all', {});
    expect(all.flash).to.deep.equal(['success: Every notice has been deleted.']);
    expect(all.text).to.include('No notices.');
    expect(await count(w.server, 'SELECT COUNT(*) AS n FROM notice')).to.equal(0);
  });

  it('lists every user\'s email addresses with their state, searchable and paginated as the API', async () => {
    const res = await root.get('admin/emails');
    expect(res.status).to.equal(200);
    const shown = [...res.text.matchAll(/class="email-address">([^<]+)</g)].map((m) => m[1]);
    const apiAll = (await api('GET', '/admin/emails?limit=50')).body.map((e: { email: string }) => e.email);
    expect(shown).to.deep.equal(apiAll);
    expect(res.text).to.include('Primary').and.include('Activated');
    const found = await root.get('admin/emails?q=mailer1');
    expect([...found.text.matchAll(/class="email-address">([^<]+)</g)].map((m) => m[1])).to.deep.equal(
      (await api('GET', '/admin/emails/search?q=mailer1')).body.map((e: { email: string }) => e.email),
    );
    expect((await root.get('admin/emails?q=nobody-has-this')).text).to.include('No email address matches');
  });

  it('deactivates and activates an address, a primary one with its account, but never the administrator\'s own primary', async () => {
    const u = await w.user('dora');
    const uid = String(u.id);
    const state = async () => {
      const e = (await api('GET', '/admin/emails/search?q=dora')).body as { verified: boolean }[];
      const acct = (await api('GET', '/users/dora')).body as { active: boolean };
      return [e.map((x) => x.verified), acct.active];
    };
    await root.get('admin/emails?q=dora');
    const off = await submit(root, 'admin/emails/activate', { uid, email: u.email, activate: 'false', q: 'dora', page: '1' });
    expect([off.location, off.flash]).to.deep.equal(['/admin/emails', [`success: The email address ${u.email} has been deactivated.`]]);
    expect(off.text).to.include(`aria-label="Activate ${u.email}"`);
    expect(await state()).to.deep.equal([[false], false]);
    expect((await w.raw('GET', '/user', undefined, { token: u.token })).status).to.not.equal(200);
    const on = await submit(root, 'admin/emails/activate', { uid, email: u.email, activate: 'true' });
    expect(on.flash).to.deep.equal([`success: The email address ${u.email} has been activated.`]);
    expect(await state()).to.deep.equal([[true], true]);
    expect((await w.raw('GET', '/user', undefined, { token: u.token })).status).to.equal(200);
    const self = await submit(root, 'admin/emails/activate', { uid: String(w.admin.id), email: w.admin.email, activate: 'false' });
    expect(self.flash).to.deep.equal(['error: You cannot deactivate your own primary email address.']);
    const mine = (await api('GET', `/admin/emails/search?q=${encodeURIComponent(w.admin.email)}`)).body as { verified: boolean }[];
    expect(mine.map((e) => e.verified)).to.deep.equal([true]);
    expect((await api('GET', `/users/${w.admin.name}`)).body.active).to.equal(true);
    const missing = await submit(root, 'admin/emails/activate', { uid, email: 'nobody@example.com', activate: 'true' });
    expect(missing.flash).to.deep.equal(['error: The email address does not exist.']);
  });

  it('lists every owner\'s packages by type and name, and deletes a version through the owners\' removal', async () => {
    const names = (html: string) => [...html.matchAll(/<tr class="package-row">[\s\S]*?<td>(\w+)<\/td>[\s\S]*?>([^<]+)<\/a><\/td>\s*<td>([^<]+)<\/td>/g)].map((m) => `${m[1]} ${m[2]} ${m[3]}`);
    const all = await root.get('admin/packages');
    expect(all.status).to.equal(200);
    expect(names(all.text)).to.deep.equal(['go example.com/beta v0.1.0', 'go example.com/alpha v1.1.0', 'go example.com/alpha v1.0.0']);
    expect(all.text).to.match(/<td>\d+(\.\d)? (B|KiB)<\/td>/);
    expect(names((await root.get('admin/packages?q=alpha')).text)).to.have.length(2);
    expect(names((await root.get('admin/packages?type=cran')).text)).to.deep.equal([]);
    expect(names((await root.get('admin/packages?type=go&q=beta')).text)).to.deep.equal(['go example.com/beta v0.1.0']);
    const id = Number((await sql(w.server, "SELECT id FROM package_version WHERE version = 'v1.0.0'"))[0].id);
    expect(all.text).to.include(`action="/admin/packages/${id}/delete"`);
    const gone = await submit(root, `admin/packages/${id}/delete`, {});
    expect([gone.location, gone.flash]).to.deep.equal(['/admin/packages', ['success: The package example.com/alpha v1.0.0 has been deleted.']]);
    const list = await (await fetch(`${w.server.url}api/packages/alice/go/example.com/alpha/@v/list`)).text();
    expect(list.split('\n').filter(Boolean)).to.deep.equal(['v1.1.0']);
    const again = await submit(root, `admin/packages/${id}/delete`, {});
    expect(again.flash).to.deep.equal(['error: The package version does not exist.']);
    expect(await versionCount()).to.equal(2);
  });
});
