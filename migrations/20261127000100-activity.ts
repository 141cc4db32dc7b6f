/**
 * Activity (Gitea's `action`, one row per event rather than one per receiver: feeds are chosen
 * when they are read) and notifications (Gitea's `notification`, one thread per user and issue).
 */
import { DataTypes } from 'sequelize';
import type { MigrationParams } from './types';

const int = { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 };
const bigint = { type: DataTypes.BIGINT, allowNull: false, defaultValue: 0 };
const flag = { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false };
const text = { type: DataTypes.TEXT, allowNull: false, defaultValue: '' };

/** Create action and notification. */
export async function up({ context: qi }: MigrationParams): Promise<void> {
  await qi.createTable('action', {
    id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true, allowNull: false },
    op_type: int,
    act_user_id: int,
    repo_id: int,
    comment_id: int,
    is_deleted: flag,
    ref_name: text,
    is_private: flag,
    content: text,
    created_unix: bigint,
  });
  // why: a repository's feed, an organization's (its repositories), a user's (its own acts and its
  // watched repositories) each read one of these ranges newest first.
  await qi.addIndex('action', ['repo_id', 'created_unix'], { name: 'IDX_action_repo_created' });
  await qi.addIndex('action', ['act_user_id', 'created_unix'], { name: 'IDX_action_act_user_created' });
  await qi.addIndex('action', ['comment_id'], { name: 'IDX_action_comment_id' });

  await qi.createTable('notification', {
    id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true, allowNull: false },
    user_id: int,
    repo_id: int,
    status: { type: DataTypes.SMALLINT, allowNull: false, defaultValue: 1 },
    source: { type: DataTypes.SMALLINT, allowNull: false, defaultValue: 1 },
    issue_id: int,
    commit_id: { type: DataTypes.STRING(64), allowNull: false, defaultValue: '' },
    comment_id: int,
    updated_by: int,
    created_unix: bigint,
    updated_unix: bigint,
  });
  // why: a user's list is filtered by status and sorted by update time.
  await qi.addIndex('notification', ['user_id', 'status', 'updated_unix'], { name: 'IDX_notification_u_s_uu' });
  // why: one thread per user and issue; concurrent events on one issue upsert it instead of racing.
  await qi.sequelize.query('CREATE UNIQUE INDEX "UQE_notification_user_issue" ON notification (user_id, issue_id) WHERE issue_id > 0');
  await qi.addIndex('notification', ['issue_id'], { name: 'IDX_notification_issue_id' });
  await qi.addIndex('notification', ['repo_id'], { name: 'IDX_notification_repo_id' });
}

/** Drop them. */
export async function down({ context: qi }: MigrationParams): Promise<void> {
  await qi.dropTable('notification');
  await qi.dropTable('action');
}
