/**
 * Branch protection rules (`/repos/{owner}/{repo}/branch_protections`, repository admins) and
 * which rule protects a branch. A rule name with a glob character is a glob over branch names
 * (`*` within one path segment, `**` across them, case-sensitive); any other name matches the one
 * branch of that name, whatever its case. Rules are tried by priority, plain names before globs,
 * then oldest first; the first that matches protects the branch (Gitea's order).
 */
import { withTx, isUniqueViolation, type DbContext } from '../../db';
import { BadRequest, Forbidden, NotFound, Validation } from '../../errors';
import { findUsersByIds, type UserModel } from '../../models/user.model';
import { findTeamById } from '../../models/team.model';
import { idList } from '../../models/protected-tag.model';
import {
  listProtectedBranches, findProtectedBranch, maxProtectedBranchPriority, insertProtectedBranch, saveProtectedBranch,
  deleteProtectedBranch, setProtectedBranchPriorities, isGlobRule, type ProtectedBranchModel,
} from '../../models/protected-branch.model';
import type { CreateBranchProtectionOption, EditBranchProtectionOption } from '../../api/branch-protection';
import { asUser } from '../auth/principal';
import { repoPermission } from '../perm/permission';
import { AccessMode } from '../../models/perm';
import type { RepoContext } from '../repo/context';
import { assertNotArchived, UnitType } from '../repo/access';
import { allowlistTeamIds, allowlistUserIds } from './allowlist';
import { assertRepoAdmin } from './tag-protection.service';
import { compileGlob, globMatches } from './pattern';

/** The allow-lists of a rule as names, for the converter. */
export interface BranchProtectionView {
  row: ProtectedBranchModel;
  push: { users: string[]; teams: string[] };
  forcePush: { users: string[]; teams: string[] };
  merge: { users: string[]; teams: string[] };
  approvals: { users: string[]; teams: string[] };
}

/** Does the rule protect `branch`? An invalid glob protects nothing, as in Gitea. */
export function ruleMatches(ruleName: string, branch: string): boolean {
  if (!isGlobRule(ruleName)) return ruleName.toLowerCase() === branch.toLowerCase();
  try {
    return globMatches(compileGlob(ruleName, '/'), branch);
  } catch {
    return false;
  }
}

/** The rules of a repository in the order they are tried. */
export async function orderedRules(ctx: DbContext, repoId: number): Promise<ProtectedBranchModel[]> {
  const rows = await listProtectedBranches(ctx, repoId);
  return [...rows].sort((a, b) => a.priority - b.priority || Number(isGlobRule(a.ruleName)) - Number(isGlobRule(b.ruleName)) || a.id - b.id);
}

/** The rule that protects `branch`, or null. */
export async function ruleForBranch(ctx: DbContext, repoId: number, branch: string): Promise<ProtectedBranchModel | null> {
  return (await orderedRules(ctx, repoId)).find((r) => ruleMatches(r.ruleName, branch)) ?? null;
}

async function namesOf(ctx: DbContext, usersJson: string, teamsJson: string): Promise<{ users: string[]; teams: string[] }> {
  const ids = idList(usersJson);
  const byId = new Map((await findUsersByIds(ctx, ids)).map((u) => [u.id, u]));
  const teams: string[] = [];
  for (const id of idList(teamsJson)) {
    const t = await findTeamById(ctx, id);
    if (t) teams.push(t.name);
  }
  return { users: ids.map((id) => byId.get(id)?.name).filter((n): n is string => !!n), teams };
}

async function viewOf(ctx: DbContext, row: ProtectedBranchModel): Promise<BranchProtectionView> {
  const [push, forcePush, merge, approvals] = await Promise.all([
    namesOf(ctx, row.pushAllowlistUserIds, row.pushAllowlistTeamIds),
    namesOf(ctx, row.forcePushAllowlistUserIds, row.forcePushAllowlistTeamIds),
    namesOf(ctx, row.mergeAllowlistUserIds, row.mergeAllowlistTeamIds),
    namesOf(ctx, row.approvalsAllowlistUserIds, row.approvalsAllowlistTeamIds),
  ]);
  return { row, push, forcePush, merge, approvals };
}

/** Every rule of the repository, in the order they are tried. */
export async function listBranchProtections(ctx: DbContext, rc: RepoContext): Promise<BranchProtectionView[]> {
  assertRepoAdmin(rc);
  return Promise.all((await orderedRules(ctx, rc.repo.id)).map((r) => viewOf(ctx, r)));
}

/** One rule by its exact name; 404 when there is none. */
export async function getBranchProtection(ctx: DbContext, rc: RepoContext, name: string): Promise<BranchProtectionView> {
  assertRepoAdmin(rc);
  const row = await findProtectedBranch(ctx, rc.repo.id, name);
  if (!row) throw new NotFound();
  return viewOf(ctx, row);
}

/**
 * The ids of `names` that may be on a list needing `mode` on the code (write to push or merge,
 * read to approve); others are left out, as Gitea leaves them out. 422 for a name that is no user.
 */
async function allowedUsers(ctx: DbContext, rc: RepoContext, names: string[] | undefined, mode: AccessMode): Promise<string> {
  const ids = await allowlistUserIds(ctx, names ?? []);
  const users: UserModel[] = await findUsersByIds(ctx, ids);
  const kept: number[] = [];
  for (const u of users) {
    if ((await repoPermission(ctx, asUser(u), rc.repo, rc.owner)).can(UnitType.Code, mode)) kept.push(u.id);
  }
  return JSON.stringify(ids.filter((id) => kept.includes(id)));
}

const teams = async (ctx: DbContext, rc: RepoContext, names: string[] | undefined) => JSON.stringify(await allowlistTeamIds(ctx, rc, names ?? []));

function contexts(list: string[] | undefined): string {
  return JSON.stringify((list ?? []).map((c) => c.trim()).filter((c) => c !== ''));
}

const duplicate = () => new Forbidden('Branch protection already exist');

/** Add a rule (repository admins). */
export async function createBranchProtection(ctx: DbContext, rc: RepoContext, o: CreateBranchProtectionOption): Promise<BranchProtectionView> {
  assertRepoAdmin(rc);
  assertNotArchived(rc);
  const ruleName = (o.rule_name || o.branch_name || '').trim();
  if (ruleName === '') throw new BadRequest('both rule_name and branch_name are empty');
  if ([...ruleName].length > 255) throw new Validation('[RuleName]: MaxSize');
  if (await findProtectedBranch(ctx, rc.repo.id, ruleName)) throw duplicate();
  const push = !!o.enable_push;
  const pushList = push && !!o.enable_push_whitelist;
  const force = push && !!o.enable_force_push;
  const forceList = force && !!o.enable_force_push_allowlist;
  const fields = {
    ruleName,
    priority: o.priority && o.priority > 0 ? o.priority : (await maxProtectedBranchPriority(ctx, rc.repo.id)) + 1,
    canPush: push, enablePushAllowlist: pushList, pushAllowlistDeployKeys: pushList && !!o.push_whitelist_deploy_keys,
    pushAllowlistUserIds: await allowedUsers(ctx, rc, o.push_whitelist_usernames, AccessMode.Write),
    pushAllowlistTeamIds: await teams(ctx, rc, o.push_whitelist_teams),
    canForcePush: force, enableForcePushAllowlist: forceList, forcePushAllowlistDeployKeys: forceList && !!o.force_push_allowlist_deploy_keys,
    forcePushAllowlistUserIds: await allowedUsers(ctx, rc, o.force_push_allowlist_usernames, AccessMode.Write),
    forcePushAllowlistTeamIds: await teams(ctx, rc, o.force_push_allowlist_teams),
    enableMergeAllowlist: !!o.enable_merge_whitelist,
    mergeAllowlistUserIds: await allowedUsers(ctx, rc, o.merge_whitelist_usernames, AccessMode.Write),
    mergeAllowlistTeamIds: await teams(ctx, rc, o.merge_whitelist_teams),
    enableStatusCheck: !!o.enable_status_check, statusCheckContexts: contexts(o.status_check_contexts),
    requiredApprovals: Math.max(0, o.required_approvals ?? 0),
    enableApprovalsAllowlist: !!o.enable_approvals_whitelist,
    approvalsAllowlistUserIds: await allowedUsers(ctx, rc, o.approvals_whitelist_username, AccessMode.Read),
    approvalsAllowlistTeamIds: await teams(ctx, rc, o.approvals_whitelist_teams),
    blockOnRejectedReviews: !!o.block_on_rejected_reviews, blockOnOfficialReviewRequests: !!o.block_on_official_review_requests,
    blockOnOutdatedBranch: !!o.block_on_outdated_branch, dismissStaleApprovals: !!o.dismiss_stale_approvals,
    ignoreStaleApprovals: !!o.ignore_stale_approvals, requireSignedCommits: !!o.require_signed_commits,
    protectedFilePatterns: (o.protected_file_patterns ?? '').trim(), unprotectedFilePatterns: (o.unprotected_file_patterns ?? '').trim(),
    blockAdminMergeOverride: !!o.block_admin_merge_override,
  };
  try {
    return await viewOf(ctx, await withTx(ctx, (tx) => insertProtectedBranch(tx, rc.repo.id, fields)));
  } catch (err) {
    if (isUniqueViolation(err)) throw duplicate();
    throw err;
  }
}

/** Change a rule (repository admins); omitted fields keep their value, and a rule keeps its name. */
export async function editBranchProtection(ctx: DbContext, rc: RepoContext, name: string, o: EditBranchProtectionOption): Promise<BranchProtectionView> {
  assertRepoAdmin(rc);
  assertNotArchived(rc);
  const row = await findProtectedBranch(ctx, rc.repo.id, name);
  if (!row) throw new NotFound();
  if (o.priority !== undefined) row.priority = o.priority;
  // why: as in Gitea, turning pushing (or force-pushing) off also turns its allow-list off.
  if (o.enable_push === false) Object.assign(row, { canPush: false, enablePushAllowlist: false, pushAllowlistDeployKeys: false });
  if (o.enable_push === true) {
    row.canPush = true;
    if (o.enable_push_whitelist !== undefined) row.enablePushAllowlist = o.enable_push_whitelist;
    if (o.push_whitelist_deploy_keys !== undefined) row.pushAllowlistDeployKeys = o.push_whitelist_deploy_keys;
    if (!row.enablePushAllowlist) row.pushAllowlistDeployKeys = false;
  }
  if (o.enable_force_push === false || !row.canPush) Object.assign(row, { canForcePush: false, enableForcePushAllowlist: false, forcePushAllowlistDeployKeys: false });
  else if (o.enable_force_push === true) {
    row.canForcePush = true;
    if (o.enable_force_push_allowlist !== undefined) row.enableForcePushAllowlist = o.enable_force_push_allowlist;
    if (o.force_push_allowlist_deploy_keys !== undefined) row.forcePushAllowlistDeployKeys = o.force_push_allowlist_deploy_keys;
    if (!row.enableForcePushAllowlist) row.forcePushAllowlistDeployKeys = false;
  }
  if (o.push_whitelist_usernames !== undefined) row.pushAllowlistUserIds = await allowedUsers(ctx, rc, o.push_whitelist_usernames, AccessMode.Write);
  if (o.push_whitelist_teams !== undefined) row.pushAllowlistTeamIds = await teams(ctx, rc, o.push_whitelist_teams);
  if (o.force_push_allowlist_usernames !== undefined) row.forcePushAllowlistUserIds = await allowedUsers(ctx, rc, o.force_push_allowlist_usernames, AccessMode.Write);
  if (o.force_push_allowlist_teams !== undefined) row.forcePushAllowlistTeamIds = await teams(ctx, rc, o.force_push_allowlist_teams);
  if (o.enable_merge_whitelist !== undefined) row.enableMergeAllowlist = o.enable_merge_whitelist;
  if (o.merge_whitelist_usernames !== undefined) row.mergeAllowlistUserIds = await allowedUsers(ctx, rc, o.merge_whitelist_usernames, AccessMode.Write);
  if (o.merge_whitelist_teams !== undefined) row.mergeAllowlistTeamIds = await teams(ctx, rc, o.merge_whitelist_teams);
  if (o.enable_status_check !== undefined) row.enableStatusCheck = o.enable_status_check;
  if (o.status_check_contexts !== undefined) row.statusCheckContexts = contexts(o.status_check_contexts);
  if (o.required_approvals !== undefined && o.required_approvals >= 0) row.requiredApprovals = o.required_approvals;
  if (o.enable_approvals_whitelist !== undefined) row.enableApprovalsAllowlist = o.enable_approvals_whitelist;
  if (o.approvals_whitelist_username !== undefined) row.approvalsAllowlistUserIds = await allowedUsers(ctx, rc, o.approvals_whitelist_username, AccessMode.Read);
  if (o.approvals_whitelist_teams !== undefined) row.approvalsAllowlistTeamIds = await teams(ctx, rc, o.approvals_whitelist_teams);
  const flags = {
    block_on_rejected_reviews: 'blockOnRejectedReviews', block_on_official_review_requests: 'blockOnOfficialReviewRequests',
    block_on_outdated_branch: 'blockOnOutdatedBranch', dismiss_stale_approvals: 'dismissStaleApprovals', ignore_stale_approvals: 'ignoreStaleApprovals',
    require_signed_commits: 'requireSignedCommits', block_admin_merge_override: 'blockAdminMergeOverride',
  } as const;
  for (const [key, column] of Object.entries(flags)) {
    const v = o[key as keyof typeof flags];
    if (v !== undefined) row[column] = v;
  }
  if (o.protected_file_patterns !== undefined) row.protectedFilePatterns = o.protected_file_patterns.trim();
  if (o.unprotected_file_patterns !== undefined) row.unprotectedFilePatterns = o.unprotected_file_patterns.trim();
  await withTx(ctx, (tx) => saveProtectedBranch(tx, row));
  return viewOf(ctx, row);
}

/** Remove a rule (repository admins). */
export async function removeBranchProtection(ctx: DbContext, rc: RepoContext, name: string): Promise<void> {
  assertRepoAdmin(rc);
  if (!(await withTx(ctx, (tx) => deleteProtectedBranch(tx, rc.repo.id, name)))) throw new NotFound();
}

/** Give the rules `ids` the priorities 1, 2, ... in that order (ids of other repositories are ignored). */
export async function reorderBranchProtections(ctx: DbContext, rc: RepoContext, ids: number[]): Promise<void> {
  assertRepoAdmin(rc);
  assertNotArchived(rc);
  if (!Array.isArray(ids) || !ids.every((id) => Number.isSafeInteger(id))) throw new Validation('[Ids]: must be a list of rule ids');
  await withTx(ctx, (tx) => setProtectedBranchPriorities(tx, rc.repo.id, ids));
}
