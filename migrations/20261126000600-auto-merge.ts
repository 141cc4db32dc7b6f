/**
 * Scheduled merges (Gitea's `pull_auto_merge`): a pull request to merge, in the given style and
 * with the given message, as soon as its checks succeed and its branch protection lets it.
 */
import { DataTypes } from 'sequelize';
import type { MigrationParams } from './types';

/** Create pull_auto_merge. */
export async function up({ context: qi }: MigrationParams): Promise<void> {
  await qi.createTable('pull_auto_merge', {
    id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true, allowNull: false },
    pull_id: { type: DataTypes.INTEGER, allowNull: false },
    doer_id: { type: DataTypes.INTEGER, allowNull: false },
    merge_style: { type: DataTypes.STRING(30), allowNull: false },
    message: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
    delete_branch_after_merge: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
    created_unix: { type: DataTypes.BIGINT, allowNull: false, defaultValue: 0 },
  });
  // why: one schedule per pull request, and the unique index is what refuses a second one.
  await qi.addIndex('pull_auto_merge', ['pull_id'], { unique: true, name: 'UQE_pull_auto_merge_pull_id' });
}

/** Drop it. */
export async function down({ context: qi }: MigrationParams): Promise<void> {
  await qi.dropTable('pull_auto_merge');
}
