/**
 * Checking the HTTP Signature of a request to an inbox (draft-cavage, as Gitea and Mastodon sign):
 * the `Signature` header (or `Authorization: Signature ...`) names a key, the headers it covers and
 * the signature; the key is the `publicKey` of the signer's actor, read from its server by the
 * migration network rules; the signing string is rebuilt from this request and checked with the
 * first of `[federation] ALGORITHMS`. Stricter than Gitea: the signature must cover
 * `(request-target)`, a body must be covered by a matching `Digest`, and a signed `Date` must be
 * within twelve hours. Every refusal is a 4xx naming what was wrong.
 */
import crypto from 'node:crypto';
import { HttpError } from '../../errors';
import { settings } from '../../config';
import { guardedGet } from '../net/http-get';

/** What the check needs of the request. */
export interface SignedRequest { method: string; path: string; headers: Record<string, string | string[] | undefined>; body: Buffer }

const unauthorized = (message: string) => new HttpError(401, message);
const failed = () => new HttpError(403, 'request signature verification failed');
const DATE_WINDOW_MS = 12 * 3600_000;

/** The parameters of a Signature header: keyId, headers, signature, algorithm. */
function signatureParams(req: SignedRequest): Map<string, string> {
  const sig = req.headers.signature;
  const auth = req.headers.authorization;
  const text = typeof sig === 'string' ? sig : typeof auth === 'string' && /^signature /i.test(auth) ? auth.slice(10) : null;
  if (!text) throw unauthorized('the request has no HTTP Signature (a Signature header is required)');
  const params = new Map<string, string>();
  for (const m of text.matchAll(/([a-zA-Z]+)="([^"]*)"/g)) params.set(m[1], m[2]);
  if (!params.get('keyId') || !params.get('signature')) throw new HttpError(400, 'the HTTP Signature needs keyId and signature');
  return params;
}

/** The signing string of `names` (lower-cased header names and pseudo-headers) for this request. */
function signingString(req: SignedRequest, names: string[], params: Map<string, string>): string {
  return names.map((name) => {
    if (name === '(request-target)') return `${name}: ${req.method.toLowerCase()} ${req.path}`;
    if (name === '(created)' || name === '(expires)') return `${name}: ${params.get(name.slice(1, -1)) ?? ''}`;
    const v = req.headers[name];
    if (v === undefined) throw failed();
    return `${name}: ${Array.isArray(v) ? v.join(', ') : v}`;
  }).join('\n');
}

/** The checks beyond the signature itself: what must be covered, the body's digest, the date. */
function assertCovered(req: SignedRequest, names: string[]): void {
  if (!names.includes('(request-target)')) throw new HttpError(400, 'the HTTP Signature must cover (request-target)');
  if (req.body.length > 0) {
    const digest = req.headers.digest;
    if (!names.includes('digest') || typeof digest !== 'string') throw new HttpError(400, 'a request with a body must sign its Digest header');
    const [alg, value] = [digest.slice(0, digest.indexOf('=')).toLowerCase(), digest.slice(digest.indexOf('=') + 1)];
    const hash = alg === 'sha-256' ? 'sha256' : alg === 'sha-512' ? 'sha512' : null;
    if (!hash || crypto.createHash(hash).update(req.body).digest('base64') !== value) throw failed();
  }
  if (names.includes('date')) {
    const at = Date.parse(String(req.headers.date ?? ''));
    if (!Number.isFinite(at) || Math.abs(Date.now() - at) > DATE_WINDOW_MS) throw new HttpError(401, 'the signed Date is missing or more than twelve hours away');
  }
}

/** The PEM of `keyId` as its actor publishes it. */
async function fetchPublicKey(keyId: string): Promise<crypto.KeyObject> {
  const f = settings().federation;
  const doc = await guardedGet(keyId.replace(/#.*$/, ''), {
    headers: { Accept: 'application/activity+json, application/ld+json; profile="https://www.w3.org/ns/activitystreams"' },
    maxBytes: f.maxSize * 1024 * 1024, timeoutMs: 10_000,
  }).catch(() => { throw unauthorized('the signer\'s key could not be read from its server'); });
  if (doc.status !== 200) throw unauthorized(`the signer's key could not be read from its server (status ${doc.status})`);
  let actor: { publicKey?: unknown };
  try {
    actor = JSON.parse(doc.body.toString('utf8')) as { publicKey?: unknown };
  } catch {
    throw unauthorized('the signer\'s actor is not JSON');
  }
  const keys = (Array.isArray(actor.publicKey) ? actor.publicKey : [actor.publicKey]) as { id?: string; publicKeyPem?: string }[];
  const key = keys.find((k) => k && k.id === keyId && typeof k.publicKeyPem === 'string');
  if (!key) throw unauthorized(`the signer's actor has no publicKey with id ${keyId}`);
  try {
    return crypto.createPublicKey(key.publicKeyPem!);
  } catch {
    throw unauthorized('the signer\'s publicKeyPem is not a public key');
  }
}

/** Check the request's HTTP Signature; resolves with the key id that signed it, or throws a 4xx. */
export async function verifyHttpSignature(req: SignedRequest): Promise<string> {
  const params = signatureParams(req);
  const names = (params.get('headers') ?? 'date').toLowerCase().split(/\s+/).filter(Boolean);
  assertCovered(req, names);
  const data = signingString(req, names, params);
  const key = await fetchPublicKey(params.get('keyId')!);
  const algorithm = settings().federation.algorithms[0];
  const ok = crypto.verify(algorithm === 'rsa-sha512' ? 'sha512' : 'sha256', Buffer.from(data), key, Buffer.from(params.get('signature')!, 'base64'));
  if (!ok) throw failed();
  return params.get('keyId')!;
}
