/**
 * The LFS batch API and basic transfer: which objects a client must upload or may download, the
 * upload itself (hashed and size-checked, then linked to the repository), downloads and verify.
 * An object is stored once; a repository only sees the objects linked to it in lfs_meta_object.
 */
import type { Readable } from 'node:stream';
import { settings } from '../../config';
import type { DbContext } from '../../db';
import { BadRequest, Conflict, HttpError, NotFound, TooLarge, Validation } from '../../errors';
import { findLfsMeta, findLfsMetas, linkLfsMeta, repoIdsLinkingLfsObject } from '../../models/lfs-meta-object.model';
import { findRepoById } from '../../models/repository.model';
import { findUserById } from '../../models/user.model';
import { AccessMode, UnitType } from '../../models/perm';
import type { LfsBatchResponse, LfsLink, LfsObjectResponse, LfsPointer } from '../../api/lfs';
import type { Principal } from '../auth/principal';
import { repoPermission } from '../perm/permission';
import type { RepoContext } from '../repo/context';
import { authorizeLfs } from './access';
import { checkContent, ContentMismatch, isValidOid, isValidSize, storedSize, storeObject } from './content-store';
import type { LfsGrant } from './token';

/** The media type of every LFS JSON request and answer. */
export const LFS_MEDIA_TYPE = 'application/vnd.git-lfs+json';

const INVALID = 'Oid or size are invalid';
const notBytes = (p: LfsPointer) => `Object ${p.oid} is not ${p.size} bytes`;
const tooLarge = (max: number) => `Size must be less than or equal to ${max}`;

/** The caller of one LFS request: who, with which LFS grant, on which owner/repo, and the Authorization to echo. */
export interface LfsCaller { ctx: DbContext; p: Principal; grant: LfsGrant | null; owner: string; repo: string; authorization?: string }

/** `<ROOT_URL><owner>/<repo>.git/info/lfs`, the base of every action link. */
function lfsBase(rc: RepoContext): string {
  return `${settings().server.rootUrl}${encodeURIComponent(rc.owner.name)}/${encodeURIComponent(rc.repo.name)}.git/info/lfs`;
}

/**
 * Can the caller already read `oid` through some repository it has code access to? Then it may link the
 * object to another repository without sending it again (Gitea: LFSObjectAccessible).
 */
async function canReadElsewhere(c: LfsCaller, oid: string): Promise<boolean> {
  if (!c.p.user) return false;
  for (const id of await repoIdsLinkingLfsObject(c.ctx, oid, 50)) {
    const repo = await findRepoById(c.ctx, id);
    const owner = repo && (await findUserById(c.ctx, repo.ownerId));
    if (repo && owner && (await repoPermission(c.ctx, c.p, repo, owner)).can(UnitType.Code, AccessMode.Read)) return true;
  }
  return false;
}

/** Parse the batch body the way Go decodes it: wrong JSON types are a bad request, bad values a per-object 422. */
function parseBatch(body: unknown): { upload: boolean; objects: LfsPointer[] } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new BadRequest('Bad Request');
  const b = body as Record<string, unknown>;
  if (b.operation !== 'upload' && b.operation !== 'download') throw new BadRequest('Bad Request');
  // why: the spec says a server that cannot use the requested hash algorithm answers 409.
  if (b.hash_algo !== undefined && b.hash_algo !== 'sha256') throw new Conflict('unsupported hash algorithm');
  const raw = b.objects ?? [];
  if (!Array.isArray(raw)) throw new BadRequest('Bad Request');
  // why: Gitea's LFS_MAX_BATCH_SIZE; a batch is answered object by object, so its size is bounded before any work.
  const max = settings().server.lfsMaxBatchSize;
  if (max > 0 && raw.length > max) throw new TooLarge(`a batch may name at most ${max} objects ([server] LFS_MAX_BATCH_SIZE)`);
  const objects = raw.map((o: unknown) => {
    const x = (typeof o === 'object' && o !== null ? o : {}) as Record<string, unknown>;
    const oid = x.oid ?? '';
    const size = x.size ?? 0;
    if (typeof oid !== 'string' || typeof size !== 'number' || !Number.isInteger(size)) throw new BadRequest('Bad Request');
    return { oid, size };
  });
  return { upload: b.operation === 'upload', objects };
}

/** Answer a batch request (operation upload or download) with per-object actions or errors. */
export async function lfsBatch(c: LfsCaller, body: unknown): Promise<LfsBatchResponse> {
  const { upload, objects } = parseBatch(body);
  const rc = await authorizeLfs(c.ctx, c.p, c.grant, c.owner, c.repo, upload ? 'write' : 'read');
  const header: Record<string, string> | undefined = c.authorization ? { Authorization: c.authorization } : undefined;
  const base = lfsBase(rc);
  const max = settings().server.lfsMaxFileSize;
  const out: LfsObjectResponse[] = [];
  // why: one query for the links of the whole batch and the stats side by side, not a round trip per object.
  const valid = objects.filter((p) => isValidOid(p.oid) && isValidSize(p.size));
  const metas = await findLfsMetas(c.ctx, rc.repo.id, valid.map((p) => p.oid));
  const sizes = new Map(await Promise.all(valid.map(async (p) => [p.oid, await storedSize(p.oid)] as const)));
  for (const p of objects) {
    const fail = (code: number, message: string) => out.push({ ...p, error: { code, message } });
    if (!isValidOid(p.oid) || !isValidSize(p.size)) { fail(422, INVALID); continue; }
    const stored = sizes.get(p.oid) ?? null;
    const meta = metas.get(p.oid) ?? null;
    if ((meta && meta.size !== p.size) || (stored !== null && stored !== p.size)) { fail(422, notBytes(p)); continue; }
    let exists = stored !== null;
    if (!upload) {
      if (!exists || !meta) { fail(404, 'Not Found'); continue; }
      out.push({ ...p, actions: { download: { href: `${base}/objects/${p.oid}`, header } } });
      continue;
    }
    if (!exists && max > 0 && p.size > max) { fail(422, tooLarge(max)); continue; }
    if (exists && !meta) {
      // why: as Gitea, content already in the store is linked without a transfer only when the caller can
      // read it through another repository; anyone else must upload the bytes, which proves possession.
      if (await canReadElsewhere(c, p.oid)) await linkLfsMeta(c.ctx, rc.repo.id, p.oid, p.size);
      else exists = false;
    }
    if (exists) { out.push({ ...p }); continue; }
    const verify: LfsLink = { href: `${base}/verify`, header: { ...(header ?? {}), Accept: LFS_MEDIA_TYPE } };
    out.push({ ...p, actions: { upload: { href: `${base}/objects/${p.oid}/${p.size}`, header }, verify } });
  }
  return { transfer: 'basic', objects: out, hash_algo: 'sha256' };
}

/** Parse an upload size (URL segment or Content-Length). */
function parseSize(raw: string | undefined): number | null {
  if (raw === undefined || !/^\d{1,16}$/.test(raw)) return null;
  const n = Number(raw);
  return Number.isSafeInteger(n) ? n : null;
}

/**
 * Receive one object. `sizeRaw` is the size in the URL (Gitea's upload link) or, for a bare
 * `objects/{oid}` PUT, the Content-Length. The bytes are always hashed and counted, also when the store
 * already has the object, and the repository is linked only after they match.
 */
export async function lfsUpload(c: LfsCaller, oid: string, sizeRaw: string | undefined, body: Readable): Promise<void> {
  if (sizeRaw === undefined) throw new HttpError(411, 'Length Required');
  const size = parseSize(sizeRaw);
  if (!isValidOid(oid) || size === null) throw new Validation(INVALID);
  const rc = await authorizeLfs(c.ctx, c.p, c.grant, c.owner, c.repo, 'write');
  const meta = await findLfsMeta(c.ctx, rc.repo.id, oid);
  if (meta && meta.size !== size) throw new Validation(notBytes({ oid, size }));
  const stored = await storedSize(oid);
  const max = settings().server.lfsMaxFileSize;
  if (stored === null && max > 0 && size > max) throw new Validation(tooLarge(max));
  try {
    // why: hashing every upload, duplicates included, is what stops a caller from claiming an object it does not have.
    if (stored !== null) await checkContent(oid, size, body);
    else await storeObject(oid, size, body);
  } catch (err) {
    if (err instanceof ContentMismatch) throw new Validation(err.message);
    throw err;
  }
  await linkLfsMeta(c.ctx, rc.repo.id, oid, size);
}

/** The object a download may stream: linked to this repository and present in the store. */
export async function lfsDownloadable(c: LfsCaller, oid: string): Promise<LfsPointer> {
  if (!isValidOid(oid)) throw new Validation(INVALID);
  const rc = await authorizeLfs(c.ctx, c.p, c.grant, c.owner, c.repo, 'read');
  const meta = await findLfsMeta(c.ctx, rc.repo.id, oid);
  if (!meta || (await storedSize(oid)) !== meta.size) throw new NotFound('Not Found');
  return meta;
}

/** The verify action after an upload: 200 when the repository has the object with that size. */
export async function lfsVerify(c: LfsCaller, body: unknown): Promise<void> {
  const b = (typeof body === 'object' && body !== null ? body : null) as Record<string, unknown> | null;
  if (!b || typeof b.oid !== 'string' || typeof b.size !== 'number') throw new Validation(INVALID);
  const p = { oid: b.oid, size: b.size };
  if (!isValidOid(p.oid) || !isValidSize(p.size)) throw new Validation(INVALID);
  const rc = await authorizeLfs(c.ctx, c.p, c.grant, c.owner, c.repo, 'write');
  const meta = await findLfsMeta(c.ctx, rc.repo.id, p.oid);
  if (!meta) throw new NotFound('Not Found');
  if (meta.size !== p.size) throw new Validation(notBytes(p));
  if ((await storedSize(p.oid)) !== meta.size) throw new NotFound('Not Found');
}
