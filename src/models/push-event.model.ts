/** One observed change of a ref (created, moved or deleted), kept for webhooks and actions. */
import type { DbContext } from '../db';
import { Table, Column, Model, DataType } from 'sequelize-typescript';

@Table({ tableName: 'push_event', underscored: true, timestamps: true })
export class PushEventModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare repoId: number;
  /** 0 when the change was found by the reconciler rather than reported by a push. */
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare pusherId: number;
  @Column({ type: DataType.STRING(512), allowNull: false }) declare refName: string;
  @Column({ type: DataType.STRING(64), allowNull: false }) declare oldCommitId: string;
  @Column({ type: DataType.STRING(64), allowNull: false }) declare newCommitId: string;
  @Column({ type: DataType.STRING(16), allowNull: false, defaultValue: '' }) declare transport: string;
  declare createdAt: Date;
}

/** A ref change to record. */
export interface RefChange { refName: string; oldCommitId: string; newCommitId: string }

/** Record ref changes of one push (call inside the processing transaction). */
export async function insertPushEvents(ctx: DbContext, repoId: number, pusherId: number, transport: string, changes: RefChange[]): Promise<void> {
  if (changes.length === 0) return;
  await PushEventModel.bulkCreate(changes.map((c) => ({ repoId, pusherId, transport, ...c })), { transaction: ctx.tx });
}

/** Push events of a repository, oldest first. */
export function listPushEvents(ctx: DbContext, repoId: number): Promise<PushEventModel[]> {
  return PushEventModel.findAll({ where: { repoId }, order: [['id', 'ASC']], transaction: ctx.tx });
}
