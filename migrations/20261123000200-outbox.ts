/**
 * The durable outbox: side effects (push events, webhook deliveries, mirror syncs, action
 * dispatch) are written in the same transaction as the change that causes them, then run by
 * workers that claim rows with a lease.
 */
import { DataTypes } from 'sequelize';
import type { MigrationParams } from './types';

/** Create the outbox table and the indexes the claim query walks. */
export async function up({ context: qi }: MigrationParams): Promise<void> {
  await qi.createTable('outbox', {
    id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true, allowNull: false },
    topic: { type: DataTypes.STRING(64), allowNull: false },
    payload: { type: DataTypes.TEXT, allowNull: false },
    status: { type: DataTypes.STRING(16), allowNull: false, defaultValue: 'pending' },
    attempts: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
    // why: times the claim query compares are epoch milliseconds (BIGINT), not DATE: SQLite keeps
    // dates as text and a numeric comparison is the same on both dialects.
    available_at: { type: DataTypes.BIGINT, allowNull: false },
    lease_until: { type: DataTypes.BIGINT, allowNull: true },
    leased_by: { type: DataTypes.STRING(128), allowNull: true },
    last_error: { type: DataTypes.TEXT, allowNull: true },
    created_at: { type: DataTypes.DATE, allowNull: false },
    updated_at: { type: DataTypes.DATE, allowNull: false },
  });
  await qi.addIndex('outbox', ['status', 'available_at'], { name: 'IDX_outbox_status_available_at' });
  await qi.addIndex('outbox', ['status', 'lease_until'], { name: 'IDX_outbox_status_lease_until' });
  await qi.addIndex('outbox', ['topic'], { name: 'IDX_outbox_topic' });
}

/** Drop the outbox. */
export async function down({ context: qi }: MigrationParams): Promise<void> {
  await qi.dropTable('outbox');
}
