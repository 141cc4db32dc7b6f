/**
 * Git LFS: `lfs_meta_object` links a content-addressed object (oid, size) to each repository that may
 * read it, and `lfs_lock` holds the file locks of the LFS locking API. Columns as in Gitea.
 */
import { DataTypes } from 'sequelize';
import type { MigrationParams } from './types';

const id = { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true, allowNull: false };
const int = () => ({ type: DataTypes.INTEGER, allowNull: false });
const big = () => ({ type: DataTypes.BIGINT, allowNull: false });

/** Create lfs_meta_object and lfs_lock. */
export async function up({ context: qi }: MigrationParams): Promise<void> {
  await qi.createTable('lfs_meta_object', {
    id, oid: { type: DataTypes.STRING(255), allowNull: false }, size: big(), repository_id: int(), created_unix: big(), updated_unix: big(),
  });
  // why: one link per (object, repository); a racing second link fails instead of duplicating.
  await qi.addIndex('lfs_meta_object', ['oid', 'repository_id'], { unique: true, name: 'UQE_lfs_meta_object_s' });
  await qi.addIndex('lfs_meta_object', ['repository_id'], { name: 'IDX_lfs_meta_object_repository_id' });
  await qi.addIndex('lfs_meta_object', ['oid'], { name: 'IDX_lfs_meta_object_oid' });

  await qi.createTable('lfs_lock', { id, repo_id: int(), owner_id: int(), path: { type: DataTypes.TEXT, allowNull: false }, created_unix: big() });
  // why: Gitea compares lock paths case-insensitively, so the uniqueness that stops a racing double lock does too
  // (an expression index; SQLite and PostgreSQL both accept this statement).
  await qi.sequelize.query('CREATE UNIQUE INDEX "UQE_lfs_lock_repo_path" ON lfs_lock (repo_id, lower(path))');
  await qi.addIndex('lfs_lock', ['owner_id'], { name: 'IDX_lfs_lock_owner_id' });
}

/** Drop both tables. */
export async function down({ context: qi }: MigrationParams): Promise<void> {
  await qi.dropTable('lfs_lock');
  await qi.dropTable('lfs_meta_object');
}
