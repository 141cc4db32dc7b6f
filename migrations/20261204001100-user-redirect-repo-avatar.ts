/**
 * Gitea's `user_redirect` (an old user or organization name and the account it now names, kept
 * when the account is renamed so old URLs lead to the new ones) and the repository's uploaded
 * avatar (`repository.avatar`, the name of its file under REPOSITORY_AVATAR_UPLOAD_PATH).
 */
import { DataTypes } from 'sequelize';
import type { MigrationParams } from './types';

/** Create user_redirect and add repository.avatar. */
export async function up({ context: qi }: MigrationParams): Promise<void> {
  await qi.createTable('user_redirect', {
    id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true, allowNull: false },
    lower_name: { type: DataTypes.STRING(40), allowNull: false },
    redirect_user_id: { type: DataTypes.INTEGER, allowNull: false },
  });
  await qi.addIndex('user_redirect', ['lower_name'], { name: 'UQE_user_redirect_s', unique: true });
  await qi.addIndex('user_redirect', ['redirect_user_id'], { name: 'IDX_user_redirect_redirect_user_id' });
  await qi.addColumn('repository', 'avatar', { type: DataTypes.STRING(64), allowNull: false, defaultValue: '' });
}

/** Drop them again. */
export async function down({ context: qi }: MigrationParams): Promise<void> {
  await qi.removeColumn('repository', 'avatar');
  await qi.dropTable('user_redirect');
}
