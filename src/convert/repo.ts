/** repository rows -> API Repository. */
import type { Repository, RepoPermissions } from '../api/repo';
import type { RepositoryModel } from '../models/repository.model';
import { Visibility, type UserModel } from '../models/user.model';
import { UnitType } from '../models/perm';
import { toUser, type Viewer } from './user';
import { isoTime } from './time';
import { settings } from '../config';

/** What the converter needs besides the row: the owner, enabled units and the caller's permission. */
export interface RepoExtras { units?: UnitType[]; permissions?: RepoPermissions }

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
    mirror: r.isMirror,
    size: Number(r.size),
    language: '',
    languages_url: `${rootUrl}api/v1/repos/${full}/languages`,
    html_url: `${rootUrl}${full}`,
    url: `${rootUrl}api/v1/repos/${full}`,
    link: '',
    ssh_url: sshCloneUrl(full),
    clone_url: `${rootUrl}${full}.git`,
    original_url: '',
    website: r.website,
    stars_count: r.numStars,
    forks_count: r.numForks,
    watchers_count: r.numWatches,
    open_issues_count: 0,
    open_pr_counter: 0,
    release_counter: 0,
    default_branch: r.defaultBranch,
    archived: r.isArchived,
    created_at: isoTime(r.createdAt),
    updated_at: isoTime(r.updatedAt),
    archived_at: r.archivedAt ? isoTime(r.archivedAt) : EPOCH,
    ...(x.permissions ? { permissions: x.permissions } : {}),
    has_code: units.has(UnitType.Code),
    has_issues: units.has(UnitType.Issues),
    ...(units.has(UnitType.Issues)
      ? { internal_tracker: { enable_time_tracker: true, allow_only_contributors_to_track_time: true, enable_issue_dependencies: true } }
      : {}),
    has_wiki: units.has(UnitType.Wiki),
    has_pull_requests: pulls,
    has_projects: units.has(UnitType.Projects),
    projects_mode: 'all',
    has_releases: units.has(UnitType.Releases),
    has_packages: units.has(UnitType.Packages),
    has_actions: units.has(UnitType.Actions),
    // why: as Gitea, the merge settings read false when pull requests are disabled; defaults otherwise.
    ignore_whitespace_conflicts: false,
    allow_merge_commits: pulls,
    allow_rebase: pulls,
    allow_rebase_explicit: pulls,
    allow_squash_merge: pulls,
    allow_fast_forward_only_merge: pulls,
    allow_rebase_update: pulls,
    allow_manual_merge: false,
    autodetect_manual_merge: false,
    default_delete_branch_after_merge: false,
    default_merge_style: 'merge',
    default_allow_maintainer_edit: false,
    avatar_url: '',
    internal: !r.isPrivate && owner.visibility === Visibility.Private,
    mirror_interval: r.mirrorInterval,
    object_format_name: r.objectFormatName,
    mirror_updated: '0001-01-01T00:00:00Z',
    repo_transfer: null,
    topics: [],
    licenses: [],
  };
}
