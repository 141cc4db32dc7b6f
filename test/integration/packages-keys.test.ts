/**
 * The signing keys of an owner's Linux package repositories, as gpg and openssl read them: the
 * Debian and RPM OpenPGP keys (RSA 3072, Gitea's user ids), the Alpine RSA key under the file name
 * apk looks it up by; each made once (also when two requests race), its private half stored sealed,
 * and kept to those who may read the owner's packages.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { sql } from '../helpers/db';
import { basicAuth } from '../helpers/packages';

const run = promisify(execFile);

describe('packages: the repositories\' signing keys', function () {
  this.timeout(120_000);
  let w: World;
  let alice: TestUser;
  let tmp: string;
  const key = (owner: string, p: string, u?: TestUser) => fetch(`${w.server.url}api/packages/${owner}/${p}`, { headers: u ? { Authorization: basicAuth(u) } : {} });

  before(async () => {
    w = await startWorld();
    alice = await w.user('alice');
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'forge-keys-'));
  });
  after(async () => {
    await w?.stop();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  /** What gpg says of an armored public key: its algorithm, length and user ids. */
  async function gpgShow(armored: string): Promise<{ algo: string; bits: string; uids: string[] }> {
    const file = path.join(tmp, `${crypto.randomUUID()}.asc`);
    fs.writeFileSync(file, armored);
    const out = (await run('gpg', ['--batch', '--with-colons', '--show-keys', file], { env: { PATH: process.env.PATH!, GNUPGHOME: fs.mkdtempSync(path.join(tmp, 'gpg-')) } })).stdout;
    const pub = out.split('\n').find((l) => l.startsWith('pub:'))!.split(':');
    return { algo: pub[3], bits: pub[2], uids: out.split('\n').filter((l) => l.startsWith('uid:')).map((l) => l.split(':')[9]) };
  }

  it('serves a Debian and an RPM OpenPGP key (RSA 3072), the same each time, the private halves sealed', async () => {
    const deb = await key('alice', 'debian/repository.key');
    expect(deb.status).to.equal(200);
    expect(deb.headers.get('content-type')).to.match(/^application\/pgp-keys/);
    const debKey = await deb.text();
    expect(await gpgShow(debKey)).to.deep.equal({ algo: '1', bits: '3072', uids: ['alice (Debian Registry)'] });
    expect(await (await key('alice', 'debian/repository.key')).text()).to.equal(debKey);
    const rpmKey = await (await key('alice', 'rpm/repository.key')).text();
    expect(await gpgShow(rpmKey)).to.deep.equal({ algo: '1', bits: '3072', uids: ['alice (RPM Registry)'] });
    expect(rpmKey).to.not.equal(debKey);
    const stored = await sql(w.server, `SELECT setting_key, setting_value FROM user_setting WHERE user_id = ${alice.id} AND setting_key LIKE '%.key.private'`);
    expect(stored.map((r) => r.setting_key).sort()).to.deep.equal(['debian.key.private', 'rpm.key.private']);
    for (const r of stored) expect(String(r.setting_value)).to.not.include('PRIVATE KEY');
  });

  it('serves the Alpine RSA key (4096) under the name apk looks it up by', async () => {
    const res = await key('alice', 'alpine/key');
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^application\/x-pem-file/);
    const pem = await res.text();
    const file = path.join(tmp, 'alpine.pub');
    fs.writeFileSync(file, pem);
    expect((await run('openssl', ['pkey', '-pubin', '-in', file, '-noout', '-text'])).stdout).to.include('Public-Key: (4096 bit)');
    const der = (await run('openssl', ['pkey', '-pubin', '-in', file, '-outform', 'DER'], { encoding: 'buffer' })).stdout;
    const name = `alice@${crypto.createHash('sha256').update(der).digest('hex')}.rsa.pub`;
    expect(res.headers.get('content-disposition')).to.equal(`attachment; filename="${name}"`);
  });

  it('makes one key when two first requests race, and keeps a private owner\'s keys to those who may read', async () => {
    const pat = await w.user('pat', { visibility: 'private' });
    const bob = await w.user('bob');
    const [a, b] = await Promise.all([key('pat', 'debian/repository.key', pat), key('pat', 'debian/repository.key', pat)]);
    expect([a.status, b.status]).to.deep.equal([200, 200]);
    expect(await a.text()).to.equal(await b.text());
    expect(Number((await sql(w.server, `SELECT COUNT(*) AS n FROM user_setting WHERE user_id = ${pat.id} AND setting_key = 'debian.key.public'`))[0].n)).to.equal(1);
    const outsider = await key('pat', 'alpine/key', bob);
    expect([outsider.status, outsider.headers.get('www-authenticate')]).to.deep.equal([401, 'Basic realm="Gitea Package API"']);
    expect((await key('pat', 'rpm/repository.key')).status).to.equal(401);
  });
});
