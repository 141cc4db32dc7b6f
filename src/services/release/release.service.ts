/**
 * Releases (`/repos/{owner}/{repo}/releases`): readers of the releases unit see published
 * releases; writers also see and manage drafts. A release shares Gitea's `release` table with the
 * tag-only rows push processing keeps: publishing a release for an existing tag converts its
 * tag-only row, and publishing one for a missing tag creates the tag (annotated with `tag_message`,
 * else lightweight) at `target_commitish` under the repository lock, through the same ref sync as
 * a push. Deleting a release keeps its tag (the row turns back into a tag-only row).
 */
import { withTx, isUniqueViolation, type DbContext } from '../../db';
import { Conflict, NotFound, Validation } from '../../errors';
import { readTag, refId } from '../../git/ref-info';
import { withRepoLock } from '../../lock';
import {
  deleteReleaseRow, findLatestRelease, findReleaseById, findReleaseByTag, insertRelease, listReleases as listRows, saveRelease,
  type ReleaseModel,
} from '../../models/release.model';
import { deleteAttachmentRows, listReleaseAttachments, type AttachmentModel } from '../../models/attachment.model';
import { findUsersByIds, standIn, type UserModel } from '../../models/user.model';
import type { CreateReleaseOption, EditReleaseOption } from '../../api/release';
import type { RepoContext } from '../repo/context';
import { assertNotArchived, assertUnitReadable, assertUnitWriter, canWrite, gitDirOf, UnitType } from '../repo/access';
import { isValidRefName } from '../refs/names';
import { resolveRev } from '../refs/ref-ops';
import { canControlTag } from '../refs/tag-protection.service';
import { writeTag } from '../refs/tag.service';
import { syncRepoRefsLocked } from '../git-push/sync.service';
import { removeAttachmentFiles } from '../storage/attachment-store';
import { notify } from '../notify/notifier';

/** A release with its publisher and assets, for the converter. */
export interface ReleaseView { row: ReleaseModel; publisher: UserModel; assets: AttachmentModel[] }

const TAGS = 'refs/tags/';

/** Load publishers and assets of rows. */
async function viewsOf(ctx: DbContext, rows: ReleaseModel[]): Promise<ReleaseView[]> {
  const users = new Map((await findUsersByIds(ctx, [...new Set(rows.map((r) => r.publisherId))])).map((u) => [u.id, u]));
  const assets = await listReleaseAttachments(ctx, rows.map((r) => r.id));
  return rows.map((row) => ({ row, publisher: users.get(row.publisherId) ?? standIn(row.publisherId), assets: assets.filter((a) => a.releaseId === row.id) }));
}

/** May the caller see drafts (writers of the releases unit)? */
function seesDrafts(rc: RepoContext): boolean {
  return canWrite(rc, UnitType.Releases);
}

/**
 * A release row the caller may see: tag-only rows are not releases, and drafts exist only for
 * writers (why: Gitea leaked draft releases and their assets to readers, GHSA-q9pg).
 */
function visible(rc: RepoContext, row: ReleaseModel | null): ReleaseModel {
  if (!row || row.isTag || (row.isDraft && !seesDrafts(rc))) throw new NotFound();
  return row;
}

/** A release by id for readers of the releases unit. */
export async function releaseRow(ctx: DbContext, rc: RepoContext, id: number): Promise<ReleaseModel> {
  assertUnitReadable(rc, UnitType.Releases);
  return visible(rc, await findReleaseById(ctx, rc.repo.id, id));
}

/** One page of releases, newest first; `draft`/`prerelease` filter when given. */
export async function listReleases(
  ctx: DbContext, rc: RepoContext, filter: { draft?: boolean; prerelease?: boolean }, opts: { limit: number; offset: number },
): Promise<{ items: ReleaseView[]; total: number }> {
  assertUnitReadable(rc, UnitType.Releases);
  const { rows, count } = await listRows(ctx, rc.repo.id, { includeDrafts: seesDrafts(rc), ...filter }, opts.limit, opts.offset);
  return { items: await viewsOf(ctx, rows), total: count };
}

/** One release by id. */
export async function getRelease(ctx: DbContext, rc: RepoContext, id: number): Promise<ReleaseView> {
  return (await viewsOf(ctx, [await releaseRow(ctx, rc, id)]))[0];
}

/** The release of a tag name. */
export async function getReleaseByTag(ctx: DbContext, rc: RepoContext, tag: string): Promise<ReleaseView> {
  assertUnitReadable(rc, UnitType.Releases);
  return (await viewsOf(ctx, [visible(rc, await findReleaseByTag(ctx, rc.repo.id, tag))]))[0];
}

/** The newest published release that is not a pre-release. */
export async function getLatestRelease(ctx: DbContext, rc: RepoContext): Promise<ReleaseView> {
  assertUnitReadable(rc, UnitType.Releases);
  const row = await findLatestRelease(ctx, rc.repo.id);
  if (!row) throw new NotFound();
  return (await viewsOf(ctx, [row]))[0];
}

function assertReleaseWriter(rc: RepoContext): void {
  assertUnitWriter(rc, UnitType.Releases);
  assertNotArchived(rc);
}

/** 422 `[Field]: MaxSize` for texts longer than their column. */
function assertMax(value: string | undefined, field: string, max: number): void {
  if (value && [...value].length > max) throw new Validation(`[${field}]: MaxSize`);
}

function assertTagName(name: string | undefined): string {
  if (name === undefined || name === null || name === '') throw new Validation('[TagName]: Required');
  if (!isValidRefName(name) || [...name].length > 255) throw new Validation(`release tag name is not valid [tag_name: ${name}]`);
  return name;
}

/**
 * Make sure git has the tag `name` (the caller holds the lock): create it at `target` when missing,
 * after the protection check. Returns true when it was created.
 */
async function ensureTag(ctx: DbContext, doer: UserModel, rc: RepoContext, name: string, target: string, message: string): Promise<boolean> {
  const dir = gitDirOf(rc);
  if (await refId(dir, TAGS + name)) return false;
  if (!(await canControlTag(ctx, rc.repo.id, doer.id, name))) throw new Validation(`release tag name is protected [tag_name: ${name}]`);
  const commit = await resolveRev(dir, target);
  if (!commit) throw new NotFound(`target "${target}" not found: object does not exist [id: ${target}, rel_path: ]`);
  await writeTag(ctx, doer, rc, name, commit, message);
  return true;
}

/** Set a row's creation time (a release's publication time). */
function stamp(row: ReleaseModel, at: Date): void {
  row.set('createdAt', at, { raw: true });
  row.changed('createdAt', true);
}

/** Create a release, or publish one for an existing tag-only row. */
export async function createRelease(ctx: DbContext, doer: UserModel, rc: RepoContext, o: CreateReleaseOption): Promise<ReleaseView> {
  assertReleaseWriter(rc);
  const tagName = assertTagName(o.tag_name);
  assertMax(o.name, 'Title', 255);
  assertMax(o.target_commitish, 'Target', 255);
  if (rc.repo.isEmpty) throw new Validation('repo is empty');
  const id = await withRepoLock(rc.repo.id, async () => {
    let row = await findReleaseByTag(ctx, rc.repo.id, tagName);
    if (row && !row.isTag) throw new Conflict('Release is has no Tag');
    if (!row) {
      const target = o.target_commitish || rc.repo.defaultBranch;
      if (o.draft) {
        return (await withTx(ctx, (tx) => insertRelease(tx, rc.repo.id, {
          publisherId: doer.id, tagName, target, title: o.name ?? '', sha1: '', note: o.body ?? '', isDraft: true, isPrerelease: !!o.prerelease, isTag: false,
        }))).id;
      }
      await ensureTag(ctx, doer, rc, tagName, target, o.tag_message ?? '');
      row = await findReleaseByTag(ctx, rc.repo.id, tagName);
      if (!row) {
        // why: a tag pushed but not processed yet has no row; the sync records it like the push would.
        await syncRepoRefsLocked(rc.repo.id, undefined, ctx);
        row = await findReleaseByTag(ctx, rc.repo.id, tagName);
      }
      if (!row) throw new NotFound(`target "${target}" not found`);
      row.target = target;
    } else {
      row.target = o.target_commitish ?? '';
    }
    const converted = row;
    Object.assign(converted, { title: o.name ?? '', note: o.body ?? '', isDraft: !!o.draft, isPrerelease: !!o.prerelease, isTag: false, publisherId: doer.id });
    stamp(converted, new Date());
    await withTx(ctx, async (tx) => {
      await saveRelease(tx, converted);
      if (!converted.isDraft) await notify.releaseChanged(tx, { doer, at: rc, release: converted, action: 'published', firstPublished: true });
    });
    return converted.id;
  });
  return getRelease(ctx, rc, id);
}

/** Edit a release; empty strings and omitted fields keep their value (Gitea). */
export async function editRelease(ctx: DbContext, doer: UserModel, rc: RepoContext, id: number, o: EditReleaseOption): Promise<ReleaseView> {
  assertReleaseWriter(rc);
  visible(rc, await findReleaseById(ctx, rc.repo.id, id));
  if (o.tag_name) assertTagName(o.tag_name);
  assertMax(o.name, 'Title', 255);
  assertMax(o.target_commitish, 'Target', 255);
  const dir = gitDirOf(rc);
  await withRepoLock(rc.repo.id, async () => {
    const before = visible(rc, await findReleaseById(ctx, rc.repo.id, id));
    const tagName = o.tag_name || before.tagName;
    const target = o.target_commitish || before.target;
    const draft = o.draft ?? before.isDraft;
    if (tagName !== before.tagName) {
      const other = await findReleaseByTag(ctx, rc.repo.id, tagName);
      if (other && !other.isTag) throw new Conflict(`release tag already exist [tag_name: ${tagName}]`);
    }
    const created = !draft && (await ensureTag(ctx, doer, rc, tagName, target || rc.repo.defaultBranch, ''));
    const newTag = await readTag(dir, tagName);
    const oldTagStays = tagName !== before.tagName && before.sha1 !== '' && (await refId(dir, TAGS + before.tagName)) !== null;
    await withTx(ctx, async (tx) => {
      const row = visible(rc, await findReleaseById(tx, rc.repo.id, id));
      const oldName = row.tagName;
      const oldSha = row.sha1;
      if (tagName !== oldName) {
        const other = await findReleaseByTag(tx, rc.repo.id, tagName);
        if (other) await deleteReleaseRow(tx, other.id);
        row.tagName = tagName;
        row.sha1 = newTag?.commit ?? '';
      }
      row.target = target;
      if (o.name) row.title = o.name;
      if (o.body) row.note = o.body;
      if (o.prerelease !== undefined) row.isPrerelease = o.prerelease;
      row.isDraft = draft;
      if (created || (before.isDraft && !draft)) stamp(row, new Date());
      await saveRelease(tx, row);
      // why: as Gitea, an edit that made the tag (or turned a tag-only release into a release) publishes; a draft's edits
      // send nothing; the feed tells of a release when it is first published (made, or out of draft or tag-only).
      if (!draft) {
        const action = created || before.isTag ? 'published' : 'updated';
        await notify.releaseChanged(tx, { doer, at: rc, release: row, action, firstPublished: !!created || before.isTag || before.isDraft });
      }
      // why: the old tag is still in git; as in a push-made tag it keeps a tag-only row, so the next sync finds nothing new.
      if (oldTagStays) {
        await insertRelease(tx, rc.repo.id, {
          publisherId: row.publisherId, tagName: oldName, target: '', title: '', sha1: oldSha, note: '', isDraft: false, isPrerelease: false, isTag: true,
        });
      }
    }).catch((err: unknown) => {
      if (isUniqueViolation(err)) throw new Conflict(`release tag already exist [tag_name: ${tagName}]`);
      throw err;
    });
  });
  return getRelease(ctx, rc, id);
}

async function removeRelease(ctx: DbContext, doer: UserModel, rc: RepoContext, row: ReleaseModel): Promise<void> {
  const uuids = await withRepoLock(rc.repo.id, () => withTx(ctx, async (tx) => {
    const fresh = await findReleaseById(tx, rc.repo.id, row.id);
    if (!fresh || fresh.isTag) throw new NotFound();
    if (!fresh.isDraft) await notify.releaseChanged(tx, { doer, at: rc, release: fresh, action: 'deleted', firstPublished: false });
    const assets = await listReleaseAttachments(tx, [fresh.id]);
    await deleteAttachmentRows(tx, assets.map((a) => a.id));
    if (fresh.sha1) {
      // why: as in Gitea, deleting a release keeps its tag; the row becomes the tag's tag-only row again.
      fresh.isTag = true;
      fresh.isDraft = false;
      await saveRelease(tx, fresh);
    } else {
      await deleteReleaseRow(tx, fresh.id);
    }
    return assets.map((a) => a.uuid);
  }));
  await removeAttachmentFiles(uuids);
}

/** Delete a release by id (its tag stays). */
export async function deleteRelease(ctx: DbContext, doer: UserModel, rc: RepoContext, id: number): Promise<void> {
  assertReleaseWriter(rc);
  await removeRelease(ctx, doer, rc, visible(rc, await findReleaseById(ctx, rc.repo.id, id)));
}

/** Delete the release of a tag (the tag stays). */
export async function deleteReleaseByTag(ctx: DbContext, doer: UserModel, rc: RepoContext, tag: string): Promise<void> {
  assertReleaseWriter(rc);
  await removeRelease(ctx, doer, rc, visible(rc, await findReleaseByTag(ctx, rc.repo.id, tag)));
}
