/**
 * OAuth2 applications (Gitea's `oauth2_application`): registered by a user, or with owner 0 by the
 * site's administrators. The client id is a UUID; the client secret (`gto_` and 52 base32 letters,
 * 256 random bits) is shown once, when made or made again, and stored as its SHA-256. Deleting an
 * application deletes its grants and codes, so its tokens stop working at once.
 */
import crypto from 'node:crypto';
import { withTx, type DbContext } from '../../db';
import { NotFound, Validation } from '../../errors';
import {
  deleteApplicationRow, findApplicationById, insertApplication, listApplicationsOf, updateApplication,
  type OAuth2ApplicationModel,
} from '../../models/oauth2-application.model';
import { deleteCodesOfGrants } from '../../models/oauth2-authorization-code.model';
import { deleteGrantsByIds, grantIdsWhere } from '../../models/oauth2-grant.model';
import { nowUnix } from '../../models/issue.model';

/** What the API and the forms give for an application (Gitea's CreateOAuth2ApplicationOptions). */
export interface ApplicationInput { name?: unknown; redirect_uris?: unknown; confidential_client?: unknown; skip_secondary_authorization?: unknown }

/** An application with its client secret in clear, right after it was made. */
export interface WithSecret { app: OAuth2ApplicationModel; secret: string }

const MAX_REDIRECT_URIS = 50;
// why: these schemes run code or read local files in the browser that follows the redirect.
const FORBIDDEN_SCHEMES = ['javascript:', 'data:', 'vbscript:', 'file:', 'blob:', 'about:'];
const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

/** Lower-case base32 without padding (Gitea's encoding of secrets and codes). */
export function base32Lower(buf: Buffer): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of buf) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

/** The stored form of a secret or code: its SHA-256 in hex. */
export function sha256Hex(raw: string): string {
  return crypto.createHash('sha256').update(raw).digest('hex');
}

/** The redirect URIs of an application. */
export function redirectUrisOf(app: OAuth2ApplicationModel): string[] {
  try {
    const v = JSON.parse(app.redirectUris) as unknown;
    return Array.isArray(v) ? v.filter((u): u is string => typeof u === 'string') : [];
  } catch {
    return [];
  }
}

/**
 * Does `secret` match the application's? why: the secret has 256 random bits, so its SHA-256 is as
 * safe to store as Gitea's bcrypt hash, and checking it costs nothing (the token endpoint checks it
 * on every call); compared in constant time.
 */
export function validClientSecret(app: OAuth2ApplicationModel, secret: string): boolean {
  const m = /^sha256\$([0-9a-f]{64})$/.exec(app.clientSecret);
  if (!m || !secret) return false;
  return crypto.timingSafeEqual(Buffer.from(m[1], 'hex'), Buffer.from(sha256Hex(secret), 'hex'));
}

function newSecret(): { raw: string; stored: string } {
  const raw = `gto_${base32Lower(crypto.randomBytes(32))}`;
  return { raw, stored: `sha256$${sha256Hex(raw)}` };
}

/** Why `uri` cannot be a redirect URI, or null when it can (absolute, no fragment, no credentials). */
function redirectUriProblem(uri: string): string | null {
  if (uri.length > 2048) return 'is longer than 2048 characters';
  if ([...uri].some((c) => c.charCodeAt(0) <= 0x20 || c.charCodeAt(0) === 0x7f)) return 'contains white space or control characters';
  let url: URL;
  try { url = new URL(uri); } catch { return 'is not an absolute URL'; }
  if (FORBIDDEN_SCHEMES.includes(url.protocol)) return `uses the ${url.protocol} scheme`;
  if ((url.protocol === 'http:' || url.protocol === 'https:') && !url.hostname) return 'has no host';
  if (uri.includes('#')) return 'has a fragment';
  if (url.username || url.password) return 'has credentials';
  return null;
}

/** Check and normalise an application's fields; both are required (Gitea's binding). */
function checkInput(input: ApplicationInput): { name: string; uris: string[]; confidential: boolean; skip: boolean } {
  const name = typeof input.name === 'string' ? input.name.trim() : '';
  if (!name) throw new Validation('[Name]: Required');
  if (name.length > 255) throw new Validation('[Name]: must be at most 255 characters');
  const raw = input.redirect_uris;
  if (!Array.isArray(raw) || raw.length === 0) throw new Validation('[RedirectURIs]: Required');
  if (raw.length > MAX_REDIRECT_URIS) throw new Validation(`[RedirectURIs]: at most ${MAX_REDIRECT_URIS} redirect URIs`);
  const uris: string[] = [];
  for (const u of raw) {
    if (typeof u !== 'string') throw new Validation('[RedirectURIs]: each redirect URI must be a string');
    const problem = redirectUriProblem(u.trim());
    if (problem) throw new Validation(`[RedirectURIs]: "${u}" ${problem}`);
    if (!uris.includes(u.trim())) uris.push(u.trim());
  }
  // why: Gitea's form fields are booleans; a client that leaves them out gets false, as Go's zero value.
  return { name, uris, confidential: input.confidential_client === true, skip: input.skip_secondary_authorization === true };
}

/** Register an application for `ownerUid` (0: the site); answers it with its secret. */
export async function createApplication(ctx: DbContext, ownerUid: number, input: ApplicationInput): Promise<WithSecret> {
  const f = checkInput(input);
  const { raw, stored } = newSecret();
  const now = nowUnix();
  const app = await insertApplication(ctx, {
    uid: ownerUid, name: f.name, clientId: crypto.randomUUID(), clientSecret: stored, confidentialClient: f.confidential,
    skipSecondaryAuthorization: f.skip, redirectUris: JSON.stringify(f.uris), createdUnix: now, updatedUnix: now,
  });
  return { app, secret: raw };
}

/** An application of `ownerUid`; 404 for a missing one and for another owner's, alike. */
export async function ownedApplication(ctx: DbContext, ownerUid: number, id: number): Promise<OAuth2ApplicationModel> {
  const app = Number.isSafeInteger(id) && id > 0 ? await findApplicationById(ctx, id) : null;
  if (!app || app.uid !== ownerUid) throw new NotFound(`OAuth application not found [ID: ${id}]`);
  return app;
}

/** One page of the applications of `ownerUid`, newest first. */
export function applicationsOf(ctx: DbContext, ownerUid: number, limit: number, offset: number): Promise<{ rows: OAuth2ApplicationModel[]; count: number }> {
  return listApplicationsOf(ctx, ownerUid, limit, offset);
}

/**
 * Change an application's name, redirect URIs and kind (all given, as Gitea's options); with
 * `regenerate` (the API's PATCH, as Gitea) also make a new secret, answered in clear.
 */
export async function editApplication(ctx: DbContext, ownerUid: number, id: number, input: ApplicationInput, regenerate: boolean): Promise<WithSecret> {
  const f = checkInput(input);
  await ownedApplication(ctx, ownerUid, id);
  const secret = regenerate ? newSecret() : null;
  const patch = {
    name: f.name, redirectUris: JSON.stringify(f.uris), confidentialClient: f.confidential, skipSecondaryAuthorization: f.skip,
    updatedUnix: nowUnix(), ...(secret ? { clientSecret: secret.stored } : {}),
  };
  if (!(await updateApplication(ctx, id, ownerUid, patch))) throw new NotFound(`OAuth application not found [ID: ${id}]`);
  return { app: await ownedApplication(ctx, ownerUid, id), secret: secret?.raw ?? '' };
}

/** Make a new client secret (the old one stops working); answered in clear, once. */
export async function regenerateSecret(ctx: DbContext, ownerUid: number, id: number): Promise<WithSecret> {
  await ownedApplication(ctx, ownerUid, id);
  const { raw, stored } = newSecret();
  if (!(await updateApplication(ctx, id, ownerUid, { clientSecret: stored, updatedUnix: nowUnix() }))) throw new NotFound(`OAuth application not found [ID: ${id}]`);
  return { app: await ownedApplication(ctx, ownerUid, id), secret: raw };
}

/**
 * Delete an application with its grants and codes, in one transaction. why: the grants' rows going
 * clears every process's grant cache before this returns, so the tokens issued to the application
 * are refused at once everywhere.
 */
export async function deleteApplication(ctx: DbContext, ownerUid: number, id: number): Promise<void> {
  await withTx(ctx, async (tx) => {
    if (!(Number.isSafeInteger(id) && id > 0 && await deleteApplicationRow(tx, id, ownerUid))) throw new NotFound(`OAuth application not found [ID: ${id}]`);
    const grants = await grantIdsWhere(tx, { applicationIds: [id] });
    await deleteCodesOfGrants(tx, grants);
    await deleteGrantsByIds(tx, grants);
  });
}
