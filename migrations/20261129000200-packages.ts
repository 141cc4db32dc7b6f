/**
 * Package registries, in Gitea's tables: `package` (per owner, type and lower-case name, optionally
 * linked to a repository), `package_version`, `package_file` (a version's files, each pointing at a
 * blob), `package_blob` (stored once by content, with its four hashes), `package_property` (name and
 * value pairs of a version, file or package: ref_type 0, 1, 2) and `package_cleanup_rule` (an
 * owner's rule per type). Times are unix seconds.
 */
import { DataTypes } from 'sequelize';
import type { MigrationParams } from './types';

const id = { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true, allowNull: false };
const int = { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 };
const bigint = { type: DataTypes.BIGINT, allowNull: false, defaultValue: 0 };
const bool = { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false };
const str = (n = 255) => ({ type: DataTypes.STRING(n), allowNull: false, defaultValue: '' });
const text = { type: DataTypes.TEXT, allowNull: false, defaultValue: '' };

/** Create the package tables. */
export async function up({ context: qi }: MigrationParams): Promise<void> {
  await qi.createTable('package', {
    id, owner_id: int, repo_id: int, type: str(), name: str(), lower_name: str(), semver_compatible: bool, is_internal: bool,
  });
  await qi.addIndex('package', ['owner_id', 'type', 'lower_name'], { unique: true, name: 'UQE_package_s' });
  await qi.addIndex('package', ['repo_id'], { name: 'IDX_package_repo_id' });
  await qi.addIndex('package', ['type'], { name: 'IDX_package_type' });

  await qi.createTable('package_version', {
    id, package_id: int, creator_id: int, version: str(), lower_version: str(), created_unix: bigint, is_internal: bool,
    metadata_json: text, download_count: bigint,
  });
  await qi.addIndex('package_version', ['package_id', 'lower_version'], { unique: true, name: 'UQE_package_version_s' });
  await qi.addIndex('package_version', ['created_unix'], { name: 'IDX_package_version_created_unix' });

  await qi.createTable('package_file', {
    id, version_id: int, blob_id: int, name: str(), lower_name: str(), composite_key: str(), is_lead: bool, created_unix: bigint,
  });
  await qi.addIndex('package_file', ['version_id', 'lower_name', 'composite_key'], { unique: true, name: 'UQE_package_file_s' });
  await qi.addIndex('package_file', ['blob_id'], { name: 'IDX_package_file_blob_id' });

  await qi.createTable('package_blob', {
    id, size: bigint, hash_md5: str(32), hash_sha1: str(40), hash_sha256: str(64), hash_sha512: str(128), created_unix: bigint,
  });
  for (const h of ['md5', 'sha1', 'sha256', 'sha512']) await qi.addIndex('package_blob', [`hash_${h}`], { unique: true, name: `UQE_package_blob_${h}` });
  await qi.addIndex('package_blob', ['created_unix'], { name: 'IDX_package_blob_created_unix' });

  await qi.createTable('package_property', { id, ref_type: int, ref_id: int, name: str(), value: text });
  await qi.addIndex('package_property', ['ref_type', 'ref_id', 'name'], { name: 'IDX_package_property_ref' });

  await qi.createTable('package_cleanup_rule', {
    id, enabled: bool, owner_id: int, type: str(), keep_count: int, keep_pattern: str(), remove_days: int, remove_pattern: str(),
    match_full_name: bool, created_unix: bigint, updated_unix: bigint,
  });
  await qi.addIndex('package_cleanup_rule', ['owner_id', 'type'], { unique: true, name: 'UQE_package_cleanup_rule_s' });
}

/** Drop them. */
export async function down({ context: qi }: MigrationParams): Promise<void> {
  for (const t of ['package_cleanup_rule', 'package_property', 'package_blob', 'package_file', 'package_version', 'package']) await qi.dropTable(t);
}
