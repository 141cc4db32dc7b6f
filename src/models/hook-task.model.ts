/**
 * Gitea's hook_task table: one delivery of one event to one hook, with the request sent and the
 * response kept, and what a durable, leased, retried delivery needs (status, attempts, the next
 * attempt's time in ms, the lease).
 */
import { Table, Column, Model, DataType } from 'sequelize-typescript';

/** Lifecycle of a delivery. */
export enum HookTaskStatus { Pending = 'pending', Delivered = 'delivered', Failed = 'failed' }

@Table({ tableName: 'hook_task', underscored: true, timestamps: false })
export class HookTaskModel extends Model {
  @Column({ type: DataType.BIGINT, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare hookId: number;
  @Column({ type: DataType.STRING(36), allowNull: false }) declare uuid: string;
  @Column({ type: DataType.TEXT, allowNull: false, defaultValue: '' }) declare payloadContent: string;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 2 }) declare payloadVersion: number;
  @Column({ type: DataType.STRING(64), allowNull: false, defaultValue: '' }) declare eventType: string;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare isDelivered: boolean;
  /** When it was last tried, Unix nanoseconds (Gitea's `delivered`). */
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare delivered: number;
  @Column({ type: DataType.TEXT, allowNull: false, defaultValue: '' }) declare requestContent: string;
  @Column({ type: DataType.TEXT, allowNull: false, defaultValue: '' }) declare responseContent: string;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare isSucceed: boolean;
  @Column({ type: DataType.STRING(16), allowNull: false, defaultValue: 'pending' }) declare status: HookTaskStatus;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare attempts: number;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare nextAttemptMs: number;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare leaseUntil: number;
  @Column({ type: DataType.STRING(128), allowNull: false, defaultValue: '' }) declare leasedBy: string;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare createdUnix: number;
}
