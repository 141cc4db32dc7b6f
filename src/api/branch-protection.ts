/** Gitea's branch protection shapes: BranchProtection and its create, edit and priority options. */

/** A branch protection rule. `branch_name` is the rule name when it is a plain name, else "". */
export interface BranchProtection {
  /** @deprecated use rule_name */
  branch_name: string;
  rule_name: string;
  priority: number;
  enable_push: boolean;
  enable_push_whitelist: boolean;
  push_whitelist_usernames: string[];
  push_whitelist_teams: string[];
  push_whitelist_deploy_keys: boolean;
  enable_force_push: boolean;
  enable_force_push_allowlist: boolean;
  force_push_allowlist_usernames: string[];
  force_push_allowlist_teams: string[];
  force_push_allowlist_deploy_keys: boolean;
  enable_merge_whitelist: boolean;
  merge_whitelist_usernames: string[];
  merge_whitelist_teams: string[];
  enable_status_check: boolean;
  status_check_contexts: string[];
  required_approvals: number;
  enable_approvals_whitelist: boolean;
  approvals_whitelist_username: string[];
  approvals_whitelist_teams: string[];
  block_on_rejected_reviews: boolean;
  block_on_official_review_requests: boolean;
  block_on_outdated_branch: boolean;
  dismiss_stale_approvals: boolean;
  ignore_stale_approvals: boolean;
  require_signed_commits: boolean;
  protected_file_patterns: string;
  unprotected_file_patterns: string;
  block_admin_merge_override: boolean;
  created_at: string;
  updated_at: string;
}

/** The settable fields of a rule, shared by create and edit. */
interface BranchProtectionFields {
  priority?: number;
  enable_push?: boolean;
  enable_push_whitelist?: boolean;
  push_whitelist_usernames?: string[];
  push_whitelist_teams?: string[];
  push_whitelist_deploy_keys?: boolean;
  enable_force_push?: boolean;
  enable_force_push_allowlist?: boolean;
  force_push_allowlist_usernames?: string[];
  force_push_allowlist_teams?: string[];
  force_push_allowlist_deploy_keys?: boolean;
  enable_merge_whitelist?: boolean;
  merge_whitelist_usernames?: string[];
  merge_whitelist_teams?: string[];
  enable_status_check?: boolean;
  status_check_contexts?: string[];
  required_approvals?: number;
  enable_approvals_whitelist?: boolean;
  approvals_whitelist_username?: string[];
  approvals_whitelist_teams?: string[];
  block_on_rejected_reviews?: boolean;
  block_on_official_review_requests?: boolean;
  block_on_outdated_branch?: boolean;
  dismiss_stale_approvals?: boolean;
  ignore_stale_approvals?: boolean;
  require_signed_commits?: boolean;
  protected_file_patterns?: string;
  unprotected_file_patterns?: string;
  block_admin_merge_override?: boolean;
}

/** Body of POST /repos/{owner}/{repo}/branch_protections; `rule_name` falls back to `branch_name`. */
export interface CreateBranchProtectionOption extends BranchProtectionFields {
  /** @deprecated use rule_name */
  branch_name?: string;
  rule_name?: string;
}

/** Body of PATCH /repos/{owner}/{repo}/branch_protections/{name}; omitted fields keep their value (a rule is not renamed). */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface EditBranchProtectionOption extends BranchProtectionFields {}

/** Body of POST /repos/{owner}/{repo}/branch_protections/priority: rule ids, first = priority 1. */
export interface UpdateBranchProtectionPriories {
  ids: number[];
}
