/** Branch protection rows -> API BranchProtection. */
import type { BranchProtection } from '../api/branch-protection';
import { isGlobRule, type ProtectedBranchModel } from '../models/protected-branch.model';
import { isoTime } from './time';

function contexts(json: string): string[] {
  try {
    const v: unknown = JSON.parse(json);
    return Array.isArray(v) ? v.filter((c): c is string => typeof c === 'string') : [];
  } catch {
    return [];
  }
}

/** The allow-lists of a rule as user and team names. */
export type AllowlistNames = Record<'push' | 'forcePush' | 'merge' | 'approvals', { users: string[]; teams: string[] }>;

/** A rule with its allow-lists resolved to names. */
export function toBranchProtection(r: ProtectedBranchModel, v: AllowlistNames): BranchProtection {
  return {
    branch_name: isGlobRule(r.ruleName) ? '' : r.ruleName,
    rule_name: r.ruleName,
    priority: r.priority,
    enable_push: r.canPush,
    enable_push_whitelist: r.enablePushAllowlist,
    push_whitelist_usernames: v.push.users,
    push_whitelist_teams: v.push.teams,
    push_whitelist_deploy_keys: r.pushAllowlistDeployKeys,
    enable_force_push: r.canForcePush,
    enable_force_push_allowlist: r.enableForcePushAllowlist,
    force_push_allowlist_usernames: v.forcePush.users,
    force_push_allowlist_teams: v.forcePush.teams,
    force_push_allowlist_deploy_keys: r.forcePushAllowlistDeployKeys,
    enable_merge_whitelist: r.enableMergeAllowlist,
    merge_whitelist_usernames: v.merge.users,
    merge_whitelist_teams: v.merge.teams,
    enable_status_check: r.enableStatusCheck,
    status_check_contexts: contexts(r.statusCheckContexts),
    required_approvals: r.requiredApprovals,
    enable_approvals_whitelist: r.enableApprovalsAllowlist,
    approvals_whitelist_username: v.approvals.users,
    approvals_whitelist_teams: v.approvals.teams,
    block_on_rejected_reviews: r.blockOnRejectedReviews,
    block_on_official_review_requests: r.blockOnOfficialReviewRequests,
    block_on_outdated_branch: r.blockOnOutdatedBranch,
    dismiss_stale_approvals: r.dismissStaleApprovals,
    ignore_stale_approvals: r.ignoreStaleApprovals,
    require_signed_commits: r.requireSignedCommits,
    protected_file_patterns: r.protectedFilePatterns,
    unprotected_file_patterns: r.unprotectedFilePatterns,
    block_admin_merge_override: r.blockAdminMergeOverride,
    created_at: isoTime(r.createdAt),
    updated_at: isoTime(r.updatedAt),
  };
}
