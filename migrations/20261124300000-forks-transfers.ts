/**
 * Forks and transfers: Gitea's `repo_transfer` table (a pending ownership transfer waiting for the
 * recipient: who started it, who receives it, which teams of a receiving organization get the
 * repository) and an index on repository.fork_id for listing a repository's forks.
 */
import { DataTypes } from 'sequelize';
import type { MigrationParams } from './types';

const int = () => ({ type: DataTypes.INTEGER, allowNull: false });

/** Create repo_transfer and index repository.fork_id. */
export async function up({ context: qi }: MigrationParams): Promise<void> {
  await qi.createTable('repo_transfer', {
    id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true, allowNull: false },
    doer_id: int(), recipient_id: int(), repo_id: int(),
    // why: Gitea stores the team ids as a JSON list in a text column; so do we.
    team_ids: { type: DataTypes.TEXT, allowNull: false, defaultValue: '[]' },
    created_at: { type: DataTypes.DATE, allowNull: false }, updated_at: { type: DataTypes.DATE, allowNull: false },
  });
  // why: one pending transfer per repository; two racing transfers make the second insert fail (409), not two rows.
  await qi.addIndex('repo_transfer', ['repo_id'], { unique: true, name: 'UQE_repo_transfer_repo_id' });
  await qi.addIndex('repo_transfer', ['recipient_id'], { name: 'IDX_repo_transfer_recipient_id' });
  await qi.addIndex('repository', ['fork_id'], { name: 'IDX_repository_fork_id' });
}

/** Drop them again. */
export async function down({ context: qi }: MigrationParams): Promise<void> {
  await qi.removeIndex('repository', 'IDX_repository_fork_id');
  await qi.dropTable('repo_transfer');
}
