/**
 * Release assets (`/repos/{owner}/{repo}/releases/{id}/assets`) and the download route
 * `/attachments/{uuid}`. Every access is decided by the permission function on the attachment's
 * own repository: reading needs the releases unit (and write access for a draft's assets), changes
 * need write access to it. Limits: `[attachment] ENABLED` and `MAX_SIZE` (MiB), and
 * `[repository.release] ALLOWED_TYPES`.
 */
import type { Readable } from 'node:stream';
import { settings } from '../../config';
import { withTx, type DbContext } from '../../db';
import { BadRequest, NotFound, Validation } from '../../errors';
import {
  countAttachmentDownload, deleteAttachmentRows, findAttachmentByUuid, findReleaseAttachment, insertAttachment, listReleaseAttachments,
  renameAttachment, type AttachmentModel,
} from '../../models/attachment.model';
import { findReleaseById, findReleaseByTag, type ReleaseModel } from '../../models/release.model';
import { findRepoById } from '../../models/repository.model';
import { findUserById, type UserModel } from '../../models/user.model';
import { AccessMode, UnitType } from '../../models/perm';
import type { Principal } from '../auth/principal';
import { repoAssignment, type RepoContext } from '../repo/context';
import { assertUnitWriter } from '../repo/access';
import { releaseRow } from './release.service';
import { FORBIDDEN_TYPE, openAttachmentFile, removeAttachmentFiles, storeUpload, typeAllowed } from '../storage/attachment-store';

/** 404 `attachment is not enabled` while [attachment] ENABLED is off. */
export function assertAttachmentsEnabled(): void {
  if (!settings().attachment.enabled) throw new NotFound('attachment is not enabled');
}

/** The assets of a release the caller may see. */
export async function listAssets(ctx: DbContext, rc: RepoContext, releaseId: number): Promise<AttachmentModel[]> {
  const rel = await releaseRow(ctx, rc, releaseId);
  return listReleaseAttachments(ctx, [rel.id]);
}

/** One asset of a release the caller may see. */
export async function getAsset(ctx: DbContext, rc: RepoContext, releaseId: number, id: number): Promise<AttachmentModel> {
  const rel = await releaseRow(ctx, rc, releaseId);
  const a = await findReleaseAttachment(ctx, rel.id, id);
  if (!a) throw new NotFound();
  return a;
}

/** Check an upload may start (before any of the body is read); returns the release. */
export async function assertCanUpload(ctx: DbContext, rc: RepoContext, releaseId: number): Promise<ReleaseModel> {
  assertAttachmentsEnabled();
  const rel = await releaseRow(ctx, rc, releaseId);
  assertUnitWriter(rc, UnitType.Releases);
  return rel;
}

/** The byte limit of one asset ([attachment] MAX_SIZE in MiB; 0 or less is no limit). */
function maxBytes(): number {
  const mb = settings().attachment.maxSize;
  return mb > 0 ? mb * 1024 * 1024 : 0;
}

/**
 * The stored name of an uploaded file: its last path component (as Go's multipart reader gives
 * it), at most 255 characters; 400 when nothing is left.
 */
export function attachmentName(raw: string | undefined): string {
  const name = (raw ?? '').split(/[/\\]/).pop()!.replace(/[\0\r\n]/g, '').trim();
  if (name === '' || name === '.' || name === '..') throw new BadRequest('Could not determine name of attachment.');
  if ([...name].length > 255) throw new Validation('[Name]: MaxSize');
  return name;
}

/** Store an uploaded asset named `name` for the release (checked by assertCanUpload). */
export async function createAsset(ctx: DbContext, doer: UserModel, rc: RepoContext, rel: ReleaseModel, rawName: string, data: Readable): Promise<AttachmentModel> {
  const name = attachmentName(rawName);
  const stored = await storeUpload(data, name, { maxBytes: maxBytes(), allowedTypes: settings().repositoryRelease.allowedTypes });
  try {
    return await withTx(ctx, async (tx) => {
      // why: the release may have been deleted while the file arrived; its asset must not outlive it.
      const fresh = await findReleaseById(tx, rc.repo.id, rel.id);
      if (!fresh || fresh.isTag) throw new NotFound();
      return insertAttachment(tx, { uuid: stored.uuid, repoId: rc.repo.id, releaseId: rel.id, uploaderId: doer.id, name, size: stored.size });
    });
  } catch (err) {
    await removeAttachmentFiles([stored.uuid]);
    throw err;
  }
}

/** Rename an asset (writers); the new name must pass the type allow-list by its extension. */
export async function editAsset(ctx: DbContext, rc: RepoContext, releaseId: number, id: number, name: string | undefined): Promise<AttachmentModel> {
  const a = await getAsset(ctx, rc, releaseId, id);
  assertUnitWriter(rc, UnitType.Releases);
  if (name) {
    const clean = attachmentName(name);
    if (!typeAllowed(null, clean, settings().repositoryRelease.allowedTypes)) throw new Validation(FORBIDDEN_TYPE);
    await withTx(ctx, (tx) => renameAttachment(tx, a, clean));
  }
  return a;
}

/** Delete an asset and its file (writers). */
export async function deleteAsset(ctx: DbContext, rc: RepoContext, releaseId: number, id: number): Promise<void> {
  const a = await getAsset(ctx, rc, releaseId, id);
  assertUnitWriter(rc, UnitType.Releases);
  await withTx(ctx, (tx) => deleteAttachmentRows(tx, [a.id]));
  await removeAttachmentFiles([a.uuid]);
}

/** A download: the row, and the file to stream. */
export interface AttachmentDownload { row: AttachmentModel; stream: Readable; size: number }

/**
 * Open an attachment for `p` by uuid: 404 unless it belongs to a release the caller may read in
 * a repository the caller may see (identical for missing and hidden).
 */
export async function openDownload(ctx: DbContext, p: Principal, uuid: string): Promise<AttachmentDownload> {
  if (!/^[0-9a-f-]{36}$/.test(uuid)) throw new NotFound();
  const row = await findAttachmentByUuid(ctx, uuid);
  if (!row || row.releaseId === 0) throw new NotFound();
  return openReleaseAttachment(ctx, p, row);
}

/** Open a release asset's row for `p`, on the same terms as openDownload (for the `/attachments/{uuid}` route). */
export async function openReleaseAttachment(ctx: DbContext, p: Principal, row: AttachmentModel): Promise<AttachmentDownload> {
  if (row.releaseId === 0) throw new NotFound();
  const repo = await findRepoById(ctx, row.repoId);
  const owner = repo && (await findUserById(ctx, repo.ownerId));
  if (!repo || !owner) throw new NotFound();
  return openReadable(ctx, p, owner.name, repo.name, async (rc) => ({ rel: await findReleaseById(ctx, rc.repo.id, row.releaseId), row }));
}

/**
 * Open the asset named `name` of the release tagged `tag` (Gitea's web path
 * `/{owner}/{repo}/releases/download/{tag}/{name}`), on the same terms as openDownload.
 */
export async function openReleaseDownload(ctx: DbContext, p: Principal, owner: string, repo: string, tag: string, name: string): Promise<AttachmentDownload> {
  return openReadable(ctx, p, owner, repo, async (rc) => {
    const rel = await findReleaseByTag(ctx, rc.repo.id, tag);
    return { rel, row: rel ? (await listReleaseAttachments(ctx, [rel.id])).find((a) => a.name === name) : undefined };
  });
}

/** The download of an attachment if the caller may read its release; 404 alike for missing and hidden. */
async function openReadable(
  ctx: DbContext, p: Principal, owner: string, repo: string,
  find: (rc: RepoContext) => Promise<{ rel: ReleaseModel | null; row: AttachmentModel | undefined }>,
): Promise<AttachmentDownload> {
  const rc = await repoAssignment(ctx, p, owner, repo).catch((err: unknown) => {
    if (err instanceof NotFound) return null;
    throw err;
  });
  const { rel, row } = rc ? await find(rc) : { rel: null, row: undefined };
  if (!rc || !rel || !row || rel.isTag || !rc.perm.can(UnitType.Releases, rel.isDraft ? AccessMode.Write : AccessMode.Read)) throw new NotFound();
  const file = await openAttachmentFile(row.uuid);
  if (!file) throw new NotFound();
  await countAttachmentDownload(ctx, row.id);
  return { row, ...file };
}
