/**
 * The actions secrets (Gitea's `secret`, values sealed with SECRET_KEY) and variables (Gitea's
 * `action_variable`) of a repository (owner_id 0), or of a user or organization (repo_id 0).
 */
import { DataTypes } from 'sequelize';
import type { MigrationParams } from './types';

const int = { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 };
const bigint = { type: DataTypes.BIGINT, allowNull: false, defaultValue: 0 };
const text = { type: DataTypes.TEXT, allowNull: false, defaultValue: '' };

/** Create secret and action_variable. */
export async function up({ context: qi }: MigrationParams): Promise<void> {
  await qi.createTable('secret', {
    id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true, allowNull: false },
    owner_id: int,
    repo_id: int,
    name: { type: DataTypes.STRING(255), allowNull: false },
    data: text,
    description: text,
    created_unix: bigint,
  });
  // why: names are stored upper-cased, so this also makes them unique without regard to case.
  await qi.addIndex('secret', ['owner_id', 'repo_id', 'name'], { unique: true, name: 'UQE_secret_owner_repo_name' });
  await qi.addIndex('secret', ['repo_id'], { name: 'IDX_secret_repo_id' });

  await qi.createTable('action_variable', {
    id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true, allowNull: false },
    owner_id: int,
    repo_id: int,
    name: { type: DataTypes.STRING(255), allowNull: false },
    data: text,
    description: text,
    created_unix: bigint,
    updated_unix: bigint,
  });
  await qi.addIndex('action_variable', ['owner_id', 'repo_id', 'name'], { unique: true, name: 'UQE_action_variable_owner_repo_name' });
  await qi.addIndex('action_variable', ['repo_id'], { name: 'IDX_action_variable_repo_id' });
}

/** Drop them. */
export async function down({ context: qi }: MigrationParams): Promise<void> {
  await qi.dropTable('action_variable');
  await qi.dropTable('secret');
}
