/**
 * The `forge` command line: `admin user create`, `admin badge create`, `migrate`, usage errors.
 * Each command runs against the configuration and database of a running test server.
 */
import { expect } from 'chai';
import { startWorld, type World } from '../helpers/world';
import { count } from '../helpers/db';

describe('forge CLI', function () {
  this.timeout(60_000);
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
});
