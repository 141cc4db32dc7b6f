/**
 * SSH host keys: generated once (0600, with a .pub), read back unchanged on every later start,
 * the same key when several processes start at once, and a clear error for a file that is no key.
 */
import { expect } from 'chai';
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { keyTypeFor, loadHostKeys, loadOrCreateHostKey } from '../../ssh/host-keys';
import { tempDir } from '../helpers/keys';

const execFileP = promisify(execFile);
const HOST_KEYS_JS = path.resolve(__dirname, '..', '..', 'ssh', 'host-keys.js');

function keygenFingerprint(file: string): string {
  return execFileSync('ssh-keygen', ['-l', '-E', 'sha256', '-f', file]).toString().split(/\s+/)[1];
}

describe('ssh host keys', () => {
  it('picks the key type from the file name', () => {
    expect(keyTypeFor('/d/forge.ed25519').type).to.equal('ed25519');
    expect(keyTypeFor('/d/gitea.rsa')).to.deep.equal({ type: 'rsa', bits: 3072 });
    expect(keyTypeFor('/d/host_ecdsa_key').type).to.equal('ecdsa');
    expect(keyTypeFor('/d/other').type).to.equal('rsa');
  });

  it('generates missing ed25519 and rsa keys with mode 0600 and a matching .pub, then reads them unchanged', async () => {
    const dir = path.join(tempDir('forge-hostkeys-'), 'ssh');
    const files = [path.join(dir, 'forge.ed25519'), path.join(dir, 'forge.rsa')];
    const first = await loadHostKeys(files);
    expect(first.map((k) => k.type)).to.deep.equal(['ssh-ed25519', 'ssh-rsa']);
    for (const k of first) {
      expect(fs.statSync(k.file).mode & 0o777).to.equal(0o600);
      expect(keygenFingerprint(k.file)).to.equal(k.fingerprint);
      expect(keygenFingerprint(`${k.file}.pub`)).to.equal(k.fingerprint);
    }
    expect(fs.statSync(dir).mode & 0o777).to.equal(0o700);
    const bytes = files.map((f) => fs.readFileSync(f));
    const again = await loadHostKeys(files);
    expect(again.map((k) => k.fingerprint)).to.deep.equal(first.map((k) => k.fingerprint));
    expect(files.map((f) => fs.readFileSync(f))).to.deep.equal(bytes);
    expect(fs.readdirSync(dir).sort()).to.deep.equal(['forge.ed25519', 'forge.ed25519.pub', 'forge.rsa', 'forge.rsa.pub']);
  });

  it('rebuilds a missing .pub from the private key', async () => {
    const file = path.join(tempDir('forge-hostkeys-'), 'forge.ed25519');
    const k = await loadOrCreateHostKey(file);
    fs.rmSync(`${file}.pub`);
    await loadOrCreateHostKey(file);
    expect(keygenFingerprint(`${file}.pub`)).to.equal(k.fingerprint);
  });

  it('concurrent starts in one process agree on one key and leave no temp files', async () => {
    const file = path.join(tempDir('forge-hostkeys-'), 'ssh', 'forge.ed25519');
    const keys = await Promise.all([1, 2, 3, 4, 5].map(() => loadOrCreateHostKey(file)));
    expect(new Set(keys.map((k) => k.fingerprint)).size).to.equal(1);
    expect(keys[0].fingerprint).to.equal(keygenFingerprint(file));
    expect(fs.readdirSync(path.dirname(file)).sort()).to.deep.equal(['forge.ed25519', 'forge.ed25519.pub']);
  });

  it('four processes starting at once all end up with the same keys', async () => {
    const dir = path.join(tempDir('forge-hostkeys-'), 'ssh');
    const files = [path.join(dir, 'forge.ed25519'), path.join(dir, 'forge.rsa')];
    const script = `require(${JSON.stringify(HOST_KEYS_JS)}).loadHostKeys(${JSON.stringify(files)}).then((k) => console.log(k.map((x) => x.fingerprint).join(',')))`;
    const outs = await Promise.all([1, 2, 3, 4].map(() => execFileP(process.execPath, ['-e', script])));
    const seen = new Set(outs.map((o) => o.stdout.trim()));
    expect(seen.size).to.equal(1);
    expect([...seen][0]).to.equal(files.map(keygenFingerprint).join(','));
    expect(fs.readdirSync(dir).sort()).to.deep.equal(['forge.ed25519', 'forge.ed25519.pub', 'forge.rsa', 'forge.rsa.pub']);
  });

  it('refuses a file that is not a private key, naming it', async () => {
    const file = path.join(tempDir('forge-hostkeys-'), 'forge.ed25519');
    fs.writeFileSync(file, 'not a key\n', { mode: 0o600 });
    let err: Error | null = null;
    try { await loadOrCreateHostKey(file); } catch (e) { err = e as Error; }
    expect(err?.message).to.contain(file).and.to.contain('not an unencrypted private key');
  });
});
