/**
 * System notices (Gitea's `notice`): what went wrong in the background that a site administrator
 * should read (a periodic task that failed), listed on `/admin/notices`.
 */
import { DataTypes } from 'sequelize';
import type { MigrationParams } from './types';

/** Create the notice table. */
export async function up({ context: qi }: MigrationParams): Promise<void> {
  await qi.createTable('notice', {
    id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true, allowNull: false },
    type: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 1 },
    description: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
    created_unix: { type: DataTypes.BIGINT, allowNull: false, defaultValue: 0 },
  });
  await qi.addIndex('notice', ['created_unix'], { name: 'IDX_notice_created_unix' });
}

/** Drop it again. */
export async function down({ context: qi }: MigrationParams): Promise<void> {
  await qi.dropTable('notice');
}
