/**
 * Federation: a user's ActivityPub Person (the same IRI and key after a rename; private users
 * hidden), its inbox checked by HTTP Signatures from a peer the test plays (a small actor server
 * and draft-cavage signing with its own key), nodeinfo and webfinger; and all of it answering 404
 * when [federation] ENABLED is off.
 */
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { startWorld, expectError, type World, type TestUser } from '../helpers/world';

/** A peer server: an actor whose key signs requests. */
interface Peer { url: string; keyId: string; privateKey: crypto.KeyObject; close(): Promise<void> }

async function startPeer(): Promise<Peer> {
  const { publicKey, privateKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  const srv = http.createServer((req, res) => {
    const actor = `http://${req.headers.host}/actor`;
    res.setHeader('Content-Type', 'application/activity+json');
    res.end(JSON.stringify({
      '@context': ['https://www.w3.org/ns/activitystreams', 'https://w3id.org/security/v1'], id: actor, type: 'Person', preferredUsername: 'peer',
      inbox: `${actor}/inbox`, publicKey: { id: `${actor}#main-key`, owner: actor, publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }) },
    }));
  });
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
  return { url, keyId: `${url}/actor#main-key`, privateKey, close: () => new Promise((resolve) => srv.close(() => resolve())) };
}

/** Sign a POST of `body` to `target` as draft-cavage does (what Gitea and Mastodon send). */
function signedHeaders(target: URL, body: string, keyId: string, key: crypto.KeyObject, opts: { digest?: string; headers?: string[] } = {}): Record<string, string> {
  const date = new Date().toUTCString();
  const digest = opts.digest ?? `SHA-256=${crypto.createHash('sha256').update(body).digest('base64')}`;
  const names = opts.headers ?? ['(request-target)', 'host', 'date', 'digest'];
  const values: Record<string, string> = { host: target.host, date, digest };
  const text = names.map((n) => (n === '(request-target)' ? `${n}: post ${target.pathname}` : `${n}: ${values[n]}`)).join('\n');
  const signature = crypto.sign('sha256', Buffer.from(text), key).toString('base64');
  return {
    Host: target.host, Date: date, Digest: digest, 'Content-Type': 'application/activity+json',
    Signature: `keyId="${keyId}",algorithm="rsa-sha256",headers="${names.join(' ')}",signature="${signature}"`,
  };
}

describe('federation', () => {
  let w: World;
  let off: World;
  let alice: TestUser;
  let hidden: TestUser;
  let peer: Peer;

  before(async () => {
    [w, off] = await Promise.all([
      startWorld({ env: { FORGE__FEDERATION__ENABLED: 'true', FORGE__MIGRATIONS__ALLOW_LOCALNETWORKS: 'true', FORGE__MIGRATIONS__BLOCKED_DOMAINS: 'localhost' } }),
      startWorld(),
    ]);
    [alice, hidden] = await Promise.all([w.user('alice', { full_name: 'Alice Liddell' }), w.user('hidden', { visibility: 'private' })]);
    peer = await startPeer();
  });
  after(async () => {
    await peer?.close();
    await Promise.all([w?.stop(), off?.stop()]);
  });

  const person = (id: number, token?: string) => w.raw('GET', `/activitypub/user-id/${id}`, undefined, { token });

  it('serves a user\'s Person, whose IRI and key stay when the user is renamed', async () => {
    const r = await person(alice.id);
    expect(r.status, r.text).to.equal(200);
    expect(r.headers.get('content-type')).to.match(/^application\/activity\+json/);
    const iri = `${w.server.url}api/v1/activitypub/user-id/${alice.id}`;
    expect(r.body).to.deep.include({
      '@context': ['https://www.w3.org/ns/activitystreams', 'https://w3id.org/security/v1'], id: iri, type: 'Person', name: 'Alice Liddell',
      url: `${w.server.url}alice`, inbox: `${iri}/inbox`, outbox: `${iri}/outbox`, preferredUsername: 'alice',
    });
    expect(r.body.icon).to.include({ type: 'Image', mediaType: 'image/png' });
    expect(r.body.publicKey).to.include({ id: `${iri}#main-key`, owner: iri });
    const key = crypto.createPublicKey(r.body.publicKey.publicKeyPem);
    expect(key.asymmetricKeyDetails?.modulusLength).to.equal(3072);
    const renamed = await w.raw('POST', '/admin/users/alice/rename', { new_username: 'alice2' }, { token: w.admin.token });
    expect(renamed.status, renamed.text).to.equal(204);
    const again = await person(alice.id);
    expect(again.body).to.include({ id: iri, preferredUsername: 'alice2', url: `${w.server.url}alice2` });
    expect(again.body.publicKey.publicKeyPem).to.equal(r.body.publicKey.publicKeyPem);
  });

  it('answers a private user\'s Person as a missing one, except to those who may see the user', async () => {
    const missing = await person(999999);
    expectError(missing, 404, 'user does not exist [uid: 999999, name: ]');
    expectError(await person(hidden.id), 404, `user does not exist [uid: ${hidden.id}, name: ]`);
    expect((await person(hidden.id, w.admin.token)).status).to.equal(200);
  });

  it('accepts an inbox POST whose HTTP Signature verifies, and refuses the rest with a clear 4xx', async () => {
    const target = new URL(`${w.server.api}/activitypub/user-id/${alice.id}/inbox`);
    const body = JSON.stringify({ '@context': 'https://www.w3.org/ns/activitystreams', type: 'Follow', actor: `${peer.url}/actor`, object: `${w.server.url}api/v1/activitypub/user-id/${alice.id}` });
    const post = (headers: Record<string, string>, b = body) => fetch(target, { method: 'POST', headers, body: b });
    const good = await post(signedHeaders(target, body, peer.keyId, peer.privateKey));
    expect(good.status, await good.text()).to.equal(202);
    const unsigned = await post({ 'Content-Type': 'application/activity+json' });
    expect(unsigned.status).to.equal(401);
    const other = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    const forged = await post(signedHeaders(target, body, peer.keyId, other));
    expect([forged.status, ((await forged.json()) as { message: string }).message]).to.deep.equal([403, 'request signature verification failed']);
    const tampered = await post(signedHeaders(target, body, peer.keyId, peer.privateKey), body.replace('Follow', 'Undo'));
    expect(tampered.status).to.equal(403);
    const noDigest = await post(signedHeaders(target, body, peer.keyId, peer.privateKey, { headers: ['(request-target)', 'host', 'date'] }));
    expect(noDigest.status).to.equal(400);
    const blockedKey = `http://localhost:${new URL(peer.url).port}/actor#main-key`;
    const unreachable = await post(signedHeaders(target, body, blockedKey, peer.privateKey));
    expect(unreachable.status).to.equal(401);
    const nobody = await fetch(new URL(`${w.server.api}/activitypub/user-id/999999/inbox`), { method: 'POST', headers: signedHeaders(target, body, peer.keyId, peer.privateKey), body });
    expect(nobody.status).to.equal(404);
  });

  it('tells where its nodeinfo is and what it holds', async () => {
    const wk = await w.raw('GET', '//.well-known/nodeinfo');
    expect(wk.status).to.equal(200);
    expect(wk.body).to.deep.equal({ links: [{ href: `${w.server.url}api/v1/nodeinfo`, rel: 'http://nodeinfo.diaspora.software/ns/schema/2.1' }] });
    const ni = await w.raw('GET', '/nodeinfo');
    expect(ni.status, ni.text).to.equal(200);
    expect(ni.body).to.include({ version: '2.1', openRegistrations: true });
    expect(ni.body.protocols).to.deep.equal(['activitypub']);
    expect(ni.body.services).to.deep.equal({ inbound: [], outbound: ['rss2.0'] });
    expect(ni.body.usage.users.total).to.be.at.least(3);
  });

  it('finds a user\'s actor by acct: and mailto: through webfinger, as far as the caller may see', async () => {
    const host = new URL(w.server.url).host;
    const wf = await w.raw('GET', `//.well-known/webfinger?resource=${encodeURIComponent(`acct:alice2@${host}`)}`);
    expect(wf.status, wf.text).to.equal(200);
    expect(wf.headers.get('access-control-allow-origin')).to.equal('*');
    expect(wf.body.subject).to.equal(`acct:alice2@${host}`);
    expect(wf.body.links).to.deep.include({ rel: 'self', type: 'application/activity+json', href: `${w.server.url}api/v1/activitypub/user-id/${alice.id}` });
    const byMail = await w.raw('GET', `//.well-known/webfinger?resource=${encodeURIComponent(`mailto:${alice.email}`)}`);
    expect([byMail.status, byMail.body?.subject]).to.deep.equal([200, `acct:alice2@${host}`]);
    expect((await w.raw('GET', `//.well-known/webfinger?resource=${encodeURIComponent('acct:alice2@elsewhere.example')}`)).status).to.equal(400);
    expect((await w.raw('GET', `//.well-known/webfinger?resource=${encodeURIComponent(`${w.server.url}alice2`)}`)).status).to.equal(400);
    expect((await w.raw('GET', `//.well-known/webfinger?resource=${encodeURIComponent(`acct:nobody@${host}`)}`)).status).to.equal(404);
    expect((await w.raw('GET', `//.well-known/webfinger?resource=${encodeURIComponent(`acct:hidden@${host}`)}`)).status).to.equal(404);
  });

  it('answers 404 everywhere when federation is off', async () => {
    expect((await off.raw('GET', `/activitypub/user-id/1`)).status).to.equal(404);
    expect((await off.raw('POST', `/activitypub/user-id/1/inbox`, '{}')).status).to.equal(404);
    expect((await off.raw('GET', '/nodeinfo')).status).to.equal(404);
    const wk = await off.raw('GET', '//.well-known/nodeinfo');
    expect([wk.status, wk.text]).to.deep.equal([404, 'Not Found\n']);
    expect((await off.raw('GET', `//.well-known/webfinger?resource=acct:root@${new URL(off.server.url).host}`)).status).to.equal(404);
  });
});
