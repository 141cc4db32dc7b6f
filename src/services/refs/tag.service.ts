/**
 * Tags (`/repos/{owner}/{repo}/tags`): list and get from git (readers of the code unit), create
 * (annotated with the doer as tagger when a message is given, else lightweight) and delete
 * (writers), both subject to tag protection. A tag that carries a release cannot be deleted here.
 */
import { withTx, type DbContext } from '../../db';
import { Conflict, NotFound, Validation } from '../../errors';
import { ZERO_ID } from '../../git/refs';
import { listTags as gitTags, readTag, refId, type GitTag } from '../../git/ref-info';
import { writeTagObject } from '../../git/ref-write';
import { withRepoLock } from '../../lock';
import { deleteReleaseRow, findReleaseByTag } from '../../models/release.model';
import type { UserModel } from '../../models/user.model';
import type { CreateTagOption } from '../../api/refs';
import type { RepoContext } from '../repo/context';
import { assertNotArchived, assertUnitReadable, assertUnitWriter, gitDirOf, UnitType } from '../repo/access';
import { assertRefName, isValidRefName } from './names';
import { moveRefsAndSync, resolveRev } from './ref-ops';
import { canControlTag } from './tag-protection.service';

const TAGS = 'refs/tags/';

/** One page of tags (Gitea's order: newest first) and the total. */
export async function listTags(_ctx: DbContext, rc: RepoContext, opts: { limit: number; offset: number }): Promise<{ items: GitTag[]; total: number }> {
  assertUnitReadable(rc, UnitType.Code);
  const all = await gitTags(gitDirOf(rc));
  return { items: all.slice(opts.offset, opts.offset + opts.limit), total: all.length };
}

/** One tag; 404 `tag doesn't exist: <name>`. */
export async function getTag(_ctx: DbContext, rc: RepoContext, name: string): Promise<GitTag> {
  assertUnitReadable(rc, UnitType.Code);
  const tag = isValidRefName(name) ? await readTag(gitDirOf(rc), name) : null;
  if (!tag) throw new NotFound(`tag doesn't exist: ${name}`);
  return tag;
}

/** The name and email a server-made tag object or commit carries for `doer`. */
export function signatureOf(doer: UserModel): { name: string; email: string } {
  return { name: doer.fullName || doer.name, email: doer.email || `${doer.lowerName}@noreply.localhost` };
}

/**
 * Create `name` at `commit` (the caller holds the repository lock and has checked protection):
 * an annotated tag object when `message` is not empty, else a lightweight tag.
 */
export async function writeTag(ctx: DbContext, doer: UserModel, rc: RepoContext, name: string, commit: string, message: string): Promise<void> {
  const dir = gitDirOf(rc);
  const target = message !== '' ? await writeTagObject(dir, commit, name, signatureOf(doer), message) : commit;
  await moveRefsAndSync(ctx, rc.repo.id, dir, doer.id, [{ ref: TAGS + name, old: ZERO_ID, new: target }], `tag already exists [name: ${name}]`);
}

/** Create a tag at `target` (a branch or commit; the default branch when empty). */
export async function createTag(ctx: DbContext, doer: UserModel, rc: RepoContext, o: CreateTagOption): Promise<GitTag> {
  assertUnitWriter(rc, UnitType.Code);
  assertNotArchived(rc);
  const name = assertRefName(o.tag_name, 'TagName', 50);
  const target = o.target || rc.repo.defaultBranch;
  const dir = gitDirOf(rc);
  const commit = rc.repo.isEmpty ? null : await resolveRev(dir, target);
  if (!commit) throw new NotFound(`target not found: object does not exist [id: ${target}, rel_path: ]`);
  await withRepoLock(rc.repo.id, async () => {
    if ((await findReleaseByTag(ctx, rc.repo.id, name)) || (await refId(dir, TAGS + name))) throw new Conflict(`tag already exists [name: ${name}]`);
    if (!(await canControlTag(ctx, rc.repo.id, doer.id, name))) throw new Validation('user not allowed to create protected tag');
    await writeTag(ctx, doer, rc, name, commit, o.message ?? '');
  });
  return getTag(ctx, rc, name);
}

/** Delete a tag that carries no release. */
export async function deleteTag(ctx: DbContext, doer: UserModel, rc: RepoContext, name: string): Promise<void> {
  assertUnitWriter(rc, UnitType.Code);
  assertNotArchived(rc);
  if (!isValidRefName(name)) throw new NotFound();
  const dir = gitDirOf(rc);
  await withRepoLock(rc.repo.id, async () => {
    const row = await findReleaseByTag(ctx, rc.repo.id, name);
    const id = await refId(dir, TAGS + name);
    if (!row && !id) throw new NotFound();
    if (row && !row.isTag) throw new Conflict('a tag attached to a release cannot be deleted directly');
    if (!(await canControlTag(ctx, rc.repo.id, doer.id, name))) throw new Validation('user not allowed to delete protected tag');
    if (id) await moveRefsAndSync(ctx, rc.repo.id, dir, doer.id, [{ ref: TAGS + name, old: id, new: ZERO_ID }], `tag does not exist [name: ${name}]`);
    else if (row) await withTx(ctx, (tx) => deleteReleaseRow(tx, row.id));
  });
}
