/**
 * Deploy keys: which SSH key opens which repository, with what mode. As in Gitea, one public_key
 * row (type 2) holds the key content and is shared by every repository that uses the same key;
 * each repository's use of it is a deploy_key row with its own title and mode.
 */
import { DataTypes } from 'sequelize';
import type { MigrationParams } from './types';

const int = (def?: number) => ({ type: DataTypes.INTEGER, allowNull: false, ...(def === undefined ? {} : { defaultValue: def }) });

/** Create deploy_key. */
export async function up({ context: qi }: MigrationParams): Promise<void> {
  await qi.createTable('deploy_key', {
    id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true, allowNull: false },
    key_id: int(),
    repo_id: int(),
    name: { type: DataTypes.STRING(255), allowNull: false },
    fingerprint: { type: DataTypes.STRING(255), allowNull: false },
    mode: int(1),
    created_at: { type: DataTypes.DATE, allowNull: false },
    updated_at: { type: DataTypes.DATE, allowNull: false },
  });
  // why: the unique pairs settle two racing additions of the same key (or title) to one repository.
  await qi.addIndex('deploy_key', ['key_id', 'repo_id'], { unique: true, name: 'UQE_deploy_key_s' });
  await qi.addIndex('deploy_key', ['repo_id', 'name'], { unique: true, name: 'UQE_deploy_key_repo_name' });
  await qi.addIndex('deploy_key', ['key_id'], { name: 'IDX_deploy_key_key_id' });
}

/** Drop deploy_key and the key rows only it referenced. */
export async function down({ context: qi }: MigrationParams): Promise<void> {
  await qi.sequelize.query('DELETE FROM public_key WHERE type = 2');
  await qi.dropTable('deploy_key');
}
