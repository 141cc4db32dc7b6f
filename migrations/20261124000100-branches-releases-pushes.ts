/**
 * What push processing keeps: the branch table (Gitea's `branch`: the last known commit of each
 * branch, deleted branches kept with who deleted them), tags as tag-only rows of Gitea's `release`
 * table, and one `push_event` row per observed ref change for webhooks and actions.
 */
import { DataTypes } from 'sequelize';
import type { MigrationParams } from './types';

const id = { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true, allowNull: false };
const int = (def?: number) => ({ type: DataTypes.INTEGER, allowNull: false, ...(def === undefined ? {} : { defaultValue: def }) });
const str = (n: number, def = '') => ({ type: DataTypes.STRING(n), allowNull: false, defaultValue: def });
const bool = { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false };
const date = { type: DataTypes.DATE, allowNull: true };
const stamps = { created_at: { type: DataTypes.DATE, allowNull: false }, updated_at: { type: DataTypes.DATE, allowNull: false } };

/** Create branch, release and push_event. */
export async function up({ context: qi }: MigrationParams): Promise<void> {
  await qi.createTable('branch', {
    id, repo_id: int(), name: str(255), commit_id: str(64), commit_message: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
    pusher_id: int(0), is_deleted: bool, deleted_by_id: int(0), deleted_at: date, commit_time: date, ...stamps,
  });
  await qi.addIndex('branch', ['repo_id', 'name'], { unique: true, name: 'UQE_branch_s' });
  await qi.createTable('release', {
    id, repo_id: int(), publisher_id: int(0), tag_name: str(255), lower_tag_name: str(255), target: str(255),
    title: str(255), sha1: str(64), num_commits: int(0), note: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
    is_draft: bool, is_prerelease: bool, is_tag: bool, ...stamps,
  });
  await qi.addIndex('release', ['repo_id', 'tag_name'], { unique: true, name: 'UQE_release_n' });
  await qi.createTable('push_event', {
    id, repo_id: int(), pusher_id: int(0), ref_name: str(512), old_commit_id: str(64), new_commit_id: str(64),
    transport: str(16), ...stamps,
  });
  await qi.addIndex('push_event', ['repo_id', 'id'], { name: 'IDX_push_event_repo' });
}

/** Drop the three tables. */
export async function down({ context: qi }: MigrationParams): Promise<void> {
  for (const t of ['push_event', 'release', 'branch']) await qi.dropTable(t);
}
