/**
 * Tag protection rules (Gitea's `protected_tag`: a glob or `/regex/` name pattern with the users
 * and teams allowed to create, move and delete matching tags) and uploaded files (Gitea's
 * `attachment`; release assets for now, issues and comments later share the table).
 */
import { DataTypes } from 'sequelize';
import type { MigrationParams } from './types';

const id = { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true, allowNull: false };
const int = (def?: number) => ({ type: DataTypes.INTEGER, allowNull: false, ...(def === undefined ? {} : { defaultValue: def }) });
const stamps = { created_at: { type: DataTypes.DATE, allowNull: false }, updated_at: { type: DataTypes.DATE, allowNull: false } };

/** Create protected_tag and attachment. */
export async function up({ context: qi }: MigrationParams): Promise<void> {
  await qi.createTable('protected_tag', {
    id, repo_id: int(), name_pattern: { type: DataTypes.STRING(255), allowNull: false },
    // why: JSON arrays of ids in a TEXT column, as Gitea stores them (xorm "JSON TEXT").
    allowlist_user_ids: { type: DataTypes.TEXT, allowNull: false, defaultValue: '[]' },
    allowlist_team_ids: { type: DataTypes.TEXT, allowNull: false, defaultValue: '[]' },
    ...stamps,
  });
  // why: Gitea answers a second rule with the same pattern with 403; the index makes a racing duplicate fail too.
  await qi.addIndex('protected_tag', ['repo_id', 'name_pattern'], { unique: true, name: 'UQE_protected_tag_pattern' });

  await qi.createTable('attachment', {
    id, uuid: { type: DataTypes.STRING(40), allowNull: false }, repo_id: int(0), issue_id: int(0), release_id: int(0),
    comment_id: int(0), uploader_id: int(0), name: { type: DataTypes.STRING(255), allowNull: false },
    download_count: int(0), size: { type: DataTypes.BIGINT, allowNull: false, defaultValue: 0 }, ...stamps,
  });
  await qi.addIndex('attachment', ['uuid'], { unique: true, name: 'UQE_attachment_uuid' });
  await qi.addIndex('attachment', ['repo_id'], { name: 'IDX_attachment_repo_id' });
  await qi.addIndex('attachment', ['release_id'], { name: 'IDX_attachment_release_id' });
}

/** Drop both tables. */
export async function down({ context: qi }: MigrationParams): Promise<void> {
  await qi.dropTable('attachment');
  await qi.dropTable('protected_tag');
}
