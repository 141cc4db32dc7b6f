/**
 * Commit statuses (Gitea's `commit_status`): what CI systems report for a commit, per context, with a
 * per-commit running index.
 */
import { DataTypes } from 'sequelize';
import type { MigrationParams } from './types';

const id = { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true, allowNull: false };
const int = (def?: number) => ({ type: DataTypes.INTEGER, allowNull: false, ...(def === undefined ? {} : { defaultValue: def }) });
const str = (n: number, def = '') => ({ type: DataTypes.STRING(n), allowNull: false, defaultValue: def });
const stamps = { created_at: { type: DataTypes.DATE, allowNull: false }, updated_at: { type: DataTypes.DATE, allowNull: false } };

/** Create commit_status. */
export async function up({ context: qi }: MigrationParams): Promise<void> {
  await qi.createTable('commit_status', {
    id, index: int(), repo_id: int(), state: str(16), sha: str(64), target_url: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
    description: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' }, context_hash: str(40), context: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
    creator_id: int(0), ...stamps,
  });
  // why: the index is unique per commit, so two statuses racing for the same number cannot both be stored.
  await qi.addIndex('commit_status', ['repo_id', 'sha', 'index'], { unique: true, name: 'UQE_commit_status_repo_sha_index' });
  await qi.addIndex('commit_status', ['repo_id', 'sha', 'context_hash'], { name: 'IDX_commit_status_context' });
}

/** Drop commit_status. */
export async function down({ context: qi }: MigrationParams): Promise<void> {
  await qi.dropTable('commit_status');
}
