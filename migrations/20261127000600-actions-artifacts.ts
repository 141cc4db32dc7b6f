/**
 * Artifacts of workflow runs (Gitea's `action_artifact`): one row per artifact a job uploads
 * through the v4 protocol, its zip kept under APP_DATA_PATH/actions_artifacts until it expires or
 * is deleted. Times are unix seconds. Also an index for the log retention sweep, which looks for
 * finished tasks whose logs are older than LOG_RETENTION_DAYS.
 */
import { DataTypes } from 'sequelize';
import type { MigrationParams } from './types';

const int = { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 };
const bigint = { type: DataTypes.BIGINT, allowNull: false, defaultValue: 0 };
const str = (n: number) => ({ type: DataTypes.STRING(n), allowNull: false, defaultValue: '' });

/** Create action_artifact; index action_task for the log sweep. */
export async function up({ context: qi }: MigrationParams): Promise<void> {
  await qi.createTable('action_artifact', {
    id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true, allowNull: false },
    run_id: int, runner_id: int, repo_id: int, owner_id: int, commit_sha: str(64), storage_path: str(255),
    file_size: bigint, file_compressed_size: bigint, content_encoding: str(64), artifact_path: str(255), artifact_name: str(255),
    status: int, created: bigint, updated: bigint, expired: bigint,
  });
  await qi.addIndex('action_artifact', ['run_id', 'artifact_name', 'artifact_path'], { unique: true, name: 'UQE_action_artifact_runid_name_path' });
  await qi.addIndex('action_artifact', ['repo_id', 'artifact_name'], { name: 'IDX_action_artifact_repo_name' });
  // why: the cleanup looks for confirmed artifacts past their expiry and for those marked for deletion.
  await qi.addIndex('action_artifact', ['status', 'expired'], { name: 'IDX_action_artifact_status_expired' });
  await qi.addIndex('action_task', ['log_expired', 'stopped'], { name: 'IDX_action_task_log_expired_stopped' });
}

/** Drop them. */
export async function down({ context: qi }: MigrationParams): Promise<void> {
  await qi.removeIndex('action_task', 'IDX_action_task_log_expired_stopped');
  await qi.dropTable('action_artifact');
}
