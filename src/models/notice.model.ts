/**
 * Gitea's `notice`: a system notice for site administrators, of type repository (1) or task (2),
 * with its text and creation time; listed newest first.
 */
import { Op } from 'sequelize';
import { Table, Column, Model, DataType } from 'sequelize-typescript';
import type { DbContext } from '../db';

/** Gitea's notice types. */
export enum NoticeType { Repository = 1, Task = 2 }

@Table({ tableName: 'notice', underscored: true, timestamps: false })
export class NoticeModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: NoticeType.Repository }) declare type: NoticeType;
  @Column({ type: DataType.TEXT, allowNull: false, defaultValue: '' }) declare description: string;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0, get(this: Model): number { return Number(this.getDataValue('createdUnix')); } }) declare createdUnix: number;
}

/** Store a notice. */
export function insertNotice(ctx: DbContext, type: NoticeType, description: string, now: number): Promise<NoticeModel> {
  return NoticeModel.create({ type, description, createdUnix: now }, { transaction: ctx.tx });
}

/** One page of notices, newest first, and their number. */
export function listNotices(ctx: DbContext, page: { limit: number; offset: number }): Promise<{ rows: NoticeModel[]; count: number }> {
  return NoticeModel.findAndCountAll({ order: [['id', 'DESC']], ...page, transaction: ctx.tx });
}

/** Delete the notices with these ids; how many went. */
export function deleteNoticesByIds(ctx: DbContext, ids: number[]): Promise<number> {
  return ids.length ? NoticeModel.destroy({ where: { id: { [Op.in]: ids } }, transaction: ctx.tx }) : Promise.resolve(0);
}

/** Delete every notice; how many went. */
export function deleteAllNotices(ctx: DbContext): Promise<number> {
  return NoticeModel.destroy({ where: {}, transaction: ctx.tx });
}
