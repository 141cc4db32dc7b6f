/**
 * Repository settings the repository API stores: the mirror interval and prune flag (kept even for
 * non-mirrors, as Gitea's PATCH accepts them) and when the repository was archived.
 */
import { DataTypes } from 'sequelize';
import type { MigrationParams } from './types';

/** Add mirror_interval, enable_prune and archived_at to repository. */
export async function up({ context: qi }: MigrationParams): Promise<void> {
  await qi.addColumn('repository', 'mirror_interval', { type: DataTypes.STRING(64), allowNull: false, defaultValue: '' });
  await qi.addColumn('repository', 'enable_prune', { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: true });
  await qi.addColumn('repository', 'archived_at', { type: DataTypes.DATE, allowNull: true });
}

/** Drop the columns again. */
export async function down({ context: qi }: MigrationParams): Promise<void> {
  await qi.removeColumn('repository', 'archived_at');
  await qi.removeColumn('repository', 'enable_prune');
  await qi.removeColumn('repository', 'mirror_interval');
}
