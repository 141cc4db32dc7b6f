/**
 * A task's token (GITEA_TOKEN) authenticates API and git calls while the task runs: its hash is
 * looked up on such calls, so it gets a unique index.
 */
import type { MigrationParams } from './types';

/** Index action_task.token_hash. */
export async function up({ context: qi }: MigrationParams): Promise<void> {
  await qi.addIndex('action_task', ['token_hash'], { unique: true, name: 'UQE_action_task_token_hash' });
}

/** Drop the index. */
export async function down({ context: qi }: MigrationParams): Promise<void> {
  await qi.removeIndex('action_task', 'UQE_action_task_token_hash');
}
