/** repository rows -> API Repository. */
import type { Repository, RepoPermissions, RepoTransfer } from '../api/repo';
import type { RepositoryModel } from '../models/repository.model';
import { addressWithoutUserinfo } from '../models/mirror.model';
import { Visibility, type UserModel } from '../models/user.model';
import type { TeamModel } from '../models/team.model';
import { NEW_REPO_PULLS_CONFIG, type ExternalTrackerConfig, type IssuesConfig, type ProjectsMode, type PullRequestsConfig } from '../models/repo-unit.model';
import { UnitType, type AccessMode } from '../models/perm';
import { toUser, type Viewer } from './user';
import { toTeam } from './org';
import { isoTime, ZERO_TIME } from './time';
import { settings } from '../config';

/**
 * What the converter needs besides the row: enabled units, the caller's permission, the
 * pull-request settings (null: pull requests off; omitted: a new repository's), the parent of a
 * fork already converted, and a pending transfer.
 */
export interface RepoExtras {
  units?: UnitType[]; permissions?: RepoPermissions;
  pulls?: PullRequestsConfig | null; parent?: Repository; transfer?: RepoTransfer | null;
  open?: { issues: number; pulls: number };
  tracker?: IssuesConfig; externalTracker?: ExternalTrackerConfig; projectsMode?: ProjectsMode;
  licenses?: string[];
}

/** A repository with everything around it, as the repository services hand it over. */
export interface RepoViewData {
  repo: RepositoryModel; owner: UserModel; units: UnitType[]; permissions: RepoPermissions;
  pulls: PullRequestsConfig | null; parent?: RepoViewData | null; open?: { issues: number; pulls: number };
  tracker?: IssuesConfig; externalTracker?: ExternalTrackerConfig; licenses?: string[]; projectsMode?: ProjectsMode;
  transfer?: { doer: UserModel; recipient: UserModel; teams: { team: TeamModel; units: Map<UnitType, AccessMode> }[] } | null;
}

/** Convert a view (its parent and pending transfer included). */
export function toRepositoryView(v: RepoViewData, viewer: Viewer | null, rootUrl: string): Repository {
  const t = v.transfer;
  return toRepository(v.repo, v.owner, viewer, rootUrl, {
    units: v.units, permissions: v.permissions, pulls: v.pulls, open: v.open, tracker: v.tracker, externalTracker: v.externalTracker, licenses: v.licenses,
    projectsMode: v.projectsMode,
    parent: v.parent ? toRepositoryView(v.parent, viewer, rootUrl) : undefined,
    // why: Gitea shows the transfer's users as to an anonymous viewer and its teams without their organization.
    transfer: t ? { doer: toUser(t.doer, null, rootUrl), recipient: toUser(t.recipient, null, rootUrl), teams: t.teams.map((x) => toTeam(x.team, x.units, null)) } : null,
  });
}

const EPOCH = '1970-01-01T00:00:00Z';

/** The ssh clone address as Gitea composes it from SSH_USER, SSH_DOMAIN and SSH_PORT: scp form on port 22, ssh:// URL otherwise. */
export function sshCloneUrl(full: string): string {
  const { sshUser, sshDomain, sshPort } = settings().server;
  return sshPort === 22 ? `${sshUser}@${sshDomain}:${full}.git` : `ssh://${sshUser}@${sshDomain}:${sshPort}/${full}.git`;
}

/** Convert a repository owned by `owner`. */
export function toRepository(r: RepositoryModel, owner: UserModel, viewer: Viewer | null, rootUrl: string, x: RepoExtras = {}): Repository {
  const full = `${owner.name}/${r.name}`;
  const units = new Set(x.units ?? []);
  const pulls = units.has(UnitType.PullRequests);
  // why: as Gitea, the merge settings read false (style merge) while pull requests are disabled.
  const pr: PullRequestsConfig | null = pulls ? (x.pulls ?? NEW_REPO_PULLS_CONFIG) : null;
  return {
    id: r.id,
    owner: toUser(owner, viewer, rootUrl),
    name: r.name,
    full_name: full,
    description: r.description,
    empty: r.isEmpty,
    private: r.isPrivate,
    fork: r.isFork,
    template: r.isTemplate,
    ...(x.parent ? { parent: x.parent } : {}),
    mirror: r.isMirror,
    // why: stored in bytes; Gitea's API reports KiB.
    size: Math.floor(Number(r.size) / 1024),
    language: '',
    languages_url: `${rootUrl}api/v1/repos/${full}/languages`,
    html_url: `${rootUrl}${full}`,
    url: `${rootUrl}api/v1/repos/${full}`,
    link: '',
    ssh_url: sshCloneUrl(full),
    clone_url: `${rootUrl}${full}.git`,
    original_url: r.originalUrl ? addressWithoutUserinfo(r.originalUrl) : '',
    website: r.website,
    stars_count: r.numStars,
    forks_count: r.numForks,
    watchers_count: r.numWatches,
    open_issues_count: x.open?.issues ?? 0,
    open_pr_counter: x.open?.pulls ?? 0,
    release_counter: 0,
    default_branch: r.defaultBranch,
    archived: r.isArchived,
    created_at: isoTime(r.createdAt),
    updated_at: isoTime(r.updatedAt),
    archived_at: r.archivedAt ? isoTime(r.archivedAt) : EPOCH,
    ...(x.permissions ? { permissions: x.permissions } : {}),
    has_code: units.has(UnitType.Code),
    has_issues: units.has(UnitType.Issues) || units.has(UnitType.ExternalTracker),
    ...(units.has(UnitType.Issues) && x.tracker
      ? { internal_tracker: {
        enable_time_tracker: x.tracker.EnableTimetracker, allow_only_contributors_to_track_time: x.tracker.AllowOnlyContributorsToTrackTime,
        enable_issue_dependencies: x.tracker.EnableDependencies,
      } }
      : {}),
    ...(!units.has(UnitType.Issues) && units.has(UnitType.ExternalTracker) && x.externalTracker
      ? { external_tracker: {
        external_tracker_url: x.externalTracker.ExternalTrackerURL, external_tracker_format: x.externalTracker.ExternalTrackerFormat,
        external_tracker_style: x.externalTracker.ExternalTrackerStyle, external_tracker_regexp_pattern: x.externalTracker.ExternalTrackerRegexpPattern,
      } }
      : {}),
    has_wiki: units.has(UnitType.Wiki),
    has_pull_requests: pulls,
    has_projects: units.has(UnitType.Projects),
    projects_mode: x.projectsMode ?? 'all',
    has_releases: units.has(UnitType.Releases),
    has_packages: units.has(UnitType.Packages),
    has_actions: units.has(UnitType.Actions),
    ignore_whitespace_conflicts: pr?.IgnoreWhitespaceConflicts ?? false,
    allow_merge_commits: pr?.AllowMerge ?? false,
    allow_rebase: pr?.AllowRebase ?? false,
    allow_rebase_explicit: pr?.AllowRebaseMerge ?? false,
    allow_squash_merge: pr?.AllowSquash ?? false,
    allow_fast_forward_only_merge: pr?.AllowFastForwardOnly ?? false,
    allow_rebase_update: pr?.AllowRebaseUpdate ?? false,
    allow_manual_merge: pr?.AllowManualMerge ?? false,
    autodetect_manual_merge: pr?.AutodetectManualMerge ?? false,
    default_delete_branch_after_merge: pr?.DefaultDeleteBranchAfterMerge ?? false,
    default_merge_style: pr?.DefaultMergeStyle ?? 'merge',
    default_allow_maintainer_edit: pr?.DefaultAllowMaintainerEdit ?? false,
    avatar_url: repoAvatarUrl(r, rootUrl),
    internal: !r.isPrivate && owner.visibility === Visibility.Private,
    mirror_interval: r.mirrorInterval,
    object_format_name: r.objectFormatName,
    mirror_updated: r.mirrorUpdatedUnix ? isoTime(new Date(Number(r.mirrorUpdatedUnix) * 1000)) : ZERO_TIME,
    repo_transfer: x.transfer ?? null,
    topics: [],
    licenses: x.licenses ?? [],
  };
}

/** A repository's avatar URL: its uploaded picture under `/repo-avatars/`, or '' (Gitea's fallback "none"). */
export function repoAvatarUrl(r: RepositoryModel, rootUrl: string): string {
  return r.avatar ? `${rootUrl}repo-avatars/${encodeURIComponent(r.avatar)}` : '';
}
