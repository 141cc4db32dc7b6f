/**
 * Tag protection rules (`/repos/{owner}/{repo}/tag_protections`, repository admins) and the one
 * decision every tag change asks, through the API and through pushes: may this user create, move
 * or delete a tag of this name? A tag that no rule matches is free; a matched tag is allowed when
 * any matching rule lists the user or one of the user's teams (Gitea's IsUserAllowedToControlTag).
 */
import { withTx, isUniqueViolation, type DbContext } from '../../db';
import { BadRequest, Forbidden, NotFound, Validation } from '../../errors';
import { findUsersByIds } from '../../models/user.model';
import { findTeamById } from '../../models/team.model';
import { allowlistTeamIds, allowlistUserIds } from './allowlist';
import { isTeamMember } from '../../models/team-user.model';
import {
  idList, listProtectedTags, findProtectedTag, findProtectedTagByPattern, insertProtectedTag, updateProtectedTag, deleteProtectedTag,
  type ProtectedTagModel, type ProtectedTagFields,
} from '../../models/protected-tag.model';
import type { CreateTagProtectionOption, EditTagProtectionOption } from '../../api/refs';
import type { RepoContext } from '../repo/context';
import { assertNotArchived, isRepoAdmin } from '../repo/access';
import { assertPattern, matchPatterns, PatternError } from './pattern';

/** A rule with its allow-lists as names, for the converter. */
export interface TagProtectionView { row: ProtectedTagModel; usernames: string[]; teams: string[] }

/** 403 unless the caller administers the repository (Gitea's reqAdmin). */
export function assertRepoAdmin(rc: RepoContext): void {
  if (!isRepoAdmin(rc)) throw new Forbidden('user should be an owner or a collaborator with admin write of a repository');
}

async function viewOf(ctx: DbContext, row: ProtectedTagModel): Promise<TagProtectionView> {
  const ids = idList(row.allowlistUserIds);
  const byId = new Map((await findUsersByIds(ctx, ids)).map((u) => [u.id, u]));
  const users = ids.map((id) => byId.get(id)).filter((u) => u !== undefined);
  const teams: string[] = [];
  for (const id of idList(row.allowlistTeamIds)) {
    const t = await findTeamById(ctx, id);
    if (t) teams.push(t.name);
  }
  return { row, usernames: users.map((u) => u.name), teams };
}

/** Every rule of the repository. */
export async function listTagProtections(ctx: DbContext, rc: RepoContext): Promise<TagProtectionView[]> {
  assertRepoAdmin(rc);
  const rows = await listProtectedTags(ctx, rc.repo.id);
  return Promise.all(rows.map((r) => viewOf(ctx, r)));
}

/** One rule; 404 when it is not a rule of this repository. */
export async function getTagProtection(ctx: DbContext, rc: RepoContext, id: number): Promise<TagProtectionView> {
  assertRepoAdmin(rc);
  const row = await findProtectedTag(ctx, rc.repo.id, id);
  if (!row) throw new NotFound();
  return viewOf(ctx, row);
}

function checkedPattern(raw: string | undefined): string {
  const pattern = (raw ?? '').trim();
  if (pattern === '') throw new BadRequest('name_pattern are empty');
  if ([...pattern].length > 255) throw new Validation('[NamePattern]: MaxSize');
  try {
    assertPattern(pattern);
  } catch (err) {
    if (err instanceof PatternError) throw new Validation(`invalid name_pattern ${JSON.stringify(pattern)}: ${err.message}`);
    throw err;
  }
  return pattern;
}

const duplicate = () => new Forbidden('Tag protection already exist');

/** Add a rule (repository admins). */
export async function createTagProtection(ctx: DbContext, rc: RepoContext, o: CreateTagProtectionOption): Promise<TagProtectionView> {
  assertRepoAdmin(rc);
  assertNotArchived(rc);
  const namePattern = checkedPattern(o.name_pattern);
  if ((o.whitelist_usernames ?? []).length === 0 && (o.whitelist_teams ?? []).length === 0) {
    throw new BadRequest('both whitelist_usernames and whitelist_teams are empty');
  }
  if (await findProtectedTagByPattern(ctx, rc.repo.id, namePattern)) throw duplicate();
  const fields: ProtectedTagFields = { namePattern, userIds: await allowlistUserIds(ctx, o.whitelist_usernames ?? []), teamIds: await allowlistTeamIds(ctx, rc, o.whitelist_teams ?? []) };
  try {
    return await viewOf(ctx, await withTx(ctx, (tx) => insertProtectedTag(tx, rc.repo.id, fields)));
  } catch (err) {
    if (isUniqueViolation(err)) throw duplicate();
    throw err;
  }
}

/** Change a rule (repository admins); omitted fields keep their value. */
export async function editTagProtection(ctx: DbContext, rc: RepoContext, id: number, o: EditTagProtectionOption): Promise<TagProtectionView> {
  assertRepoAdmin(rc);
  assertNotArchived(rc);
  const row = await findProtectedTag(ctx, rc.repo.id, id);
  if (!row) throw new NotFound();
  const fields: ProtectedTagFields = {
    namePattern: o.name_pattern !== undefined ? checkedPattern(o.name_pattern) : row.namePattern,
    userIds: o.whitelist_usernames !== undefined ? await allowlistUserIds(ctx, o.whitelist_usernames) : idList(row.allowlistUserIds),
    teamIds: o.whitelist_teams !== undefined ? await allowlistTeamIds(ctx, rc, o.whitelist_teams) : idList(row.allowlistTeamIds),
  };
  const other = await findProtectedTagByPattern(ctx, rc.repo.id, fields.namePattern);
  if (other && other.id !== row.id) throw duplicate();
  try {
    await withTx(ctx, (tx) => updateProtectedTag(tx, row, fields));
  } catch (err) {
    if (isUniqueViolation(err)) throw duplicate();
    throw err;
  }
  return viewOf(ctx, row);
}

/** Remove a rule (repository admins). */
export async function removeTagProtection(ctx: DbContext, rc: RepoContext, id: number): Promise<void> {
  assertRepoAdmin(rc);
  if (!(await withTx(ctx, (tx) => deleteProtectedTag(tx, rc.repo.id, id)))) throw new NotFound();
}

async function allowedBy(ctx: DbContext, row: ProtectedTagModel, userId: number): Promise<boolean> {
  if (userId <= 0) return false;
  if (idList(row.allowlistUserIds).includes(userId)) return true;
  for (const teamId of idList(row.allowlistTeamIds)) if (await isTeamMember(ctx, teamId, userId)) return true;
  return false;
}

/** The names among `tagNames` that `userId` may not create, move or delete (empty when all are allowed). */
export async function protectedTagsFor(ctx: DbContext, repoId: number, userId: number, tagNames: string[]): Promise<string[]> {
  if (tagNames.length === 0) return [];
  const rules = await listProtectedTags(ctx, repoId);
  if (rules.length === 0) return [];
  const matches = await matchPatterns(rules.map((r) => r.namePattern), tagNames);
  const refused: string[] = [];
  for (let j = 0; j < tagNames.length; j++) {
    const matching = rules.filter((_, i) => matches[i][j]);
    if (matching.length === 0) continue;
    let allowed = false;
    for (const r of matching) if ((allowed = await allowedBy(ctx, r, userId))) break;
    if (!allowed) refused.push(tagNames[j]);
  }
  return refused;
}

/** Is `userId` allowed to control the tag `tagName`? */
export async function canControlTag(ctx: DbContext, repoId: number, userId: number, tagName: string): Promise<boolean> {
  return (await protectedTagsFor(ctx, repoId, userId, [tagName])).length === 0;
}

/**
 * The pre-receive check of a push: every tag it creates, moves or deletes must be allowed for the
 * pusher; the first refused one is named in Gitea's message.
 */
export async function assertTagPushAllowed(ctx: DbContext, repoId: number, pusherId: number, updates: { ref: string }[]): Promise<void> {
  const tags = updates.filter((u) => u.ref.startsWith('refs/tags/')).map((u) => u.ref.slice('refs/tags/'.length));
  const refused = await protectedTagsFor(ctx, repoId, pusherId, tags);
  if (refused.length > 0) throw new Forbidden(`Tag ${refused[0]} is protected`);
}
