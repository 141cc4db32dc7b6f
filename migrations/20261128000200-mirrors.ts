/**
 * Pull and push mirrors and migrated repositories. `mirror` holds a pull mirror's source (the
 * address without userinfo; its credentials sealed with the instance secret), its schedule and its
 * failures; `push_mirror` a push mirror's target and last result. The repository row gains where it
 * came from (original_url, original_service_type), whether it is still being migrated (status,
 * Gitea's values: 0 ready, 1 being migrated) and when its mirror last synced. Times are unix seconds.
 */
import { DataTypes } from 'sequelize';
import type { MigrationParams } from './types';

const int = { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 };
const bigint = { type: DataTypes.BIGINT, allowNull: false, defaultValue: 0 };
const bool = (v: boolean) => ({ type: DataTypes.BOOLEAN, allowNull: false, defaultValue: v });
const str = (n: number) => ({ type: DataTypes.STRING(n), allowNull: false, defaultValue: '' });
const text = { type: DataTypes.TEXT, allowNull: false, defaultValue: '' };

/** Create mirror and push_mirror; add the repository's origin columns. */
export async function up({ context: qi }: MigrationParams): Promise<void> {
  await qi.addColumn('repository', 'original_url', str(2048));
  await qi.addColumn('repository', 'original_service_type', int);
  await qi.addColumn('repository', 'status', int);
  await qi.addColumn('repository', 'mirror_updated_unix', bigint);
  await qi.createTable('mirror', {
    id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true, allowNull: false },
    repo_id: int, remote_address: str(2048), credentials: text, lfs_enabled: bool(false), lfs_endpoint: str(2048),
    next_update_unix: bigint, failures: int, last_error: text,
  });
  await qi.addIndex('mirror', ['repo_id'], { unique: true, name: 'UQE_mirror_repo_id' });
  // why: the schedule looks for due mirrors (0 = not scheduled) oldest first.
  await qi.addIndex('mirror', ['next_update_unix'], { name: 'IDX_mirror_next_update_unix' });
  await qi.createTable('push_mirror', {
    id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true, allowNull: false },
    repo_id: int, remote_name: str(64), remote_address: str(2048), credentials: text, sync_on_commit: bool(true),
    interval: bigint, created_unix: bigint, last_update_unix: bigint, next_update_unix: bigint, last_error: text,
  });
  await qi.addIndex('push_mirror', ['repo_id', 'remote_name'], { unique: true, name: 'UQE_push_mirror_repo_remote' });
  await qi.addIndex('push_mirror', ['next_update_unix'], { name: 'IDX_push_mirror_next_update_unix' });
}

/** Drop them. */
export async function down({ context: qi }: MigrationParams): Promise<void> {
  await qi.dropTable('push_mirror');
  await qi.dropTable('mirror');
  for (const c of ['mirror_updated_unix', 'status', 'original_service_type', 'original_url']) await qi.removeColumn('repository', c);
}
