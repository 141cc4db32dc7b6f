/**
 * Branch protection rules (Gitea's `protected_branch`): a branch name or glob, who may push,
 * force-push and merge to matching branches, and what a merge needs.
 */
import { DataTypes } from 'sequelize';
import type { MigrationParams } from './types';

const flag = { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false };
// why: JSON arrays of ids (or status contexts) in a TEXT column, as protected_tag stores them.
const list = { type: DataTypes.TEXT, allowNull: false, defaultValue: '[]' };
const int = { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 };

/** Create protected_branch. */
export async function up({ context: qi }: MigrationParams): Promise<void> {
  await qi.createTable('protected_branch', {
    id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true, allowNull: false },
    repo_id: { type: DataTypes.INTEGER, allowNull: false },
    rule_name: { type: DataTypes.STRING(255), allowNull: false },
    priority: int,
    can_push: flag, enable_push_allowlist: flag, push_allowlist_user_ids: list, push_allowlist_team_ids: list, push_allowlist_deploy_keys: flag,
    can_force_push: flag, enable_force_push_allowlist: flag, force_push_allowlist_user_ids: list, force_push_allowlist_team_ids: list,
    force_push_allowlist_deploy_keys: flag,
    enable_merge_allowlist: flag, merge_allowlist_user_ids: list, merge_allowlist_team_ids: list,
    enable_status_check: flag, status_check_contexts: list,
    required_approvals: int, enable_approvals_allowlist: flag, approvals_allowlist_user_ids: list, approvals_allowlist_team_ids: list,
    block_on_rejected_reviews: flag, block_on_official_review_requests: flag, block_on_outdated_branch: flag,
    dismiss_stale_approvals: flag, ignore_stale_approvals: flag, require_signed_commits: flag,
    protected_file_patterns: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
    unprotected_file_patterns: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
    block_admin_merge_override: flag,
    created_at: { type: DataTypes.DATE, allowNull: false },
    updated_at: { type: DataTypes.DATE, allowNull: false },
  });
  // why: Gitea answers a second rule of the same name with 403; the index makes a racing duplicate fail too.
  await qi.addIndex('protected_branch', ['repo_id', 'rule_name'], { unique: true, name: 'UQE_protected_branch_rule' });
}

/** Drop it. */
export async function down({ context: qi }: MigrationParams): Promise<void> {
  await qi.dropTable('protected_branch');
}
