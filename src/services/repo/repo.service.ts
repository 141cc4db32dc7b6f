/**
 * Reading, editing, deleting and listing repositories. Every read goes through the permission
 * function, so a private repository the caller cannot read is never shown.
 */
import { listRepoLicenses } from '../../models/repo-license.model';
import { withTx, isUniqueViolation, type DbContext } from '../../db';
import { Forbidden, NotFound, Validation } from '../../errors';
import { repoPath } from '../../git/paths';
import { withRepoLock } from '../../lock';
import { branchExists, dirExists, moveRepoDir, removeRepoDir, setHeadBranch, validBranchName } from '../../git/init';
import { findUserById, findUsersByIds, visibleUsersSql, type UserModel } from '../../models/user.model';
import { visibilityScopeOf } from '../user/directory.service';
import { findRepoById, findRepoByOwnerAndName, saveRepo, setRepoUnits, renameRepoRow, searchRepos, repoCandidatesOf, collaborationRepoIdsOf, type RepositoryModel, type RepoSearch, type RepoVisibility } from '../../models/repository.model';
import { enabledUnits } from '../../models/access';
import { TableCache } from '../../models/table-cache';
import { formatScopes } from '../auth/scope';
import {
  parseExternalTrackerConfig, parseProjectsMode, parsePullsConfig, unitConfigOf, setUnitConfig, NEW_REPO_PULLS_CONFIG, PROJECTS_MODES, type ExternalTrackerConfig,
  type IssuesConfig, type ProjectsMode, type PullRequestsConfig,
} from '../../models/repo-unit.model';
import { trackerConfigOf } from './tracker-settings';
import { AccessMode, UnitType } from '../../models/perm';
import { issueCountsOf, type IssueCounts } from '../../models/repo-issue-counter.model';
import type { EditRepoOption, ExternalTracker, RepoPermissions } from '../../api/repo';
import { canSeeOwner, repoPermission, type RepoPermission } from '../perm/permission';
import type { Principal } from '../auth/principal';
import { assertRepoName, mirrorIntervalSeconds } from './rules';
import { formatGoDuration } from '../../config';
import { setMirrorSchedule } from '../../models/mirror.model';
import { nowUnix } from '../../models/issue.model';
import type { RepoContext } from './context';
import { transferViewOf, type TransferView } from './transfer.service';
import { markRepoActionsPrivate } from '../../models/action.model';
import { notify } from '../notify/notifier';

/**
 * A repository ready to convert: owner, enabled units, the caller's permissions, the pull-request
 * settings (null when pull requests are off), the parent of a fork as the caller may see it (null
 * when hidden or gone) and a pending transfer.
 */
export interface RepoView {
  repo: RepositoryModel; owner: UserModel; units: UnitType[]; permissions: RepoPermissions;
  pulls: PullRequestsConfig | null; parent?: RepoView | null; transfer?: TransferView | null;
  /** Open issues and open pull requests (the repository's counters). */
  open?: { issues: number; pulls: number };
  /** The built-in tracker's settings, or the external tracker (whichever is on). */
  tracker?: IssuesConfig; externalTracker?: ExternalTrackerConfig;
  /** The SPDX ids detected on the default branch. */
  licenses?: string[];
  /** Which projects the repository's issues may join, while the projects unit is on. */
  projectsMode?: ProjectsMode;
}

/** Gitea's permission triple from a computed permission. */
export function permissionsOf(perm: RepoPermission): RepoPermissions {
  return { admin: perm.mode >= AccessMode.Admin, push: perm.can(UnitType.Code, AccessMode.Write), pull: perm.can(UnitType.Code, AccessMode.Read) };
}

/** The parent of a fork as `p` may see it: null when it is gone or the caller cannot read it. */
async function parentView(ctx: DbContext, p: Principal, repo: RepositoryModel): Promise<RepoView | null> {
  const parent = repo.isFork && repo.forkId > 0 ? await findRepoById(ctx, repo.forkId) : null;
  const owner = parent ? await findUserById(ctx, parent.ownerId) : null;
  if (!parent || !owner || !(await canSeeOwner(ctx, p, owner))) return null;
  const perm = await repoPermission(ctx, p, parent, owner);
  // why: Gitea shows the parent with the fork's permission (a FIXME there); we show it only to those who may read it, with their own.
  return perm.mode >= AccessMode.Read ? viewOf(ctx, p, parent, owner, perm, false) : null;
}

/** Build the view of a repository for `p` (with its parent when it is a fork, unless `withParent` is false). */
export async function viewOf(ctx: DbContext, p: Principal, repo: RepositoryModel, owner: UserModel, perm?: RepoPermission, withParent = true): Promise<RepoView> {
  const pm = perm ?? (await repoPermission(ctx, p, repo, owner));
  const units = await enabledUnits(ctx, repo.id);
  const pullsText = units.includes(UnitType.PullRequests) ? await unitConfigOf(ctx, repo.id, UnitType.PullRequests) : null;
  return {
    repo, owner, units, permissions: permissionsOf(pm),
    pulls: pullsText === null ? null : parsePullsConfig(pullsText),
    parent: withParent ? await parentView(ctx, p, repo) : undefined,
    transfer: await transferViewOf(ctx, repo.id),
    open: openCounts((await issueCountsOf(ctx, [repo.id])).get(repo.id)!),
    tracker: units.includes(UnitType.Issues) ? await trackerConfigOf(ctx, repo.id) : undefined,
    externalTracker: units.includes(UnitType.ExternalTracker)
      ? parseExternalTrackerConfig(await unitConfigOf(ctx, repo.id, UnitType.ExternalTracker)) : undefined,
    licenses: (await listRepoLicenses(ctx, repo.id)).map((l) => l.license),
    projectsMode: units.includes(UnitType.Projects) ? parseProjectsMode(await unitConfigOf(ctx, repo.id, UnitType.Projects)) : undefined,
  };
}

/** Open issues and pull requests from a repository's counters. */
export function openCounts(c: IssueCounts): { issues: number; pulls: number } {
  return { issues: c.numIssues - c.numClosedIssues, pulls: c.numPulls - c.numClosedPulls };
}

/** Views of rows already known to be readable by `p` (lists). */
export async function viewsOf(ctx: DbContext, p: Principal, rows: { repo: RepositoryModel; owner: UserModel }[]): Promise<RepoView[]> {
  const out: RepoView[] = [];
  for (const r of rows) out.push(await viewOf(ctx, p, r.repo, r.owner));
  return out;
}

/** A repository by id as `p` may see it; 404 otherwise. */
export async function repoById(ctx: DbContext, p: Principal, id: number): Promise<RepoView> {
  const repo = Number.isSafeInteger(id) && id > 0 ? await findRepoById(ctx, id) : null;
  const owner = repo ? await findUserById(ctx, repo.ownerId) : null;
  if (!repo || !owner || !(await canSeeOwner(ctx, p, owner))) throw new NotFound(`repository does not exist [id: ${id}]`);
  const perm = await repoPermission(ctx, p, repo, owner);
  if (perm.mode < AccessMode.Read) throw new NotFound(`repository does not exist [id: ${id}]`);
  return viewOf(ctx, p, repo, owner, perm);
}

/** Throw 403 unless the caller administers the repository. */
export function assertRepoAdmin(rc: RepoContext): void {
  if (rc.perm.mode < AccessMode.Admin) throw new Forbidden('user should be an owner or a collaborator with admin write of a repository');
}

const UNIT_FIELDS: [keyof EditRepoOption, UnitType][] = [
  ['has_code', UnitType.Code], ['has_issues', UnitType.Issues], ['has_pull_requests', UnitType.PullRequests],
  ['has_wiki', UnitType.Wiki], ['has_releases', UnitType.Releases], ['has_projects', UnitType.Projects],
  ['has_packages', UnitType.Packages], ['has_actions', UnitType.Actions],
];
const DURATION = /^(0|(\d+(\.\d+)?(h|m|s|ms))+)$/;

/** EditRepoOption's merge settings and where Gitea keeps each in the pull-request unit's config. */
const MERGE_FIELDS: [keyof EditRepoOption, keyof PullRequestsConfig][] = [
  ['ignore_whitespace_conflicts', 'IgnoreWhitespaceConflicts'], ['allow_merge_commits', 'AllowMerge'], ['allow_rebase', 'AllowRebase'],
  ['allow_rebase_explicit', 'AllowRebaseMerge'], ['allow_squash_merge', 'AllowSquash'], ['allow_fast_forward_only_merge', 'AllowFastForwardOnly'],
  ['allow_manual_merge', 'AllowManualMerge'], ['autodetect_manual_merge', 'AutodetectManualMerge'], ['allow_rebase_update', 'AllowRebaseUpdate'],
  ['default_delete_branch_after_merge', 'DefaultDeleteBranchAfterMerge'], ['default_merge_style', 'DefaultMergeStyle'],
  ['default_allow_maintainer_edit', 'DefaultAllowMaintainerEdit'],
];
/** Merge styles a repository may default to (Gitea's MergeStyle values a pull request can be merged with). */
export const MERGE_STYLES = ['merge', 'rebase', 'rebase-merge', 'squash', 'fast-forward-only'];

/**
 * The pull-request config to store after this edit, or null when it stays as it is. As Gitea, the
 * settings apply while pull requests are (or become) enabled and are ignored otherwise; a unit that
 * an edit enables starts from Gitea's edit defaults (manual merge allowed).
 */
async function pullsConfigAfter(ctx: DbContext, rc: RepoContext, o: EditRepoOption, units: UnitType[] | null): Promise<string | null> {
  const before = await unitConfigOf(ctx, rc.repo.id, UnitType.PullRequests);
  const after = units ? units.includes(UnitType.PullRequests) : before !== null;
  const touched = MERGE_FIELDS.some(([f]) => o[f] !== undefined);
  if (!after || (before !== null && !touched)) return null;
  const cfg: Record<string, unknown> = before !== null ? { ...parsePullsConfig(before) } : { ...NEW_REPO_PULLS_CONFIG, AllowManualMerge: true };
  for (const [f, key] of MERGE_FIELDS) if (o[f] !== undefined) cfg[key] = o[f];
  return JSON.stringify(cfg);
}

/** Check every field of an edit before anything changes; returns the new unit set when units change. */
async function validateEdit(ctx: DbContext, rc: RepoContext, o: EditRepoOption): Promise<UnitType[] | null> {
  if (o.name !== undefined) assertRepoName(o.name);
  if (o.website !== undefined && o.website !== '' && !/^https?:\/\/\S+$/i.test(o.website)) throw new Validation('[Website]: invalid url');
  // why: a pull mirror's interval is its schedule, held to [mirror] MIN_INTERVAL; another repository only keeps the text.
  if (o.mirror_interval !== undefined && rc.repo.isMirror) mirrorIntervalSeconds(o.mirror_interval);
  else if (o.mirror_interval !== undefined && !DURATION.test(o.mirror_interval)) throw new Validation('Invalid mirror interval');
  if (o.default_merge_style !== undefined && !MERGE_STYLES.includes(o.default_merge_style)) {
    throw new Validation(`[DefaultMergeStyle]: must be one of ${MERGE_STYLES.join(', ')}`);
  }
  if (o.default_branch !== undefined && o.default_branch !== rc.repo.defaultBranch) {
    if (!(await validBranchName(o.default_branch))) throw new Validation(`invalid default branch name: ${JSON.stringify(o.default_branch)}`);
    const dir = repoPath(rc.owner.name, rc.repo.name);
    if (!rc.repo.isEmpty && !(await branchExists(dir, o.default_branch))) throw new NotFound(`branch does not exist [name: ${o.default_branch}]`);
  }
  if (o.projects_mode !== undefined && !(PROJECTS_MODES as readonly string[]).includes(o.projects_mode)) {
    throw new Validation(`[ProjectsMode]: must be one of ${PROJECTS_MODES.join(', ')}`);
  }
  if (!UNIT_FIELDS.some(([f]) => o[f] !== undefined)) return null;
  const units = new Set(await enabledUnits(ctx, rc.repo.id));
  for (const [f, u] of UNIT_FIELDS) {
    if (o[f] === true) units.add(u);
    else if (o[f] === false) units.delete(u);
  }
  // why: as Gitea, has_issues with an external tracker turns the built-in tracker off, and the other way round.
  if (o.has_issues !== undefined) units.delete(UnitType.ExternalTracker);
  if (o.has_issues === true && o.external_tracker) {
    assertExternalTracker(o.external_tracker);
    units.delete(UnitType.Issues);
    units.add(UnitType.ExternalTracker);
  }
  if (units.size === 0) throw new Validation('at least one repository unit must stay enabled');
  return [...units];
}

/** 422 unless an external tracker's URL (and issue URL format) are http(s) URLs. */
function assertExternalTracker(t: ExternalTracker): void {
  const isUrl = (v: string) => /^https?:\/\/[^\s/]+/i.test(v) && URL.canParse(v);
  if (!isUrl(t.external_tracker_url ?? '')) throw new Validation('External tracker URL not valid');
  const format = (t.external_tracker_format ?? '').replace(/\{(user|repo|index)\}/g, 'x');
  if (format && !isUrl(format)) throw new Validation('External tracker URL format not valid');
}

/** The tracker configs an edit stores: the built-in tracker's settings, or the external tracker. */
async function storeTrackerConfigs(tx: DbContext, repoId: number, o: EditRepoOption): Promise<void> {
  if (o.has_issues !== true) return;
  const t = o.external_tracker;
  if (t) {
    await setUnitConfig(tx, repoId, UnitType.ExternalTracker, JSON.stringify({
      ExternalTrackerURL: t.external_tracker_url, ExternalTrackerFormat: t.external_tracker_format ?? '',
      ExternalTrackerStyle: t.external_tracker_style || 'numeric', ExternalTrackerRegexpPattern: t.external_tracker_regexp_pattern ?? '',
    }));
  } else if (o.internal_tracker) {
    const i = o.internal_tracker;
    await setUnitConfig(tx, repoId, UnitType.Issues, JSON.stringify({
      EnableTimetracker: !!i.enable_time_tracker, AllowOnlyContributorsToTrackTime: !!i.allow_only_contributors_to_track_time,
      EnableDependencies: !!i.enable_issue_dependencies,
    }));
  }
}

/** Apply an edit (admins of the repository); returns the updated row. */
export async function editRepo(ctx: DbContext, rc: RepoContext, doer: UserModel, o: EditRepoOption): Promise<RepositoryModel> {
  assertRepoAdmin(rc);
  const units = await validateEdit(ctx, rc, o);
  const oldName = rc.repo.name;
  const renaming = o.name !== undefined && o.name !== oldName;
  if (renaming && o.name!.toLowerCase() !== oldName.toLowerCase() && (await findRepoByOwnerAndName(ctx, rc.owner.id, o.name!))) {
    throw new Validation(`repository already exists [uname: ${rc.owner.name}, name: ${o.name}]`);
  }
  let repo = rc.repo;
  // why: renames move the directory and default_branch moves HEAD; the repository's write lock keeps
  // them from interleaving with other writes on any node, and the transaction rolls the row back if the move fails.
  const wasPrivate = repo.isPrivate;
  await withRepoLock(repo.id, () => withTx(ctx, async (tx) => {
    // why: the request's row is a shared snapshot; the row to change is read in the transaction.
    const row = await findRepoById(tx, rc.repo.id);
    if (!row) throw new NotFound();
    repo = row;
    if (o.description !== undefined) repo.description = o.description;
    if (o.website !== undefined) repo.website = o.website;
    if (o.private !== undefined) repo.isPrivate = o.private;
    if (o.template !== undefined) repo.isTemplate = o.template;
    if (o.mirror_interval !== undefined && repo.isMirror) {
      const secs = mirrorIntervalSeconds(o.mirror_interval);
      repo.mirrorInterval = formatGoDuration(secs);
      // why: a new interval counts from now, as Gitea's ScheduleNextUpdate does.
      await setMirrorSchedule(tx, repo.id, secs > 0 ? nowUnix() + secs : 0);
    } else if (o.mirror_interval !== undefined) repo.mirrorInterval = o.mirror_interval;
    if (o.enable_prune !== undefined) repo.enablePrune = o.enable_prune;
    if (o.archived !== undefined && o.archived !== repo.isArchived) {
      repo.isArchived = o.archived;
      repo.archivedAt = o.archived ? new Date() : null;
    }
    const oldBranch = repo.defaultBranch;
    if (o.default_branch !== undefined) repo.defaultBranch = o.default_branch;
    repo.changed('updatedAt', true);
    await saveRepo(tx, repo);
    // why: the config is read and written in the transaction under the lock, so two edits never lose each other's settings.
    const pullsConfig = await pullsConfigAfter(tx, rc, o, units);
    if (units) await setRepoUnits(tx, repo.id, units);
    if (pullsConfig !== null) await setUnitConfig(tx, repo.id, UnitType.PullRequests, pullsConfig);
    await storeTrackerConfigs(tx, repo.id, o);
    // why: as Gitea, projects_mode is kept while the projects unit is (or becomes) enabled; a unit enabled without one allows all projects.
    if (o.projects_mode !== undefined && (units ?? (await enabledUnits(tx, repo.id))).includes(UnitType.Projects)) {
      await setUnitConfig(tx, repo.id, UnitType.Projects, JSON.stringify({ ProjectsMode: o.projects_mode }));
    }
    // why: as Gitea, a repository's past activity becomes private with it (and stays so if it is made public again).
    if (o.private === true && !wasPrivate) await markRepoActionsPrivate(tx, repo.id);
    if (repo.defaultBranch !== oldBranch) await notify.repositoryDefaultBranchChanged(tx, { doer, repo, oldBranch });
    if (renaming) {
      await renameRepoRow(tx, repo, o.name!);
      await notify.repositoryRenamed(tx, { doer, repo, oldName });
      for (const wiki of [false, true]) {
        const from = repoPath(rc.owner.name, oldName, wiki);
        const to = repoPath(rc.owner.name, o.name!, wiki);
        if (from !== to && (await dirExists(from))) {
          // why: the new name has no row (checked above); a directory there is an unadopted repository, which a rename
          // never replaces (Gitea's IsRepositoryModelOrDirExist). A wiki directory alone is nobody's and is replaced.
          if (!wiki && (await dirExists(to))) throw new Validation(`repository already exists [uname: ${rc.owner.name}, name: ${o.name}]`);
          await removeRepoDir(to);
          await moveRepoDir(from, to);
        }
      }
    }
  }).then(async () => {
    if (o.default_branch !== undefined) {
      const dir = repoPath(rc.owner.name, repo.name);
      if (await dirExists(dir)) await setHeadBranch(dir, repo.defaultBranch);
    }
  })).catch((err: unknown) => {
    if (isUniqueViolation(err)) throw new Validation(`repository already exists [uname: ${rc.owner.name}, name: ${o.name}]`);
    throw err;
  });
  return repo;
}

// why: which repositories beyond the public ones a caller reaches decides every listing and search;
// deciding it runs the permission function on each candidate, so it is kept until one of the tables
// it depends on is written (or for the cache's TTL).
const grantedCache = new TableCache<number[]>('repo-granted-ids', [
  'repository', 'users', 'org_user', 'collaboration', 'team', 'team_user', 'team_unit', 'team_repo', 'repo_unit',
], 30_000);

/**
 * Which repositories `p` sees in lists, by the rules of the permission function: every one for
 * site admins; else public repositories of owners `p` may see (none for restricted users, who read
 * by grant only) and the repositories the permission function grants `p` beyond that. With
 * `unit`, granted repositories count only when `p` reads that unit (the caller filters public
 * repositories by the unit being enabled).
 */
export async function repoVisibility(ctx: DbContext, p: Principal, unit?: UnitType): Promise<RepoVisibility> {
  const publicOnly = !!p.scopes?.publicOnly;
  if (p.user?.isAdmin && !publicOnly) return 'all';
  const restricted = !!p.user?.isRestricted;
  const publicOwners = restricted ? null : visibleUsersSql(visibilityScopeOf(p));
  if (!p.user || publicOnly) return { publicOwners, grantedIds: [] };
  const user = p.user;
  const key = `${user.id}:${restricted}:${p.scopes ? formatScopes(p.scopes) : 'password'}:${unit ?? ''}`;
  const grantedIds = await grantedCache.get(ctx, key, async () => {
    const candidates = await repoCandidatesOf(ctx, user.id, restricted || unit !== undefined);
    const owners = new Map((await findUsersByIds(ctx, [...new Set(candidates.map((r) => r.ownerId))])).map((u) => [u.id, u]));
    const ids: number[] = [];
    for (const r of candidates) {
      // why: an owner with full credentials reads every enabled unit of their own repositories; asking the
      // permission function about each of a thousand of them made a cold search take most of a second.
      if (r.ownerId === user.id && (!p.scopes || p.scopes.all)) {
        ids.push(r.id);
        continue;
      }
      const owner = owners.get(r.ownerId);
      const perm = owner ? await repoPermission(ctx, p, r, owner) : null;
      if (perm && (unit === undefined ? perm.mode >= AccessMode.Read : perm.can(unit, AccessMode.Read))) ids.push(r.id);
    }
    return ids;
  });
  return { publicOwners, grantedIds };
}

/** Filters of a repository listing; `includePrivate: false` leaves private repositories out. */
export type RepoListQuery = Omit<RepoSearch, 'visible'> & { includePrivate?: boolean; collaboratorOf?: number };

/** One page of repositories `p` may see, with their views, and the total. */
export async function listRepos(ctx: DbContext, p: Principal, q: RepoListQuery): Promise<{ views: RepoView[]; count: number }> {
  const visible = await repoVisibility(ctx, p);
  const orIds = q.collaboratorOf !== undefined ? await collaborationRepoIdsOf(ctx, q.collaboratorOf) : undefined;
  const isPrivate = q.includePrivate === false ? false : q.isPrivate;
  const { rows, count } = await searchRepos(ctx, { ...q, isPrivate, visible, orIds });
  const owners = new Map((await findUsersByIds(ctx, [...new Set(rows.map((r) => r.ownerId))])).map((u) => [u.id, u]));
  const views: RepoView[] = [];
  for (const r of rows) {
    const owner = owners.get(r.ownerId);
    if (owner) views.push(await viewOf(ctx, p, r, owner));
  }
  return { views, count };
}
