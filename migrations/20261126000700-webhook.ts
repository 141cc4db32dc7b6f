/**
 * Webhooks (Gitea's `webhook`) and their deliveries (Gitea's `hook_task`, plus what a durable,
 * retried delivery needs: status, attempts, the next attempt's time; the hook carries the lease).
 */
import { DataTypes } from 'sequelize';
import type { MigrationParams } from './types';

const int = { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 };
const bigint = { type: DataTypes.BIGINT, allowNull: false, defaultValue: 0 };
const flag = { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false };
const text = { type: DataTypes.TEXT, allowNull: false, defaultValue: '' };

/** Create webhook and hook_task. */
export async function up({ context: qi }: MigrationParams): Promise<void> {
  await qi.createTable('webhook', {
    id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true, allowNull: false },
    repo_id: int,
    owner_id: int,
    is_system_webhook: flag,
    url: text,
    http_method: { type: DataTypes.STRING(8), allowNull: false, defaultValue: 'POST' },
    content_type: int,
    secret: text,
    events: text,
    is_active: flag,
    type: { type: DataTypes.STRING(16), allowNull: false, defaultValue: 'gitea' },
    meta: text,
    last_status: int,
    header_authorization_encrypted: text,
    // why: a hook's deliveries go out one at a time, in event order, from the one worker that leases the hook.
    delivery_leased_by: { type: DataTypes.STRING(128), allowNull: false, defaultValue: '' },
    delivery_lease_until: bigint,
    // why: after a failed delivery the hook waits until its retry is due (later deliveries wait behind it).
    next_delivery_ms: bigint,
    created_unix: bigint,
    updated_unix: bigint,
  });
  // why: an event asks for the hooks of its repository, of the repository's owner, and the system's.
  await qi.addIndex('webhook', ['repo_id'], { name: 'IDX_webhook_repo_id' });
  await qi.addIndex('webhook', ['owner_id'], { name: 'IDX_webhook_owner_id' });
  await qi.addIndex('webhook', ['is_system_webhook'], { name: 'IDX_webhook_is_system_webhook' });

  await qi.createTable('hook_task', {
    id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true, allowNull: false },
    hook_id: int,
    uuid: { type: DataTypes.STRING(36), allowNull: false },
    payload_content: text,
    payload_version: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 2 },
    event_type: { type: DataTypes.STRING(64), allowNull: false, defaultValue: '' },
    is_delivered: flag,
    delivered: bigint,
    request_content: text,
    response_content: text,
    is_succeed: flag,
    status: { type: DataTypes.STRING(16), allowNull: false, defaultValue: 'pending' },
    attempts: int,
    next_attempt_ms: bigint,
    created_unix: bigint,
  });
  await qi.addIndex('hook_task', ['uuid'], { unique: true, name: 'UQE_hook_task_uuid' });
  // why: a hook's deliveries go out in event order (the oldest waiting one first), and its history is listed newest first.
  await qi.addIndex('hook_task', ['hook_id', 'status', 'id'], { name: 'IDX_hook_task_hook_status' });
  // why: pruning goes by age.
  await qi.addIndex('hook_task', ['created_unix'], { name: 'IDX_hook_task_created_unix' });
}

/** Drop them. */
export async function down({ context: qi }: MigrationParams): Promise<void> {
  await qi.dropTable('hook_task');
  await qi.dropTable('webhook');
}
