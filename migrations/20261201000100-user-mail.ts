/**
 * Mail: each user's email notification preference (Gitea's column and values: enabled, onmention,
 * disabled, andyourown) and `rands`, the salt that a confirmation rotates so its link works once.
 */
import { DataTypes } from 'sequelize';
import type { MigrationParams } from './types';

/** Add email_notifications_preference and rands to users. */
export async function up({ context: qi }: MigrationParams): Promise<void> {
  await qi.addColumn('users', 'email_notifications_preference', { type: DataTypes.STRING(20), allowNull: false, defaultValue: 'enabled' });
  await qi.addColumn('users', 'rands', { type: DataTypes.STRING(32), allowNull: false, defaultValue: '' });
}

/** Drop the columns again. */
export async function down({ context: qi }: MigrationParams): Promise<void> {
  await qi.removeColumn('users', 'rands');
  await qi.removeColumn('users', 'email_notifications_preference');
}
