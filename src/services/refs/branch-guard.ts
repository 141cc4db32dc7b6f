/**
 * What a branch protection rule allows a user (Gitea's CanUserPush, CanUserForcePush and
 * IsUserMergeWhitelisted) and the places it is enforced: pushes (decided in pre-receive, reading
 * the push's quarantined objects), file changes through the contents API, and branch deletion.
 * Messages are Gitea's, since git clients and scripts show and match them.
 */
import type { DbContext } from '../../db';
import { Forbidden } from '../../errors';
import { readCommits } from '../../git/history';
import { changedPaths, dropsCommits, gainedCommits } from '../../git/push-range';
import { ZERO_ID } from '../../git/refs';
import { findUsersByEmails } from '../../models/email-address.model';
import { AccessMode, UnitType } from '../../models/perm';
import type { ProtectedBranchModel } from '../../models/protected-branch.model';
import { idList } from '../../models/protected-tag.model';
import type { RepositoryModel } from '../../models/repository.model';
import { isTeamMember } from '../../models/team-user.model';
import { findUserById, type UserModel } from '../../models/user.model';
import { asUser } from '../auth/principal';
import { verifyCommits } from '../history/verify.service';
import { repoPermission } from '../perm/permission';
import type { RepoContext } from '../repo/context';
import { orderedRules, ruleForBranch, ruleMatches } from './branch-protection.service';
import { compileGlob, globMatches, type Glob } from './pattern';
import { maintainerBranches } from './maintainer-edit';

/** A user acting on a branch, and whether they may write the code at all (the rules' fallback). */
export interface Actor { user: UserModel; writesCode: boolean }

async function listed(ctx: DbContext, usersJson: string, teamsJson: string, userId: number): Promise<boolean> {
  if (idList(usersJson).includes(userId)) return true;
  for (const teamId of idList(teamsJson)) if (await isTeamMember(ctx, teamId, userId)) return true;
  return false;
}

/** May the actor push to a branch the rule protects? (without an allow-list: anyone who writes the code) */
export async function canUserPush(ctx: DbContext, rule: ProtectedBranchModel, a: Actor): Promise<boolean> {
  if (!rule.canPush) return false;
  if (!rule.enablePushAllowlist) return a.writesCode;
  return listed(ctx, rule.pushAllowlistUserIds, rule.pushAllowlistTeamIds, a.user.id);
}

/** May the actor force-push? A force push is a push too, so the push rule must allow it as well. */
export async function canUserForcePush(ctx: DbContext, rule: ProtectedBranchModel, a: Actor): Promise<boolean> {
  if (!rule.canForcePush) return false;
  if (rule.enableForcePushAllowlist && !(await listed(ctx, rule.forcePushAllowlistUserIds, rule.forcePushAllowlistTeamIds, a.user.id))) return false;
  return canUserPush(ctx, rule, a);
}

/** May the actor merge into a branch the rule protects? (without an allow-list: anyone who writes the code) */
export async function isMergeAllowlisted(ctx: DbContext, rule: ProtectedBranchModel, a: Actor): Promise<boolean> {
  if (!rule.enableMergeAllowlist) return a.writesCode;
  return listed(ctx, rule.mergeAllowlistUserIds, rule.mergeAllowlistTeamIds, a.user.id);
}

/** A `;`-separated list of file globs, lower-cased, with `.` and `/` as separators (invalid ones are skipped, as in Gitea). */
export function filePatterns(list: string): Glob[] {
  return list.toLowerCase().split(';').map((p) => p.trim()).filter(Boolean).flatMap((p) => {
    try {
      return [compileGlob(p, './')];
    } catch {
      return [];
    }
  });
}

/** Does a path (compared lower-cased) match any of the globs? */
export function matchesAny(globs: Glob[], path: string): boolean {
  const lower = path.toLowerCase();
  return globs.some((g) => globMatches(g, lower));
}

/** A branch's protection as the branch JSON shows it to one caller. */
export interface BranchProtectionState {
  rule: ProtectedBranchModel | null;
  canPush: boolean;
  canMerge: boolean;
  /** The rule's name for repository admins, '' for everyone else (Gitea shows it to admins only). */
  ruleName: string;
}

/**
 * The protection of each branch for `viewer` (rules read once). Unprotected branches: push and
 * merge for writers of the code; protected ones: the rule's lists (deploy keys and admin rights
 * are not considered, as in Gitea's branch JSON).
 */
export async function protectionStates(ctx: DbContext, rc: RepoContext, viewer: UserModel | null, branches: string[]): Promise<Map<string, BranchProtectionState>> {
  const rules = await orderedRules(ctx, rc.repo.id);
  const writesCode = rc.perm.can(UnitType.Code, AccessMode.Write);
  const admin = rc.perm.mode >= AccessMode.Admin;
  const out = new Map<string, BranchProtectionState>();
  // why: as Gitea, a maintainer of a pull request's base may push to its head branch here.
  const maintained = viewer && !writesCode ? await maintainerBranches(ctx, viewer, rc.repo.id, branches) : new Set<string>();
  for (const name of branches) {
    const rule = rules.find((r) => ruleMatches(r.ruleName, name)) ?? null;
    if (!rule) {
      out.set(name, { rule, canPush: writesCode || maintained.has(name), canMerge: writesCode, ruleName: '' });
      continue;
    }
    const a = viewer ? { user: viewer, writesCode } : null;
    out.set(name, {
      rule,
      canPush: a ? await canUserPush(ctx, rule, a) : false,
      canMerge: a ? await isMergeAllowlisted(ctx, rule, a) : false,
      ruleName: admin ? rule.ruleName : '',
    });
  }
  return out;
}

/** One ref update of a push. */
export interface PushedRef { old: string; new: string; ref: string }

/** A push to decide: who pushes (a user, or a deploy key with user id 0) and how to read its objects. */
export interface BranchPush {
  repo: RepositoryModel;
  owner: UserModel;
  pusherId: number;
  deployKeyId: number;
  gitDir: string;
  /** The push's quarantined object directories (git/quarantine.ts quarantineEnv). */
  env: Record<string, string>;
  updates: PushedRef[];
}

const HEADS = 'refs/heads/';

/** The first commit of `ids` whose signature does not verify, or null. */
async function firstUnverified(ctx: DbContext, p: BranchPush, ids: string[]): Promise<string | null> {
  const commits = await readCommits(p.gitDir, ids, p.env);
  const committers = await findUsersByEmails(ctx, commits.filter((c) => c.signature).map((c) => c.committer.email));
  const verified = await verifyCommits(ctx, commits, committers);
  return commits.find((c) => !verified.get(c.id)?.verified)?.id ?? null;
}

/**
 * Refuse a push (Forbidden with the message the pusher sees) that deletes a protected branch,
 * force-pushes where the rule does not allow it, brings unverified commits where signatures are
 * required, changes a protected file, or comes from someone the rule does not let push. A push
 * by someone who may not push is still allowed when every file it changes is an unprotected one.
 * Full ref names are matched, so a tag named like a protected branch is not a branch here.
 */
export async function assertBranchPushAllowed(ctx: DbContext, p: BranchPush): Promise<void> {
  const heads = p.updates.filter((u) => u.ref.startsWith(HEADS));
  if (heads.length === 0) return;
  const rules = await orderedRules(ctx, p.repo.id);
  if (rules.length === 0) return;
  let actor: Actor | null | undefined;
  for (const u of heads) {
    const branch = u.ref.slice(HEADS.length);
    const rule = rules.find((r) => ruleMatches(r.ruleName, branch));
    if (!rule) continue;
    if (u.new === ZERO_ID) throw new Forbidden(`branch ${branch} is protected from deletion`);
    const force = await dropsCommits(p.gitDir, u.old, u.new, p.env);
    if (force && !rule.canForcePush) throw new Forbidden(`branch ${branch} is protected from force push`);
    if (rule.requireSignedCommits) {
      const bad = await firstUnverified(ctx, p, await gainedCommits(p.gitDir, u.old, u.new, p.env));
      if (bad) throw new Forbidden(`branch ${branch} is protected from unverified commit ${bad}`);
    }
    const guarded = filePatterns(rule.protectedFilePatterns);
    const free = filePatterns(rule.unprotectedFilePatterns);
    const paths = guarded.length || free.length ? await changedPaths(p.gitDir, u.old, u.new, p.env) : [];
    const touched = paths.find((path) => matchesAny(guarded, path));
    let canPush = false;
    if (touched === undefined && p.deployKeyId > 0) {
      canPush = rule.canPush && (force ? !rule.enableForcePushAllowlist || rule.forcePushAllowlistDeployKeys : !rule.enablePushAllowlist || rule.pushAllowlistDeployKeys);
    } else if (touched === undefined) {
      actor ??= await pusherOf(ctx, p);
      canPush = !!actor && (await (force ? canUserForcePush : canUserPush)(ctx, rule, actor));
    }
    if (canPush) continue;
    if (touched !== undefined) throw new Forbidden(`branch ${branch} is protected from changing file ${touched.toLowerCase()}`);
    // why: Gitea lets a push through that changes only unprotected files; one that changes nothing is not waved through here.
    if (free.length && paths.length && paths.every((path) => matchesAny(free, path))) continue;
    throw new Forbidden(force ? `Not allowed to force-push to protected branch ${branch}` : `Not allowed to push to protected branch ${branch}`);
  }
}

async function pusherOf(ctx: DbContext, p: BranchPush): Promise<Actor | null> {
  const user = await findUserById(ctx, p.pusherId);
  if (!user) return null;
  const perm = await repoPermission(ctx, asUser(user), p.repo, p.owner);
  return { user, writesCode: perm.can(UnitType.Code, AccessMode.Write) };
}

/**
 * Gitea's VerifyBranchProtection for commits made through the API: a caller who may not push to
 * the protected branch may still change unprotected files; nobody changes protected files; and
 * with signatures required the change is refused, since the forge does not sign such commits.
 */
export async function assertCanCommitFiles(ctx: DbContext, rc: RepoContext, doer: UserModel, branch: string, paths: string[]): Promise<void> {
  const rule = await ruleForBranch(ctx, rc.repo.id, branch);
  if (!rule) return;
  const cannotCommit = () => new Forbidden(`user cannot commit to repo [user: ${doer.lowerName}]`);
  const canPush = await canUserPush(ctx, rule, { user: doer, writesCode: rc.perm.can(UnitType.Code, AccessMode.Write) });
  const guarded = filePatterns(rule.protectedFilePatterns);
  const free = filePatterns(rule.unprotectedFilePatterns);
  for (const path of paths) {
    if (!canPush && !matchesAny(free, path)) throw cannotCommit();
    if (matchesAny(guarded, path)) throw new Forbidden(`path is protected and can not be changed [path: ${path}]`);
  }
  if (rule.requireSignedCommits) throw cannotCommit();
}

/** 403 for deleting a branch that any rule protects. */
export async function assertBranchDeletable(ctx: DbContext, repoId: number, branch: string): Promise<void> {
  if (await ruleForBranch(ctx, repoId, branch)) throw new Forbidden('branch protected');
}
