/**
 * The `forge` command line: `admin user create|list|change-password|delete|generate-access-token|
 * must-change-password`, `admin badge create`, `migrate`, usage errors.
 * Each command runs against the configuration and database of a running test server.
 */
import { expect } from 'chai';
import { startWorld, type World } from '../helpers/world';
import { count, sql } from '../helpers/db';

describe('forge CLI', function () {
  let w: World;
  before(async () => { w = await startWorld(); });
  after(async () => { await w?.stop(); });

  const create = (name: string, ...extra: string[]) =>
    w.server.cli(['admin', 'user', 'create', '--username', name, '--password', 'cli-password-1', '--email', `${name}@example.com`, ...extra]);

  it('creates a user who can then sign in with HTTP Basic', async () => {
    const out = await create('cliuser', '--must-change-password=false');
    expect(out.code, out.stderr).to.equal(0);
    expect(out.stdout).to.include("New user 'cliuser' has been successfully created!");
    const res = await w.raw('GET', '/users/cliuser/tokens', undefined, { basic: ['cliuser', 'cli-password-1'] });
    expect(res.status).to.equal(200);
    const list = await w.admin.api.admin.adminSearchUsers({ login_name: 'cliuser' });
    expect(list.data).to.have.length(1);
    expect(list.data[0]).to.include({ login: 'cliuser', email: 'cliuser@example.com', is_admin: false, active: true });
    // not an administrator
    expect((await w.raw('GET', '/admin/users', undefined, { basic: ['cliuser', 'cli-password-1'] })).status).to.equal(403);
  });

  it('creates a site administrator with --admin', async () => {
    const out = await create('cliadmin', '--admin', '--must-change-password=false');
    expect(out.code, out.stderr).to.equal(0);
    const res = await w.raw('GET', '/admin/users', undefined, { basic: ['cliadmin', 'cli-password-1'] });
    expect(res.status).to.equal(200);
    expect(res.body.map((u: { login: string }) => u.login)).to.include('cliadmin');
  });

  it('makes the new user change the password first by default', async () => {
    const out = await create('mustchange');
    expect(out.code, out.stderr).to.equal(0);
    const res = await w.raw('GET', '/users/mustchange/tokens', undefined, { basic: ['mustchange', 'cli-password-1'] });
    expect(res.status).to.equal(403);
    expect(res.body.message).to.equal(`You must change your password. Change it at: ${w.server.url}user/change_password`);
    const list = await w.admin.api.admin.adminSearchUsers({ login_name: 'mustchange' });
    expect(list.data).to.have.length(1);
  });

  it('refuses a duplicate user with a clear message and a non-zero exit, and changes nothing', async () => {
    const before = await count(w.server, 'SELECT COUNT(*) AS n FROM users');
    const out = await w.server.cli(['admin', 'user', 'create', '--username', 'CLIUSER', '--password', 'other-password-1', '--email', 'other@example.com']);
    expect(out.code).to.not.equal(0);
    expect(out.stderr).to.include('user already exists [name: CLIUSER]');
    const dupEmail = await w.server.cli(['admin', 'user', 'create', '--username', 'another', '--password', 'other-password-1', '--email', 'cliuser@example.com']);
    expect(dupEmail.code).to.not.equal(0);
    expect(dupEmail.stderr).to.include('e-mail already in use [email: cliuser@example.com]');
    expect(await count(w.server, 'SELECT COUNT(*) AS n FROM users')).to.equal(before);
    // the original keeps its password
    expect((await w.raw('GET', '/users/cliuser/tokens', undefined, { basic: ['cliuser', 'cli-password-1'] })).status).to.equal(200);
  });

  it('refuses missing flags and bad values with a message and a non-zero exit', async () => {
    const missing = await w.server.cli(['admin', 'user', 'create', '--username', 'nopass', '--email', 'nopass@example.com']);
    expect(missing.code).to.not.equal(0);
    expect(missing.stderr).to.include('missing --password');
    const short = await w.server.cli(['admin', 'user', 'create', '--username', 'shortpw', '--password', 'short', '--email', 'shortpw@example.com']);
    expect(short.code).to.not.equal(0);
    expect(short.stderr).to.include('password must be at least 8 characters');
    expect(await count(w.server, "SELECT COUNT(*) AS n FROM users WHERE lower_name IN ('nopass', 'shortpw')")).to.equal(0);
  });

  it('prints the usage and exits non-zero for an unknown subcommand', async () => {
    for (const args of [['admin', 'user', 'frobnicate'], ['admin', 'nothing'], ['no-such-command']]) {
      const out = await w.server.cli(args);
      expect(out.code, args.join(' ')).to.not.equal(0);
      expect(out.stderr).to.include('usage: forge');
      expect(out.stderr).to.match(/unknown (admin )?command/);
    }
  });

  it('says the database is up to date on `forge migrate`', async () => {
    const out = await w.server.cli(['migrate']);
    expect(out.code, out.stderr).to.equal(0);
    expect(out.stdout).to.include('database is up to date');
  });

  describe('admin user administration', () => {
    const asBasic = (name: string, password: string) => w.raw('GET', '/user', undefined, { basic: [name, password] });

    it('lists individual users by id, and only administrators with --admin', async () => {
      const u = await w.user('listed');
      const org = await w.raw('POST', '/orgs', { username: 'listorg' }, { token: u.token });
      expect(org.status).to.equal(201);
      const out = await w.server.cli(['admin', 'user', 'list']);
      expect(out.code, out.stderr).to.equal(0);
      const lines = out.stdout.trimEnd().split('\n');
      expect(lines[0].split(/ +/)).to.deep.equal(['ID', 'Username', 'Email', 'IsActive', 'IsAdmin', '2FA']);
      const rows = lines.slice(1).map((l) => l.split(/ +/));
      expect(rows.map((r) => Number(r[0]))).to.deep.equal(rows.map((r) => Number(r[0])).sort((a, b) => a - b));
      expect(rows.find((r) => r[1] === 'listed')).to.deep.equal([String(u.id), 'listed', 'listed@example.com', 'true', 'false', 'false']);
      expect(rows.find((r) => r[1] === 'root')?.[4]).to.equal('true');
      expect(rows.map((r) => r[1])).to.not.include('listorg');
      // columns line up: every row starts its Email column where the header does
      const at = lines[0].indexOf('Email');
      for (const l of lines.slice(1)) expect(l[at - 1]).to.equal(' ');
      const admins = await w.server.cli(['admin', 'user', 'list', '--admin']);
      expect(admins.code, admins.stderr).to.equal(0);
      const adminLines = admins.stdout.trimEnd().split('\n');
      expect(adminLines[0].split(/ +/)).to.deep.equal(['ID', 'Username', 'Email', 'IsActive']);
      const names = adminLines.slice(1).map((l) => l.split(/ +/)[1]);
      expect(names).to.include('root');
      expect(names).to.not.include('listed');
    });

    it('changes a password, which takes effect at once and must be changed at next sign-in unless told otherwise', async () => {
      const u = await w.user('pwchange');
      const out = await w.server.cli(['admin', 'user', 'change-password', '--username', 'pwchange', '--password', 'brand-new-pass-1']);
      expect(out.code, out.stderr).to.equal(0);
      expect(out.stdout).to.equal("pwchange's password has been successfully updated!\n");
      expect((await asBasic('pwchange', u.password)).status).to.equal(401);
      const must = await asBasic('pwchange', 'brand-new-pass-1');
      expect(must.status).to.equal(403);
      expect(must.body.message).to.match(/You must change your password/);
      const again = await w.server.cli(['admin', 'user', 'change-password', '-u', 'x', '--username', 'pwchange', '--password', 'second-pass-12', '--must-change-password=false']);
      expect(again.code, again.stderr).to.equal(0);
      expect((await asBasic('pwchange', 'second-pass-12')).status).to.equal(200);
    });

    it('refuses a password change for a missing user or a short password, and changes nothing', async () => {
      const u = await w.user('pwkeep');
      const hash = (await sql(w.server, "SELECT passwd_hash FROM users WHERE lower_name = 'pwkeep'"))[0].passwd_hash;
      const missing = await w.server.cli(['admin', 'user', 'change-password', '--username', 'nobody-here', '--password', 'whatever-123']);
      expect(missing.code).to.equal(1);
      expect(missing.stderr).to.equal('Command error: user does not exist [uid: 0, name: nobody-here]\n');
      const short = await w.server.cli(['admin', 'user', 'change-password', '--username', 'pwkeep', '--password', 'short']);
      expect(short.code).to.equal(1);
      expect(short.stderr).to.include('password must be at least 8 characters');
      const noPassword = await w.server.cli(['admin', 'user', 'change-password', '--username', 'pwkeep']);
      expect(noPassword.code).to.equal(2);
      expect(noPassword.stderr).to.include('missing --password');
      expect((await sql(w.server, "SELECT passwd_hash FROM users WHERE lower_name = 'pwkeep'"))[0].passwd_hash).to.equal(hash);
      expect((await asBasic('pwkeep', u.password)).status).to.equal(200);
    });

    it('generates access tokens that work, raw or with Gitea\'s sentence, and refuses a duplicate name', async () => {
      await w.user('tokuser');
      const out = await w.server.cli(['admin', 'user', 'generate-access-token', '--username', 'tokuser', '--token-name', 'ci', '--scopes', 'read:user']);
      expect(out.code, out.stderr).to.equal(0);
      const m = /^Access token was successfully created: ([0-9a-f]{40})\n$/.exec(out.stdout);
      expect(m, out.stdout).to.not.equal(null);
      const me = await w.raw('GET', '/user', undefined, { token: m![1] });
      expect(me.status).to.equal(200);
      expect(me.body.login).to.equal('tokuser');
      // read:user does not allow writes to repositories
      expect((await w.raw('POST', '/user/repos', { name: 'nope' }, { token: m![1] })).status).to.equal(403);
      const raw = await w.server.cli(['admin', 'user', 'generate-access-token', '--username', 'tokuser', '--token-name', 'raw', '--raw']);
      expect(raw.code, raw.stderr).to.equal(0);
      expect(raw.stdout).to.match(/^[0-9a-f]{40}\n$/);
      expect((await w.raw('POST', '/user/repos', { name: 'made-by-cli-token' }, { token: raw.stdout.trim() })).status).to.equal(201);
      const before = await count(w.server, "SELECT COUNT(*) AS n FROM access_token WHERE name = 'ci'");
      const dup = await w.server.cli(['admin', 'user', 'generate-access-token', '--username', 'tokuser', '--token-name', 'ci']);
      expect(dup.code).to.equal(1);
      expect(dup.stderr).to.equal('Command error: access token name has been used already\n');
      const badScope = await w.server.cli(['admin', 'user', 'generate-access-token', '--username', 'tokuser', '--token-name', 'bad', '--scopes', 'write:everything']);
      expect(badScope.code).to.equal(1);
      expect(badScope.stderr).to.match(/^Command error: .*scope/);
      expect(await count(w.server, "SELECT COUNT(*) AS n FROM access_token WHERE name IN ('ci', 'bad')")).to.equal(before);
    });

    it('sets and unsets must-change-password for named users, or all but the excluded', async () => {
      const a = await w.user('mcpa');
      const b = await w.user('mcpb');
      const set = await w.server.cli(['admin', 'user', 'must-change-password', 'mcpa', 'no-such-user']);
      expect(set.code, set.stderr).to.equal(0);
      expect(set.stdout).to.equal('Updated 1 users setting MustChangePassword to true\n');
      expect((await asBasic('mcpa', a.password)).status).to.equal(403);
      expect((await asBasic('mcpb', b.password)).status).to.equal(200);
      const unset = await w.server.cli(['admin', 'user', 'must-change-password', '--unset', 'mcpa']);
      expect(unset.stdout).to.equal('Updated 1 users setting MustChangePassword to false\n');
      expect((await asBasic('mcpa', a.password)).status).to.equal(200);
      const flagged = await count(w.server, 'SELECT COUNT(*) AS n FROM users WHERE type = 0 AND must_change_password = false');
      const all = await w.server.cli(['admin', 'user', 'must-change-password', '--all', '--exclude', 'root', '--exclude', 'mcpb']);
      expect(all.code, all.stderr).to.equal(0);
      expect(all.stdout).to.equal(`Updated ${flagged - 2} users setting MustChangePassword to true\n`);
      expect((await asBasic('mcpa', a.password)).status).to.equal(403);
      expect((await asBasic('mcpb', b.password)).status).to.equal(200);
      expect((await w.raw('GET', '/user', undefined, { token: w.admin.token })).status).to.equal(200);
      await w.server.cli(['admin', 'user', 'must-change-password', '--all', '--unset']);
      const none = await w.server.cli(['admin', 'user', 'must-change-password']);
      expect(none.code).to.equal(1);
      expect(none.stderr).to.equal('Command error: either usernames or --all must be provided\n');
    });

    it('deletes a user by name, id or email; refuses owners without --purge and the last administrator', async () => {
      const gone = await w.user('deleteme');
      const del = await w.server.cli(['admin', 'user', 'delete', '--username', 'deleteme']);
      expect(del.code, del.stderr).to.equal(0);
      expect(del.stdout).to.equal('');
      expect((await w.raw('GET', '/users/deleteme')).status).to.equal(404);
      expect((await w.raw('GET', '/user', undefined, { token: gone.token })).status).to.equal(401);

      const byId = await w.user('deletebyid');
      expect((await w.server.cli(['admin', 'user', 'delete', '--id', String(byId.id), '--email', 'deletebyid@example.com'])).code).to.equal(0);
      expect((await w.raw('GET', '/users/deletebyid')).status).to.equal(404);

      const owner = await w.user('deleteowner');
      expect((await w.raw('POST', '/user/repos', { name: 'kept' }, { token: owner.token })).status).to.equal(201);
      const users = await count(w.server, 'SELECT COUNT(*) AS n FROM users');
      const refused = await w.server.cli(['admin', 'user', 'delete', '--username', 'deleteowner']);
      expect(refused.code).to.equal(1);
      expect(refused.stderr).to.equal(`Command error: user still has ownership of repositories [uid: ${owner.id}]\n`);
      const mismatch = await w.server.cli(['admin', 'user', 'delete', '--username', 'deleteowner', '--id', String(w.admin.id)]);
      expect(mismatch.code).to.equal(1);
      const none = await w.server.cli(['admin', 'user', 'delete']);
      expect(none.code).to.equal(1);
      expect(none.stderr).to.equal('Command error: You must provide the id, username or email of a user to delete\n');
      expect(await count(w.server, 'SELECT COUNT(*) AS n FROM users')).to.equal(users);
      expect((await w.raw('GET', '/repos/deleteowner/kept', undefined, { token: owner.token })).status).to.equal(200);

      const purged = await w.server.cli(['admin', 'user', 'delete', '--username', 'deleteowner', '--purge']);
      expect(purged.code, purged.stderr).to.equal(0);
      expect((await w.raw('GET', '/repos/deleteowner/kept', undefined, { token: w.admin.token })).status).to.equal(404);
    });

    it('refuses to delete the last administrator', async () => {
      const admins = (await sql(w.server, 'SELECT id, lower_name FROM users WHERE is_admin = true AND type = 0')) as { id: number; lower_name: string }[];
      // demote every other administrator first, so root is the last one
      for (const a of admins.filter((x) => x.lower_name !== 'root')) {
        expect((await w.raw('PATCH', `/admin/users/${a.lower_name}`, { login_name: a.lower_name, admin: false }, { token: w.admin.token })).status).to.equal(200);
      }
      const out = await w.server.cli(['admin', 'user', 'delete', '--username', 'root']);
      expect(out.code).to.equal(1);
      expect(out.stderr).to.equal(`Command error: can not delete the last admin user [uid: ${w.admin.id}]\n`);
      expect((await w.raw('GET', '/user', undefined, { token: w.admin.token })).status).to.equal(200);
    });
  });
});
