/**
 * The mailer's settings as Gitea reads them (port and protocol inferred from each other, FROM split
 * into name and address, a bad FROM refused at start) and the codes of account mails against a
 * fresh SQLite database: a code works for its purpose, user and address only, until it expires
 * (with the lifetime configured now, when that is shorter), and stops working once the password
 * or `rands` changes.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { ConfigError, loadSettings, useSettings } from '../../src/config';
import { openDatabase, closeDatabase, systemCtx } from '../../src/db';
import { migrate } from '../../src/db/migrate';
import { UserModel, UserType } from '../../src/models/user.model';
import { makeCode, verifyCode } from '../../src/services/mail/codes';

describe('mail settings and codes', () => {
  let dir: string;
  const base = () => ({ FORGE__SERVER__APP_DATA_PATH: dir, FORGE__LOG__LEVEL: 'none' });

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'forge-mail-'));
    const s = loadSettings(null, { ...base(), FORGE__SECURITY__SECRET_KEY: 'unit-secret' });
    useSettings(s);
    await migrate(openDatabase(s), s);
    await UserModel.create({ name: 'Mia', lowerName: 'mia', email: 'mia@x.test', type: UserType.Individual, passwdHash: 'hash-1', rands: 'r1' });
  });
  after(async () => {
    await closeDatabase();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('infers the port from the protocol and the protocol from the port or a socket path, as Gitea', () => {
    const read = (env: Record<string, string>) => loadSettings(null, { ...base(), FORGE__MAILER__ENABLED: 'true', ...env }).mailer;
    expect(read({ FORGE__MAILER__PROTOCOL: 'smtps' })).to.include({ protocol: 'smtps', smtpPort: 465 });
    expect(read({ FORGE__MAILER__PROTOCOL: 'SMTP+STARTTLS' })).to.include({ protocol: 'smtp+starttls', smtpPort: 587 });
    expect(read({ FORGE__MAILER__SMTP_PORT: '25' })).to.include({ protocol: 'smtp', smtpPort: 25 });
    expect(read({ FORGE__MAILER__SMTP_ADDR: '/run/mail.sock' })).to.include({ protocol: 'smtp+unix' });
    const odd = loadSettings(null, { ...base(), FORGE__MAILER__ENABLED: 'true', FORGE__MAILER__SMTP_PORT: '2525' });
    expect(odd.mailer).to.include({ protocol: 'smtps', smtpPort: 2525 });
    expect(odd.warnings.join('\n')).to.contain('assuming smtps');
  });

  it('splits FROM into name and address (USER when FROM is empty) and refuses one it cannot read', () => {
    const read = (env: Record<string, string>) => loadSettings(null, { ...base(), ...env }).mailer;
    expect(read({ FORGE__MAILER__FROM: '"Forge Bot" <bot@x.test>' })).to.include({ fromName: 'Forge Bot', fromAddress: 'bot@x.test' });
    expect(read({ FORGE__MAILER__FROM: 'bot@x.test' })).to.include({ fromName: '', fromAddress: 'bot@x.test' });
    expect(read({ FORGE__MAILER__USER: 'relay@x.test' })).to.include({ fromAddress: 'relay@x.test' });
    expect(() => read({ FORGE__MAILER__FROM: 'not an address' })).to.throw(ConfigError, /FROM/);
    expect(() => read({ FORGE__MAILER__PROTOCOL: 'carrier-pigeon' })).to.throw(ConfigError, /PROTOCOL/);
  });

  it('turns REGISTER_EMAIL_CONFIRM and ENABLE_NOTIFY_MAIL off without the mailer, with a warning', () => {
    const s = loadSettings(null, { ...base(), FORGE__SERVICE__REGISTER_EMAIL_CONFIRM: 'true', FORGE__SERVICE__ENABLE_NOTIFY_MAIL: 'true' });
    expect(s.service).to.include({ registerEmailConfirm: false, enableNotifyMail: false });
    expect(s.warnings.join('\n')).to.contain('[mailer] is not enabled');
  });

  it('accepts a code for its purpose, user and address only, until it expires', async () => {
    const mia = (await UserModel.findOne({ where: { lowerName: 'mia' } }))!;
    const code = makeCode('reset_password', mia, mia.email);
    expect((await verifyCode(systemCtx, 'reset_password', code))?.id).to.equal(mia.id);
    expect(await verifyCode(systemCtx, 'activate_account', code), 'another purpose').to.equal(null);
    expect(await verifyCode(systemCtx, 'reset_password', code, 'other@x.test'), 'another address').to.equal(null);
    const flipped = `${code.slice(0, 30)}${code[30] === '0' ? '1' : '0'}${code.slice(31)}`;
    expect(await verifyCode(systemCtx, 'reset_password', flipped), 'a forged mac').to.equal(null);
    expect(await verifyCode(systemCtx, 'reset_password', 'x'.repeat(70)), 'not a code').to.equal(null);
    const old = makeCode('reset_password', mia, mia.email, new Date(Date.now() - 181 * 60_000));
    expect(await verifyCode(systemCtx, 'reset_password', old), '181 minutes old').to.equal(null);
    const recent = makeCode('reset_password', mia, mia.email, new Date(Date.now() - 60 * 60_000));
    expect(await verifyCode(systemCtx, 'reset_password', recent), 'an hour old').to.not.equal(null);
    useSettings(loadSettings(null, { ...base(), FORGE__SECURITY__SECRET_KEY: 'unit-secret', FORGE__SERVICE__RESET_PASSWD_CODE_LIVE_MINUTES: '30' }));
    expect(await verifyCode(systemCtx, 'reset_password', recent), 'the lifetime shortened since').to.equal(null);
    useSettings(loadSettings(null, { ...base(), FORGE__SECURITY__SECRET_KEY: 'unit-secret' }));
  });

  it('voids a code when the password or rands changes', async () => {
    const mia = (await UserModel.findOne({ where: { lowerName: 'mia' } }))!;
    const code = makeCode('activate_email', mia, 'second@x.test');
    expect(await verifyCode(systemCtx, 'activate_email', code, 'second@x.test')).to.not.equal(null);
    await UserModel.update({ rands: 'r2' }, { where: { id: mia.id } });
    expect(await verifyCode(systemCtx, 'activate_email', code, 'second@x.test'), 'rands rotated').to.equal(null);
    const reset = makeCode('reset_password', (await UserModel.findByPk(mia.id))!, mia.email);
    await UserModel.update({ passwdHash: 'hash-2' }, { where: { id: mia.id } });
    expect(await verifyCode(systemCtx, 'reset_password', reset), 'password changed').to.equal(null);
  });
});
