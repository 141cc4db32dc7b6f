/**
 * The words pages show for the forge's internal names (units, merge styles, access modes), so an
 * option never reads as a key such as `rebase-merge` or `has_pull_requests`.
 */

/** Merge styles as Gitea's merge box and settings name them. */
export const MERGE_STYLE_NAMES: Record<string, string> = {
  merge: 'Create merge commit', rebase: 'Rebase then fast-forward', 'rebase-merge': 'Rebase then create merge commit',
  squash: 'Create squash commit', 'fast-forward-only': 'Fast-forward only', 'manually-merged': 'Mark as manually merged',
};

/** A repository's units by the `has_*` field that turns them on. */
export const UNIT_NAMES: Record<string, string> = {
  has_issues: 'Issues', has_pull_requests: 'Pull requests', has_wiki: 'Wiki', has_releases: 'Releases',
  has_projects: 'Projects', has_packages: 'Packages', has_actions: 'Actions',
};

/** The branch protection rule's fields as Gitea's settings page words them. */
export const RULE_FIELD_NAMES: Record<string, string> = {
  enable_push: 'Allow pushes', enable_push_whitelist: 'Allow pushes only from the listed users and teams', push_whitelist_deploy_keys: 'Deploy keys with write access may push',
  enable_force_push: 'Allow force pushes', enable_force_push_allowlist: 'Allow force pushes only from the listed users and teams', force_push_allowlist_deploy_keys: 'Deploy keys may force push',
  enable_merge_whitelist: 'Allow merges only from the listed users and teams', enable_status_check: 'Require status checks to pass', enable_approvals_whitelist: 'Count approvals only from the listed users and teams',
  block_on_rejected_reviews: 'Block the merge while changes are requested', block_on_official_review_requests: 'Block the merge while official reviews are requested',
  block_on_outdated_branch: 'Block the merge while the branch is behind its base', dismiss_stale_approvals: 'Dismiss approvals when new commits are pushed',
  ignore_stale_approvals: 'Do not count approvals made before the latest commits', require_signed_commits: 'Require signed commits', block_admin_merge_override: 'Administrators follow the rule too',
  push_whitelist_usernames: 'Users who may push', push_whitelist_teams: 'Teams who may push', force_push_allowlist_usernames: 'Users who may force push',
  force_push_allowlist_teams: 'Teams who may force push', merge_whitelist_usernames: 'Users who may merge', merge_whitelist_teams: 'Teams who may merge',
  status_check_contexts: 'Required status checks', approvals_whitelist_username: 'Users whose approvals count', approvals_whitelist_teams: 'Teams whose approvals count',
  protected_file_patterns: 'Protected files', unprotected_file_patterns: 'Files anyone with write access may change',
};

/** The projects unit's modes with Gitea's meaning, as the settings form offers them. */
export const PROJECTS_MODE_NAMES: [string, string][] = [
  ['all', 'Repository and owner projects'], ['repo', 'Repository projects only'], ['owner', 'Owner projects only'], ['none', 'None'],
];

/** Access modes as the collaborator form offers them. */
export const ACCESS_NAMES: Record<string, string> = { read: 'Read', write: 'Write', admin: 'Administrator' };

/** What a timeline entry without its own wording says (Gitea's words for its comment types). */
export const EVENT_TEXT: Record<string, string> = {
  add_time_manual: 'added spent time', cancel_tracking: 'cancelled time tracking', added_deadline: 'set a due date', modified_deadline: 'changed the due date',
  removed_deadline: 'removed the due date', add_dependency: 'added a dependency', remove_dependency: 'removed a dependency', lock: 'locked the conversation',
  unlock: 'unlocked the conversation', delete_branch: 'deleted the branch', change_target_branch: 'changed the target branch', project: 'changed the project', project_board: 'moved this to another column',
  delete_time_manual: 'removed spent time', review_request: 'requested a review', pull_push: 'pushed commits', dismiss_review: 'dismissed a review',
  change_issue_ref: 'changed the branch', pull_scheduled_merge: 'scheduled the merge', pull_cancel_scheduled_merge: 'cancelled the scheduled merge',
  merge_pull: 'merged this pull request', commit_ref: 'referenced this from a commit', issue_ref: 'referenced this', pull_ref: 'referenced this',
  comment_ref: 'referenced this', change_time_estimate: 'changed the time estimate', code: 'commented on the code', review: 'reviewed',
};

/** A timeline entry's words by its type; an unknown type reads as its name in plain words. */
export function eventText(type: string): string {
  return EVENT_TEXT[type] ?? type.replace(/_/g, ' ');
}
