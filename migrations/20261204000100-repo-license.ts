/**
 * Gitea's `repo_license`: the SPDX licenses found in a repository's license files on its default
 * branch, with the commit they were read from (GET /repos/{owner}/{repo}/licenses, the repository
 * JSON's `licenses`).
 */
import { DataTypes } from 'sequelize';
import type { MigrationParams } from './types';

/** Create the repo_license table. */
export async function up({ context: qi }: MigrationParams): Promise<void> {
  await qi.createTable('repo_license', {
    id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true, allowNull: false },
    repo_id: { type: DataTypes.INTEGER, allowNull: false },
    commit_id: { type: DataTypes.STRING(64), allowNull: false, defaultValue: '' },
    license: { type: DataTypes.STRING(255), allowNull: false },
    created_unix: { type: DataTypes.BIGINT, allowNull: false, defaultValue: 0 },
    updated_unix: { type: DataTypes.BIGINT, allowNull: false, defaultValue: 0 },
  });
  await qi.addIndex('repo_license', ['repo_id', 'license'], { name: 'UQE_repo_license_s', unique: true });
}

/** Drop it again. */
export async function down({ context: qi }: MigrationParams): Promise<void> {
  await qi.dropTable('repo_license');
}
