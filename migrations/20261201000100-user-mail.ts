/**
 * Mail: each user's email notification preference (Gitea's column and values: enabled, onmention,
 * disabled, andyourown) and `rands`, the salt that a confirmation rotates so its link works once.
 */
import { DataTypes } from 'sequelize';
import type { MigrationParams } from './types';

/** Add email_notifications_preference and rands to user. */
export async function up({ context: qi }: MigrationParams): Promise<void> {
  await qi.addColumn('user', 'email_notifications_preference', { type: DataTypes.STRING(20), allowNull: false, defaultValue: 'enabled' });
  await qi.addColumn('user', 'rands', { type: DataTypes.STRING(32), allowNull: false, defaultValue: '' });
}

/** Drop the columns again. */
export async function down({ context: qi }: MigrationParams): Promise<void> {
  await qi.removeColumn('user', 'rands');
  await qi.removeColumn('user', 'email_notifications_preference');
}
