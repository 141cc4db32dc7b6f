/**
 * Gitea Actions' runners, their registration tokens, workflow runs, their jobs, the tasks that run
 * a job's attempt on a runner, the steps and outputs of a task, and the per-repository run
 * numbers. Times are unix seconds, as Gitea keeps them. why: ids are INTEGER (Gitea's are BIGINT)
 * because PostgreSQL hands BIGINT over as strings; two billion rows of each are far off.
 */
import { DataTypes } from 'sequelize';
import type { MigrationParams } from './types';

const int = { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 };
const bigint = { type: DataTypes.BIGINT, allowNull: false, defaultValue: 0 };
const text = { type: DataTypes.TEXT, allowNull: false, defaultValue: '' };
const str = (n: number) => ({ type: DataTypes.STRING(n), allowNull: false, defaultValue: '' });
const bool = { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false };
const id = { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true, allowNull: false };
const times = { created: bigint, updated: bigint };

/** Create the actions tables. */
export async function up({ context: qi }: MigrationParams): Promise<void> {
  await qi.createTable('action_runner', {
    id, uuid: str(36), name: str(255), version: str(64), owner_id: int, repo_id: int, description: text,
    token_hash: str(64), token_last_eight: str(8), agent_labels: text, ephemeral: bool, last_online: bigint, last_active: bigint, ...times,
  });
  await qi.addIndex('action_runner', ['uuid'], { unique: true, name: 'UQE_action_runner_uuid' });
  await qi.addIndex('action_runner', ['owner_id', 'repo_id'], { name: 'IDX_action_runner_scope' });

  await qi.createTable('action_runner_token', { id, token: str(64), owner_id: int, repo_id: int, is_active: bool, ...times });
  await qi.addIndex('action_runner_token', ['token'], { unique: true, name: 'UQE_action_runner_token_token' });
  await qi.addIndex('action_runner_token', ['owner_id', 'repo_id'], { name: 'IDX_action_runner_token_scope' });

  await qi.createTable('action_run', {
    id, title: text, repo_id: int, owner_id: int, workflow_id: str(255), index: int, trigger_user_id: int, schedule_id: int,
    ref: str(255), commit_sha: str(64), is_fork_pull_request: bool, need_approval: bool, approved_by: int,
    event: str(64), event_payload: text, trigger_event: str(64), status: int, version: int, started: bigint, stopped: bigint,
    previous_duration: bigint, ...times,
  });
  await qi.addIndex('action_run', ['repo_id', 'index'], { unique: true, name: 'UQE_action_run_repo_index' });
  await qi.addIndex('action_run', ['repo_id', 'workflow_id', 'ref', 'event'], { name: 'IDX_action_run_workflow' });
  await qi.addIndex('action_run', ['status'], { name: 'IDX_action_run_status' });

  await qi.createTable('action_run_job', {
    id, run_id: int, repo_id: int, owner_id: int, commit_sha: str(64), is_fork_pull_request: bool, name: str(255), attempt: int,
    workflow_payload: text, job_id: str(255), needs: text, runs_on: text, has_if: bool, task_id: int, status: int,
    started: bigint, stopped: bigint, ...times,
  });
  await qi.addIndex('action_run_job', ['run_id'], { name: 'IDX_action_run_job_run_id' });
  // why: the dispatcher's one query per round: jobs waiting for a runner, oldest first.
  await qi.addIndex('action_run_job', ['status', 'task_id', 'updated', 'id'], { name: 'IDX_action_run_job_pick' });
  await qi.addIndex('action_run_job', ['repo_id', 'status'], { name: 'IDX_action_run_job_repo_status' });

  await qi.createTable('action_task', {
    id, job_id: int, attempt: int, runner_id: int, status: int, started: bigint, stopped: bigint, repo_id: int, owner_id: int,
    commit_sha: str(64), is_fork_pull_request: bool, token_hash: str(64), token_last_eight: str(8),
    log_filename: str(255), log_in_storage: bool, log_length: bigint, log_size: bigint, log_expired: bool, ...times,
  });
  await qi.addIndex('action_task', ['job_id'], { name: 'IDX_action_task_job_id' });
  await qi.addIndex('action_task', ['runner_id', 'status'], { name: 'IDX_action_task_runner_status' });
  await qi.addIndex('action_task', ['token_last_eight'], { name: 'IDX_action_task_token_last_eight' });
  await qi.addIndex('action_task', ['status', 'updated'], { name: 'IDX_action_task_status_updated' });

  await qi.createTable('action_task_step', {
    id, name: str(255), task_id: int, index: int, repo_id: int, status: int, log_index: int, log_length: bigint,
    started: bigint, stopped: bigint, ...times,
  });
  await qi.addIndex('action_task_step', ['task_id', 'index'], { unique: true, name: 'UQE_action_task_step_task_index' });

  await qi.createTable('action_task_output', { id, task_id: int, output_key: str(255), output_value: text });
  await qi.addIndex('action_task_output', ['task_id', 'output_key'], { unique: true, name: 'UQE_action_task_output_key' });

  await qi.createTable('action_run_index', { group_id: { type: DataTypes.INTEGER, primaryKey: true, allowNull: false }, max_index: int });
}

/** Drop them. */
export async function down({ context: qi }: MigrationParams): Promise<void> {
  for (const t of ['action_run_index', 'action_task_output', 'action_task_step', 'action_task', 'action_run_job', 'action_run', 'action_runner_token', 'action_runner']) {
    await qi.dropTable(t);
  }
}
