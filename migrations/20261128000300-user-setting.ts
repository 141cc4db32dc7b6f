/**
 * Gitea's `user_setting`: a user's settings by key. The first keys are a user's ActivityPub key
 * pair (`activitypub.pub_pem`, and `activitypub.priv_pem` sealed with the instance secret), made
 * the first time the user's actor is asked for.
 */
import { DataTypes } from 'sequelize';
import type { MigrationParams } from './types';

/** Create user_setting. */
export async function up({ context: qi }: MigrationParams): Promise<void> {
  await qi.createTable('user_setting', {
    id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true, allowNull: false },
    user_id: { type: DataTypes.INTEGER, allowNull: false },
    setting_key: { type: DataTypes.STRING(255), allowNull: false },
    setting_value: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
  });
  await qi.addIndex('user_setting', ['user_id', 'setting_key'], { unique: true, name: 'UQE_user_setting_key_userid' });
}

/** Drop it. */
export async function down({ context: qi }: MigrationParams): Promise<void> {
  await qi.dropTable('user_setting');
}
