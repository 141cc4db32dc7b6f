/**
 * SSH and GPG keys through gitea-js (and raw HTTP for refusals): adding real keys made by
 * ssh-keygen and gpg, listing, fingerprints, ownership, administration, every refusal with its
 * body and proof that nothing was stored, and the [user] switches that turn self-service off.
 */
import { expect } from 'chai';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { sshKeygen, GpgHome, type SshPair } from '../helpers/keys';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

async function sshTitles(w: World, u: TestUser): Promise<string[]> {
  const res = await w.raw('GET', '/user/keys?limit=50', undefined, { token: u.token });
  expect(res.status).to.equal(200);
  return res.body.map((k: Any) => k.title).sort();
}

async function gpgIds(w: World, u: TestUser): Promise<string[]> {
  const res = await w.raw('GET', '/user/gpg_keys?limit=50', undefined, { token: u.token });
  expect(res.status).to.equal(200);
  return res.body.map((k: Any) => k.key_id).sort();
}

describe('SSH keys', () => {
  let w: World;
  let alice: TestUser;
  let bob: TestUser;
  const keys: Record<string, SshPair> = {};
  before(async () => {
    w = await startWorld();
    alice = await w.user('alice');
    bob = await w.user('bob');
    keys.ed = sshKeygen('ed25519', undefined, 'alice@laptop');
    keys.ec = sshKeygen('ecdsa', 384);
    keys.rsa = sshKeygen('rsa', 2048);
    keys.small = sshKeygen('rsa', 1024);
    keys.dsa = sshKeygen('dsa');
    keys.other = sshKeygen('ed25519');
  });
  after(async () => { await w?.stop(); });

  let edId = 0;
  it('adds ed25519, ecdsa and 2048-bit RSA keys with ssh-keygen\'s fingerprints and private fields', async () => {
    for (const [title, k] of [['laptop', keys.ed], ['desk', keys.ec], ['ci', keys.rsa]] as const) {
      const res = await alice.api.user.userCurrentPostKey({ title, key: k.pub });
      expect(res.status).to.equal(201);
      const key = res.data as Any;
      expect(key.title).to.equal(title);
      expect(key.fingerprint).to.equal(k.fingerprint);
      expect(key.key).to.equal(k.pub.trim().split(' ').slice(0, 2).join(' '));
      expect(key.url).to.equal(`${w.server.url}api/v1/user/keys/${key.id}`);
      expect(key.created_at).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      expect(key.key_type).to.equal('user');
      expect(key.last_used_at).to.equal(null);
      expect(key.user.login).to.equal('alice');
      expect(key).to.not.have.property('read_only');
      if (title === 'laptop') edId = key.id;
    }
    expect(await sshTitles(w, alice)).to.deep.equal(['ci', 'desk', 'laptop']);
  });

  it('lists with X-Total-Count and pages', async () => {
    const res = await alice.api.user.userCurrentListKeys({ limit: 2, page: 2 });
    expect(res.status).to.equal(200);
    expect(res.headers.get('x-total-count')).to.equal('3');
    expect(res.data.map((k) => k.title)).to.deep.equal(['ci']);
  });

  it('gets one own key', async () => {
    const res = await alice.api.user.userCurrentGetKey(edId);
    expect(res.data.fingerprint).to.equal(keys.ed.fingerprint);
    expect(res.data.user!.login).to.equal('alice');
  });

  it('filters by fingerprint on /user/keys (own keys only) and /users/{username}/keys', async () => {
    const own = await alice.api.user.userCurrentListKeys({ fingerprint: keys.ec.fingerprint });
    expect(own.data.map((k) => k.title)).to.deep.equal(['desk']);
    const foreign = await bob.api.user.userCurrentListKeys({ fingerprint: keys.ec.fingerprint });
    expect(foreign.data).to.deep.equal([]);
    const byUser = await bob.api.users.userListKeys('alice', { fingerprint: keys.rsa.fingerprint });
    expect(byUser.data.map((k) => k.title)).to.deep.equal(['ci']);
    const none = await bob.api.users.userListKeys('alice', { fingerprint: 'SHA256:nope' });
    expect(none.data).to.deep.equal([]);
  });

  it('shows another user\'s keys without the private fields; site admins see them', async () => {
    const res = await bob.api.users.userListKeys('alice');
    expect(res.headers.get('x-total-count')).to.equal('3');
    for (const k of res.data as Any[]) {
      expect(k).to.include.keys(['id', 'key', 'url', 'title', 'fingerprint', 'created_at']);
      expect(k).to.not.have.any.keys(['user', 'key_type', 'read_only', 'last_used_at']);
    }
    const asAdmin = await w.admin.api.users.userListKeys('alice');
    expect((asAdmin.data[0] as Any).key_type).to.equal('user');
    expect(asAdmin.data[0].user!.login).to.equal('alice');
  });

  it('answers 404 for an unknown user and needs a signed-in caller', async () => {
    const missing = await w.raw('GET', '/users/nobody/keys', undefined, { token: bob.token });
    expect(missing.status).to.equal(404);
    expect(missing.body.message).to.equal('user redirect does not exist [name: nobody]');
    const anon = await w.raw('GET', '/users/alice/keys');
    expect(anon.status).to.equal(401);
    expect(anon.body.message).to.equal('token is required');
    const anonOwn = await w.raw('POST', '/user/keys', { title: 'x', key: keys.other.pub });
    expect(anonOwn.status).to.equal(401);
  });

  it('never answers or deletes another user\'s key by id (404), and the key stays', async () => {
    const get = await w.raw('GET', `/user/keys/${edId}`, undefined, { token: bob.token });
    expect(get.status).to.equal(404);
    expect(get.body).to.include.keys(['message', 'url']);
    const del = await w.raw('DELETE', `/user/keys/${edId}`, undefined, { token: bob.token });
    expect(del.status).to.equal(404);
    const delAdmin = await w.raw('DELETE', `/user/keys/${edId}`, undefined, { token: w.admin.token });
    expect(delAdmin.status).to.equal(404);
    expect(await sshTitles(w, alice)).to.deep.equal(['ci', 'desk', 'laptop']);
    expect((await w.raw('GET', '/user/keys/999999', undefined, { token: alice.token })).status).to.equal(404);
  });

  const refusals: [string, () => Any, number, string | RegExp][] = [
    ['a 1024-bit RSA key', () => ({ title: 'small', key: keys.small.pub }), 422, 'Invalid key content: key length is not enough: got 1024, needs 2047'],
    ['a DSA key', () => ({ title: 'dsa', key: keys.dsa.pub }), 422, 'Invalid key content: key type is not allowed: dsa'],
    ['garbage', () => ({ title: 'junk', key: 'ssh-ed25519 notbase64!!' }), 422, /^Invalid key content: unable to parse the key/],
    ['a private key', () => ({ title: 'priv', key: keys.other.priv }), 422, /^Invalid key content: this is a private key/],
    ['two keys', () => ({ title: 'two', key: `${keys.other.pub}${sshKeygen('ed25519').pub}` }), 422, 'Invalid key content: only a single line with a single key please'],
    ['the same key again', () => ({ title: 'again', key: keys.ed.pub }), 422, 'Key content has been used as non-deploy key'],
    ['the same key with another comment', () => ({ title: 'again2', key: keys.ed.pub.replace('alice@laptop', 'x@y') }), 422, 'Key content has been used as non-deploy key'],
    ['a used title', () => ({ title: 'laptop', key: keys.other.pub }), 422, 'Key title has been used'],
    ['an empty title', () => ({ title: '  ', key: keys.other.pub }), 422, '[Title]: Required'],
    ['an empty key', () => ({ title: 'empty', key: '' }), 422, '[Key]: Required'],
    ['a missing key field', () => ({ title: 'nokey' }), 422, /key/],
    ['a mistyped field', () => ({ title: 'extra', key: keys.other.pub, read_only: 'yes', color: 'red' }), 422, /read_only/i],
  ];
  for (const [what, body, status, message] of refusals) {
    it(`refuses ${what} (${status}) and stores nothing`, async () => {
      const res = await w.raw('POST', '/user/keys', body(), { token: alice.token });
      expect(res.status, res.text).to.equal(status);
      expect(res.body.url).to.equal(`${w.server.url}api/swagger`);
      if (typeof message === 'string') expect(res.body.message).to.equal(message);
      else expect(res.body.message).to.match(message);
      expect(await sshTitles(w, alice)).to.deep.equal(['ci', 'desk', 'laptop']);
    });
  }

  it('refuses a key another user already registered, for that user too', async () => {
    const res = await w.raw('POST', '/user/keys', { title: 'stolen', key: keys.rsa.pub }, { token: bob.token });
    expect(res.status).to.equal(422);
    expect(res.body.message).to.equal('Key content has been used as non-deploy key');
    expect(await sshTitles(w, bob)).to.deep.equal([]);
  });

  it('needs write:user on the token to add a key', async () => {
    const tok = await w.raw('POST', '/users/bob/tokens', { name: 'ro', scopes: ['read:user'] }, { basic: ['bob', bob.password] });
    expect(tok.status).to.equal(201);
    const ro = w.client(tok.body.sha1);
    expect((await ro.user.userCurrentListKeys()).status).to.equal(200);
    const res = await w.raw('POST', '/user/keys', { title: 'ro', key: keys.other.pub }, { token: tok.body.sha1 });
    expect(res.status).to.equal(403);
    expect(res.body.message).to.match(/^token does not have at least one of required scope\(s\), required=\[write:user\]/);
    expect(await sshTitles(w, bob)).to.deep.equal([]);
  });

  it('deletes an own key; it is gone and its fingerprint is free again', async () => {
    const del = await alice.api.user.userCurrentDeleteKey(edId);
    expect(del.status).to.equal(204);
    expect(await sshTitles(w, alice)).to.deep.equal(['ci', 'desk']);
    expect((await w.raw('GET', `/user/keys/${edId}`, undefined, { token: alice.token })).status).to.equal(404);
    const again = await bob.api.user.userCurrentPostKey({ title: 'now mine', key: keys.ed.pub });
    expect(again.status).to.equal(201);
    expect(again.data.user!.login).to.equal('bob');
  });

  describe('administration', () => {
    let adminAdded = 0;
    it('adds a key for a user', async () => {
      const res = await w.admin.api.admin.adminCreatePublicKey('alice', { title: 'from admin', key: keys.other.pub });
      expect(res.status).to.equal(201);
      expect(res.data.user!.login).to.equal('alice');
      adminAdded = res.data.id!;
      expect(await sshTitles(w, alice)).to.deep.equal(['ci', 'desk', 'from admin']);
    });

    it('applies the same rules (422) and answers 404 for unknown users', async () => {
      const small = await w.raw('POST', '/admin/users/alice/keys', { title: 'small', key: keys.small.pub }, { token: w.admin.token });
      expect(small.status).to.equal(422);
      expect(small.body.message).to.equal('Invalid key content: key length is not enough: got 1024, needs 2047');
      const missing = await w.raw('POST', '/admin/users/nobody/keys', { title: 'x', key: sshKeygen('ed25519').pub }, { token: w.admin.token });
      expect(missing.status).to.equal(404);
      expect(await sshTitles(w, alice)).to.deep.equal(['ci', 'desk', 'from admin']);
    });

    it('is for site administrators only', async () => {
      const res = await w.raw('POST', '/admin/users/alice/keys', { title: 'sneaky', key: sshKeygen('ed25519').pub }, { token: bob.token });
      expect(res.status).to.equal(403);
      expect(res.body.message).to.equal('user should be the site admin');
      const del = await w.raw('DELETE', `/admin/users/alice/keys/${adminAdded}`, undefined, { token: bob.token });
      expect(del.status).to.equal(403);
      expect(await sshTitles(w, alice)).to.deep.equal(['ci', 'desk', 'from admin']);
    });

    it('refuses to delete a key through the wrong user (403) or an unknown id (404)', async () => {
      const wrong = await w.raw('DELETE', `/admin/users/bob/keys/${adminAdded}`, undefined, { token: w.admin.token });
      expect(wrong.status).to.equal(403);
      expect(wrong.body.message).to.equal('You do not have access to this key');
      const unknown = await w.raw('DELETE', '/admin/users/alice/keys/999999', undefined, { token: w.admin.token });
      expect(unknown.status).to.equal(404);
      expect(await sshTitles(w, alice)).to.deep.equal(['ci', 'desk', 'from admin']);
    });

    it('deletes a user\'s key', async () => {
      const res = await w.admin.api.admin.adminDeleteUserPublicKey('alice', adminAdded);
      expect(res.status).to.equal(204);
      expect(await sshTitles(w, alice)).to.deep.equal(['ci', 'desk']);
    });
  });
});

describe('GPG keys', () => {
  let w: World;
  let alice: TestUser;
  let bob: TestUser;
  const g = new GpgHome();
  let mainFpr: string;
  let mainArmor: string;
  let foreignFpr: string;
  before(async () => {
    w = await startWorld();
    alice = await w.user('alice');
    bob = await w.user('bob');
    mainFpr = g.generate('Alice <alice@example.com>', ['Alice Elsewhere <alice@elsewhere.test>']);
    mainArmor = g.exportPublic(mainFpr);
    foreignFpr = g.generate('Someone <someone@elsewhere.test>');
  });
  after(async () => { await w?.stop(); });

  let mainId = 0;
  it('adds a key whose email is the user\'s, with its subkey, capabilities and emails', async () => {
    const ids = g.keyIds(mainFpr);
    const res = await alice.api.user.userCurrentPostGpgKey({ armored_public_key: mainArmor });
    expect(res.status).to.equal(201);
    const k = res.data as Any;
    mainId = k.id;
    expect(k.key_id).to.equal(ids.primary);
    expect(k.primary_key_id).to.equal('');
    expect(k.public_key).to.match(/^[A-Za-z0-9+/]+=*$/);
    expect(k.emails).to.deep.equal([{ email: 'alice@example.com', verified: true }, { email: 'alice@elsewhere.test', verified: false }]);
    expect([k.can_sign, k.can_certify, k.can_encrypt_comms, k.can_encrypt_storage]).to.deep.equal([true, true, false, false]);
    expect(k.verified).to.equal(false);
    expect(k.expires_at).to.equal('1970-01-01T00:00:00Z');
    expect(k.created_at).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(k.subkeys).to.have.length(1);
    const s = k.subkeys[0];
    expect(s.key_id).to.equal(ids.subkeys[0]);
    expect(s.primary_key_id).to.equal(ids.primary);
    expect(s.emails).to.equal(null);
    expect(s.subkeys).to.equal(null);
    expect([s.can_sign, s.can_encrypt_comms, s.can_encrypt_storage]).to.deep.equal([false, true, true]);
    expect(Date.parse(s.expires_at)).to.be.greaterThan(Date.now());
  });

  it('lists and gets the key; other users see it through /users/{username}/gpg_keys', async () => {
    const list = await alice.api.user.userCurrentListGpgKeys();
    expect(list.headers.get('x-total-count')).to.equal('1');
    expect(list.data.map((k) => k.id)).to.deep.equal([mainId]);
    expect(list.data[0].subkeys).to.have.length(1);
    const one = await alice.api.user.userCurrentGetGpgKey(mainId);
    expect(one.data.key_id).to.equal(g.keyIds(mainFpr).primary);
    const theirs = await bob.api.users.userListGpgKeys('alice');
    expect(theirs.headers.get('x-total-count')).to.equal('1');
    expect(theirs.data[0].key_id).to.equal(one.data.key_id);
    expect(theirs.data[0].emails![0]).to.deep.equal({ email: 'alice@example.com', verified: true });
    const missing = await w.raw('GET', '/users/nobody/gpg_keys', undefined, { token: bob.token });
    expect(missing.status).to.equal(404);
  });

  it('never answers or deletes another user\'s key by id (404), and the key stays', async () => {
    expect((await w.raw('GET', `/user/gpg_keys/${mainId}`, undefined, { token: bob.token })).status).to.equal(404);
    const del = await w.raw('DELETE', `/user/gpg_keys/${mainId}`, undefined, { token: bob.token });
    expect(del.status).to.equal(404);
    expect(await gpgIds(w, alice)).to.deep.equal([g.keyIds(mainFpr).primary]);
  });

  const refusals: [string, () => Any, number, string | RegExp][] = [
    ['the same key again', () => ({ armored_public_key: mainArmor }), 422, 'A key with the same id already exists'],
    ['garbage', () => ({ armored_public_key: 'hello' }), 422, /^unable to read the armored key/],
    ['a private key', () => ({ armored_public_key: g.exportSecret(foreignFpr) }), 422, /private key/],
    ['an empty key', () => ({ armored_public_key: ' ' }), 422, '[ArmoredKey]: Required'],
    ['a missing key field', () => ({}), 422, /armored_public_key/],
    ['a key with none of the user\'s emails', () => ({ armored_public_key: g.exportPublic(foreignFpr) }), 404,
      /^None of the emails attached to the GPG key could be found\. It may still be added if you provide a valid signature for the token: [0-9a-f]{64}$/],
    ['a signature that does not match the token', () => ({ armored_public_key: g.exportPublic(foreignFpr), armored_signature: g.sign(foreignFpr, 'not the token') }), 422,
      /^The provided GPG key, signature and token do not match or token is out of date\. Provide a valid signature for the token: [0-9a-f]{64}$/],
  ];
  for (const [what, body, status, message] of refusals) {
    it(`refuses ${what} (${status}) and stores nothing`, async () => {
      const res = await w.raw('POST', '/user/gpg_keys', body(), { token: alice.token });
      expect(res.status, res.text).to.equal(status);
      if (typeof message === 'string') expect(res.body.message).to.equal(message);
      else expect(res.body.message).to.match(message);
      expect(await gpgIds(w, alice)).to.deep.equal([g.keyIds(mainFpr).primary]);
    });
  }

  it('refuses a key already added by someone else', async () => {
    const res = await w.raw('POST', '/user/gpg_keys', { armored_public_key: mainArmor }, { token: bob.token });
    // as in Gitea: the key's emails are not bob's, which is checked before the key id
    expect(res.status, res.text).to.equal(404);
    expect(res.body.message).to.match(/^None of the emails attached to the GPG key could be found\./);
    expect(await gpgIds(w, bob)).to.deep.equal([]);
  });

  it('gives a text/plain token to sign', async () => {
    const res = await alice.api.user.getVerificationToken({ format: 'text' });
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/plain/);
    expect(res.data).to.match(/^[0-9a-f]{64}$/);
  });

  it('adds a key without the user\'s emails when it signs the token; it is verified', async () => {
    const token = (await alice.api.user.getVerificationToken({ format: 'text' })).data;
    const res = await alice.api.user.userCurrentPostGpgKey({ armored_public_key: g.exportPublic(foreignFpr), armored_signature: g.sign(foreignFpr, `${token}\n`) });
    expect(res.status).to.equal(201);
    expect(res.data.verified).to.equal(true);
    expect(res.data.emails).to.deep.equal([{ email: 'someone@elsewhere.test', verified: false }]);
    expect(await gpgIds(w, alice)).to.deep.equal([g.keyIds(mainFpr).primary, g.keyIds(foreignFpr).primary].sort());
  });

  it('verifies an added key with a signed token (200), refusing bad signatures and unknown ids', async () => {
    const keyId = g.keyIds(mainFpr).primary;
    const bad = await w.raw('POST', '/user/gpg_key_verify', { key_id: keyId, armored_signature: g.sign(foreignFpr, 'x') }, { token: alice.token });
    expect(bad.status).to.equal(422);
    expect(bad.body.message).to.match(/^The provided GPG key, signature and token do not match/);
    expect((await alice.api.user.userCurrentGetGpgKey(mainId)).data.verified).to.equal(false);
    const zero = await w.raw('POST', '/user/gpg_key_verify', { key_id: '0000', armored_signature: 'x' }, { token: alice.token });
    expect(zero.status).to.equal(404);
    const unknown = await w.raw('POST', '/user/gpg_key_verify', { key_id: 'ABCDEF0123456789', armored_signature: 'x' }, { token: alice.token });
    expect(unknown.status).to.equal(404);
    const notMine = await w.raw('POST', '/user/gpg_key_verify', { key_id: keyId, armored_signature: 'x' }, { token: bob.token });
    expect(notMine.status).to.equal(404);

    const token = (await alice.api.user.getVerificationToken({ format: 'text' })).data;
    // why: gitea-js (from Gitea's swagger) declares no body for this operation; it still sends one given in params.
    const res = await alice.api.user.userVerifyGpgKey({ body: { key_id: keyId, armored_signature: g.sign(mainFpr, token) } } as Any);
    expect(res.status).to.equal(200);
    expect(res.data.verified).to.equal(true);
    expect(res.data.subkeys![0].verified).to.equal(true);
    expect((await alice.api.user.userCurrentGetGpgKey(mainId)).data.verified).to.equal(true);
  });

  it('deletes an own key with its subkeys; the same key can be added again', async () => {
    const del = await alice.api.user.userCurrentDeleteGpgKey(mainId);
    expect(del.status).to.equal(204);
    expect(await gpgIds(w, alice)).to.deep.equal([g.keyIds(foreignFpr).primary]);
    expect((await w.raw('GET', `/user/gpg_keys/${mainId}`, undefined, { token: alice.token })).status).to.equal(404);
    expect((await w.raw('DELETE', `/user/gpg_keys/${mainId}`, undefined, { token: alice.token })).status).to.equal(404);
    const again = await alice.api.user.userCurrentPostGpgKey({ armored_public_key: mainArmor });
    expect(again.status).to.equal(201);
    expect(again.data.subkeys).to.have.length(1);
    expect(again.data.verified).to.equal(false);
  });

  it('needs a signed-in caller', async () => {
    const res = await w.raw('GET', '/user/gpg_keys');
    expect(res.status).to.equal(401);
    expect((await w.raw('GET', '/user/gpg_key_token')).status).to.equal(401);
  });

  it('answers an empty signing key while [repository.signing] SIGNING_KEY is none (as Gitea 1.24)', async () => {
    const res = await w.raw('GET', '/signing-key.gpg');
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/plain/);
    expect(res.text).to.equal('');
  });
});

describe('keys with [user] ENABLE_SSH_KEYS and ENABLE_GPG_KEYS off', () => {
  let w: World;
  let alice: TestUser;
  const g = new GpgHome();
  before(async () => {
    w = await startWorld({ env: { FORGE__USER__ENABLE_SSH_KEYS: 'false', FORGE__USER__ENABLE_GPG_KEYS: 'false' } });
    alice = await w.user('alice');
  });
  after(async () => { await w?.stop(); });

  it('refuses to add an SSH key (403) and stores nothing; lists still answer', async () => {
    const res = await w.raw('POST', '/user/keys', { title: 'k', key: sshKeygen('ed25519').pub }, { token: alice.token });
    expect(res.status).to.equal(403);
    expect(res.body.message).to.equal('ssh keys setting is not allowed to be visited');
    const list = await alice.api.user.userCurrentListKeys();
    expect(list.data).to.deep.equal([]);
  });

  it('still lets a site administrator add and remove a key for a user; the user cannot delete it', async () => {
    const added = await w.admin.api.admin.adminCreatePublicKey('alice', { title: 'managed', key: sshKeygen('ed25519').pub });
    expect(added.status).to.equal(201);
    const del = await w.raw('DELETE', `/user/keys/${added.data.id}`, undefined, { token: alice.token });
    expect(del.status).to.equal(403);
    expect(await sshTitles(w, alice)).to.deep.equal(['managed']);
    expect((await w.admin.api.admin.adminDeleteUserPublicKey('alice', added.data.id!)).status).to.equal(204);
    expect(await sshTitles(w, alice)).to.deep.equal([]);
  });

  it('refuses to add a GPG key (403) and stores nothing', async () => {
    const fpr = g.generate('Alice <alice@example.com>');
    const res = await w.raw('POST', '/user/gpg_keys', { armored_public_key: g.exportPublic(fpr) }, { token: alice.token });
    expect(res.status).to.equal(403);
    expect(res.body.message).to.equal('gpg keys setting is not allowed to be visited');
    expect(await gpgIds(w, alice)).to.deep.equal([]);
  });
});
