/**
 * "Remember me": Gitea's `auth_token` table. The long-lived cookie holds a lookup id and a
 * validator; the row keeps the id and the SHA-256 of the validator, so a copy of the database
 * signs nobody in. Times are unix seconds.
 */
import { DataTypes } from 'sequelize';
import type { MigrationParams } from './types';

/** Create auth_token. */
export async function up({ context: qi }: MigrationParams): Promise<void> {
  await qi.createTable('auth_token', {
    id: { type: DataTypes.STRING(64), primaryKey: true, allowNull: false },
    token_hash: { type: DataTypes.STRING(64), allowNull: false, defaultValue: '' },
    user_id: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
    expires_unix: { type: DataTypes.BIGINT, allowNull: false, defaultValue: 0 },
  });
  await qi.addIndex('auth_token', ['user_id'], { name: 'IDX_auth_token_user_id' });
  await qi.addIndex('auth_token', ['expires_unix'], { name: 'IDX_auth_token_expires_unix' });
}

/** Drop it. */
export async function down({ context: qi }: MigrationParams): Promise<void> {
  await qi.dropTable('auth_token');
}
