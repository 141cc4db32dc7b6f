/**
 * Pull requests (Gitea's `pull_request`): one row beside the issue a pull request is, naming its
 * head and base, its last mergeability check and, once merged, the merge.
 */
import { DataTypes } from 'sequelize';
import type { MigrationParams } from './types';

const int = { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 };
const bigint = { type: DataTypes.BIGINT, allowNull: false, defaultValue: 0 };
const text = { type: DataTypes.TEXT, allowNull: false, defaultValue: '' };

/** Create pull_request. */
export async function up({ context: qi }: MigrationParams): Promise<void> {
  await qi.createTable('pull_request', {
    id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true, allowNull: false },
    issue_id: { type: DataTypes.INTEGER, allowNull: false },
    index: bigint,
    flow: int,
    status: int,
    conflicted_files: { type: DataTypes.TEXT, allowNull: false, defaultValue: '[]' },
    commits_ahead: int,
    commits_behind: int,
    head_repo_id: int,
    base_repo_id: int,
    head_branch: text,
    base_branch: text,
    merge_base: { type: DataTypes.STRING(64), allowNull: false, defaultValue: '' },
    allow_maintainer_edit: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
    has_merged: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
    merged_commit_id: { type: DataTypes.STRING(64), allowNull: false, defaultValue: '' },
    merger_id: int,
    merged_unix: bigint,
  });
  await qi.addIndex('pull_request', ['issue_id'], { unique: true, name: 'UQE_pull_request_issue_id' });
  // why: a push asks which open pull requests have the pushed branch as base or as head.
  await qi.addIndex('pull_request', ['base_repo_id', 'base_branch'], { name: 'IDX_pull_request_base' });
  await qi.addIndex('pull_request', ['head_repo_id', 'head_branch'], { name: 'IDX_pull_request_head' });
  await qi.addIndex('pull_request', ['base_repo_id', 'merged_commit_id'], { name: 'IDX_pull_request_merged_commit' });
}

/** Drop it. */
export async function down({ context: qi }: MigrationParams): Promise<void> {
  await qi.dropTable('pull_request');
}
