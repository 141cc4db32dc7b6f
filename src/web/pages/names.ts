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
