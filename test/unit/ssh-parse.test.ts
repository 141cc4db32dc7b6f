/**
 * The SSH public key parser: real keys from ssh-keygen, fingerprints as ssh-keygen prints them,
 * the size policy, and refusals of garbage, private keys, certificates and several keys.
 */
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseSshPublicKey, InvalidSshKey, rsaModulusBits } from '../../src/services/keys/ssh-parse';
import { sshKeygen, tempDir } from '../helpers/keys';

const sizes = { ed25519: 256, ecdsa: 256, rsa: 2047 };

function refused(input: string, match: RegExp, min = sizes): void {
  expect(() => parseSshPublicKey(input, min)).to.throw(InvalidSshKey, match);
}

describe('ssh-parse', () => {
  for (const [type, bits, family, want] of [
    ['ed25519', undefined, 'ed25519', 256], ['ecdsa', 256, 'ecdsa', 256], ['ecdsa', 384, 'ecdsa', 384],
    ['ecdsa', 521, 'ecdsa', 521], ['rsa', 2048, 'rsa', 2048], ['rsa', 3072, 'rsa', 3072],
  ] as const) {
    it(`accepts ${type}${bits ? `-${bits}` : ''} with ssh-keygen's fingerprint and a normalized content`, () => {
      const k = sshKeygen(type, bits, 'me@host');
      const p = parseSshPublicKey(k.pub, sizes);
      expect(p.family).to.equal(family);
      expect(p.bits).to.equal(want);
      expect(p.fingerprint).to.equal(k.fingerprint);
      const [t, b64] = k.pub.trim().split(' ');
      expect(p.content).to.equal(`${t} ${b64}`);
      expect(p.type).to.equal(t);
      expect(p.comment).to.equal('me@host');
    });
  }

  it('accepts surrounding whitespace and no comment', () => {
    const k = sshKeygen('ed25519');
    const [t, b64] = k.pub.trim().split(' ');
    expect(parseSshPublicKey(`\n  ${t} ${b64}  \n`, sizes).content).to.equal(`${t} ${b64}`);
  });

  it('accepts the RFC 4716 form ssh-keygen -e writes, with the same fingerprint', () => {
    const dir = tempDir();
    const k = sshKeygen('ed25519');
    fs.writeFileSync(path.join(dir, 'k.pub'), k.pub);
    const rfc = execFileSync('ssh-keygen', ['-e', '-f', path.join(dir, 'k.pub')]).toString();
    expect(rfc).to.match(/BEGIN SSH2 PUBLIC KEY/);
    const p = parseSshPublicKey(rfc, sizes);
    expect(p.fingerprint).to.equal(k.fingerprint);
    expect(p.content).to.equal(k.pub.trim().split(' ').slice(0, 2).join(' '));
    expect(p.comment).to.match(/ED25519/);
  });

  it('refuses a 1024-bit RSA key under the default policy, with Gitea\'s wording', () => {
    const k = sshKeygen('rsa', 1024);
    refused(k.pub, /^key length is not enough: got 1024, needs 2047$/);
  });

  it('honours the configured sizes: -1 disables a family, a higher minimum refuses smaller keys', () => {
    refused(sshKeygen('ed25519').pub, /^key type is not allowed: ed25519$/, { ...sizes, ed25519: -1 });
    refused(sshKeygen('ecdsa', 256).pub, /^key length is not enough: got 256, needs 384$/, { ...sizes, ecdsa: 384 });
  });

  it('refuses garbage, truncated keys and empty input', () => {
    refused('hello world', /unable to parse the key/);
    refused('ssh-ed25519 AAAA', /unable to parse the key/);
    refused('', /unable to parse the key/);
    const [t, b64] = sshKeygen('ed25519').pub.split(' ');
    refused(`${t} ${b64.slice(0, 30)}`, /unable to parse the key/);
  });

  it('refuses private keys', () => {
    refused(sshKeygen('ed25519').priv, /private key/);
    refused(sshKeygen('rsa', 2048).priv, /private key/);
  });

  it('refuses two keys at once and certificates', () => {
    const a = sshKeygen('ed25519').pub.trim();
    const b = sshKeygen('ed25519').pub.trim();
    refused(`${a}\n${b}`, /single key/);
    const [, b64] = a.split(' ');
    refused(`ssh-ed25519-cert-v01@openssh.com ${b64}`, /certificates/);
  });

  it('measures the RSA modulus from the blob', () => {
    const [, b64] = sshKeygen('rsa', 2048).pub.split(' ');
    expect(rsaModulusBits(Buffer.from(b64, 'base64'))).to.equal(2048);
    expect(() => rsaModulusBits(Buffer.from([0, 0, 0, 9, 1]))).to.throw(InvalidSshKey);
  });
});
