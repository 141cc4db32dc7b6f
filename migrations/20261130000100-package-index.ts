/**
 * The state of each generated package index (a Debian distribution, an RPM group, an Alpine
 * branch of one owner): `wanted` counts the changes that touch it, `built` is the count the stored
 * index reflects. A rebuild is due while built < wanted; one rebuild answers every change counted
 * before it started, so a burst of uploads costs a few rebuilds, not one each.
 */
import { DataTypes } from 'sequelize';
import type { MigrationParams } from './types';

/** Create package_index. */
export async function up({ context: qi }: MigrationParams): Promise<void> {
  await qi.createTable('package_index', {
    id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true, allowNull: false },
    owner_id: { type: DataTypes.INTEGER, allowNull: false },
    type: { type: DataTypes.STRING(255), allowNull: false },
    index_key: { type: DataTypes.STRING(255), allowNull: false, defaultValue: '' },
    wanted: { type: DataTypes.BIGINT, allowNull: false, defaultValue: 0 },
    built: { type: DataTypes.BIGINT, allowNull: false, defaultValue: 0 },
  });
  await qi.addIndex('package_index', ['owner_id', 'type', 'index_key'], { unique: true, name: 'UQE_package_index_s' });
}

/** Drop package_index. */
export async function down({ context: qi }: MigrationParams): Promise<void> {
  await qi.dropTable('package_index');
}
