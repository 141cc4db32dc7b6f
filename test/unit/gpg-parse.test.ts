/**
 * The GPG key parser and token signature check, against keys made by the real gpg.
 */
import { expect } from 'chai';
import { parseArmoredGpgKey, verifyTokenSignature, InvalidGpgKey } from '../../src/services/keys/gpg-parse';
import { GpgHome } from '../helpers/keys';

describe('gpg-parse', () => {
  const g = new GpgHome();
  let fpr: string;
  let armored: string;
  before(() => {
    fpr = g.generate('Alice Test <alice@example.com>', ['Alice Work <Alice@Work.Test>']);
    armored = g.exportPublic(fpr);
  });

  it('reads the primary key, its subkey, capabilities, dates and emails', async () => {
    const ids = g.keyIds(fpr);
    const p = await parseArmoredGpgKey(armored);
    expect(p.keyId).to.equal(ids.primary);
    expect(p.keyId).to.match(/^[0-9A-F]{16}$/);
    expect(p.emails).to.deep.equal(['alice@example.com', 'Alice@Work.Test']);
    expect([p.canSign, p.canCertify, p.canEncryptComms, p.canEncryptStorage]).to.deep.equal([true, true, false, false]);
    expect(p.expiresAt).to.equal(null);
    expect(p.createdAt).to.be.instanceOf(Date);
    expect(p.subkeys).to.have.length(1);
    const s = p.subkeys[0];
    expect(s.keyId).to.equal(ids.subkeys[0]);
    expect([s.canSign, s.canCertify, s.canEncryptComms, s.canEncryptStorage]).to.deep.equal([false, false, true, true]);
    expect(s.expiresAt).to.be.instanceOf(Date);
    expect(s.expiresAt!.getTime()).to.be.greaterThan(s.createdAt.getTime());
    expect(Buffer.from(p.content, 'base64').length).to.be.greaterThan(30);
    expect(p.armored).to.match(/BEGIN PGP PUBLIC KEY BLOCK/);
  });

  it('takes the first key when the armor holds several', async () => {
    const other = g.generate('Bob <bob@example.com>');
    const both = await parseArmoredGpgKey(armored.trim() + '\n' + g.exportPublic(other));
    expect(both.keyId).to.equal(g.keyIds(fpr).primary);
  });

  it('refuses garbage, an empty block and private keys', async () => {
    for (const [input, re] of [
      ['not a key', /unable to read the armored key/],
      ['-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nAAAA\n-----END PGP PUBLIC KEY BLOCK-----\n', /unable to read the armored key/],
      [g.exportSecret(fpr), /private key/],
    ] as const) {
      let err: unknown;
      try { await parseArmoredGpgKey(input); } catch (e) { err = e; }
      expect(err, input.slice(0, 20)).to.be.instanceOf(InvalidGpgKey);
      expect((err as Error).message).to.match(re);
    }
  });

  it('checks a detached signature over a token, with or without the trailing newline', async () => {
    const token = 'a'.repeat(64);
    expect(await verifyTokenSignature(armored, token, g.sign(fpr, token))).to.equal(true);
    expect(await verifyTokenSignature(armored, token, g.sign(fpr, `${token}\n`))).to.equal(true);
    expect(await verifyTokenSignature(armored, token, g.sign(fpr, 'b'.repeat(64)))).to.equal(false);
    const other = g.generate('Carol <carol@example.com>');
    expect(await verifyTokenSignature(armored, token, g.sign(other, token))).to.equal(false);
    expect(await verifyTokenSignature(armored, token, 'garbage')).to.equal(false);
  });
});
