/**
 * The schedules of workflows (`on.schedule` crons) read from the default branch of each
 * repository: one row per workflow and cron, with the next time it fires (unix seconds).
 */
import { DataTypes } from 'sequelize';
import type { MigrationParams } from './types';

const int = { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 };
const bigint = { type: DataTypes.BIGINT, allowNull: false, defaultValue: 0 };
const str = (n: number) => ({ type: DataTypes.STRING(n), allowNull: false, defaultValue: '' });

/** Create action_schedule. */
export async function up({ context: qi }: MigrationParams): Promise<void> {
  await qi.createTable('action_schedule', {
    id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true, allowNull: false },
    repo_id: int, owner_id: int, workflow_id: str(255), spec: str(255), ref: str(255), commit_sha: str(64), trigger_user_id: int,
    next: bigint, created: bigint,
  });
  await qi.addIndex('action_schedule', ['next'], { name: 'IDX_action_schedule_next' });
  await qi.addIndex('action_schedule', ['repo_id'], { name: 'IDX_action_schedule_repo_id' });
}

/** Drop it. */
export async function down({ context: qi }: MigrationParams): Promise<void> {
  await qi.dropTable('action_schedule');
}
