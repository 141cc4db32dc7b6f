/**
 * checkPassword (src/services/auth/credentials.ts) against a fresh SQLite database: a sign-in with
 * an unknown name, an organization's name or a user without a password runs the same password
 * check as a wrong password of a real user, against a hash with the algorithm and cost of real
 * ones, so the time does not tell which names exist. What is observed is which check runs (each
 * call of the real verifyPassword is recorded and passed through), never how long it takes.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { loadSettings, useSettings } from '../../src/config';
import { openDatabase, closeDatabase, systemCtx } from '../../src/db';
import { migrate } from '../../src/db/migrate';
import { UserModel, UserType } from '../../src/models/user.model';
import * as password from '../../src/services/auth/password';
import { checkPassword } from '../../src/services/auth/credentials';

/** The stored form's shape: algorithm, cost parameters, and the byte lengths of salt and hash. */
const shape = (stored: string) => {
  const [alg, n, r, p, salt, hash] = stored.split('$');
  return { alg, n, r, p, salt: Buffer.from(salt, 'base64').length, hash: Buffer.from(hash, 'base64').length };
};

describe('password check of an account that does not exist', () => {
  let dir: string;
  let realHash: string;
  const checked: string[] = [];
  const original = password.verifyPassword;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'forge-cred-'));
    const s = loadSettings(null, { FORGE__SERVER__APP_DATA_PATH: dir, FORGE__LOG__LEVEL: 'none', FORGE__SECURITY__LOGIN_MAX_FAILURES: '1000' });
    useSettings(s);
    await migrate(openDatabase(s), s);
    realHash = await password.hashPassword('right-password-1');
    await UserModel.create({ name: 'real', lowerName: 'real', email: 'real@x.test', type: UserType.Individual, passwdHash: realHash });
    await UserModel.create({ name: 'nopass', lowerName: 'nopass', email: 'nopass@x.test', type: UserType.Individual, passwdHash: '' });
    await UserModel.create({ name: 'someorg', lowerName: 'someorg', email: '', type: UserType.Organization });
    // why: the module's export is what credentials.ts calls; the wrapper records the stored hash and runs the real check.
    (password as { verifyPassword: typeof original }).verifyPassword = (pw: string, stored: string) => {
      checked.push(stored);
      return original(pw, stored);
    };
  });
  after(async () => {
    (password as { verifyPassword: typeof original }).verifyPassword = original;
    await closeDatabase();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => { checked.length = 0; });

  it('checks a wrong password of a real user against its hash', async () => {
    expect(await checkPassword(systemCtx, '192.0.2.1', 'real', 'wrong-password')).to.equal(null);
    expect(checked).to.deep.equal([realHash]);
    expect((await checkPassword(systemCtx, '192.0.2.1', 'real', 'right-password-1'))?.name).to.equal('real');
  });

  for (const [what, login] of [['an unknown name', 'ghost-of-nobody'], ['a user without a password', 'nopass'], ['an organization', 'someorg']]) {
    it(`runs one check of the same cost for ${what}, which no password passes`, async () => {
      for (const attempt of ['wrong-password', 'right-password-1', '']) {
        expect(await checkPassword(systemCtx, '192.0.2.1', login, attempt)).to.equal(null);
      }
      expect(checked).to.have.length(3);
      expect(new Set(checked).size, 'the same stand-in hash each time').to.equal(1);
      expect(checked[0]).to.not.equal(realHash);
      expect(shape(checked[0])).to.deep.equal(shape(realHash));
      expect(shape(checked[0])).to.include({ alg: 'scrypt', n: '16384', r: '8', p: '1' });
    });
  }
});
