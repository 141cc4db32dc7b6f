/** Gitea's pull_auto_merge: a merge scheduled for when a pull request's checks succeed. Times are Unix seconds. */
import { Op, literal } from 'sequelize';
import { Table, Column, Model, DataType } from 'sequelize-typescript';
import type { DbContext } from '../db';
import { nowUnix } from './issue.model';

@Table({ tableName: 'pull_auto_merge', underscored: true, timestamps: false })
export class AutoMergeModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare pullId: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare doerId: number;
  @Column({ type: DataType.STRING(30), allowNull: false }) declare mergeStyle: string;
  @Column({ type: DataType.TEXT, allowNull: false, defaultValue: '' }) declare message: string;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare deleteBranchAfterMerge: boolean;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare createdUnix: number;
}

/** The schedule of a pull request, if any. */
export function findAutoMerge(ctx: DbContext, pullId: number): Promise<AutoMergeModel | null> {
  return AutoMergeModel.findOne({ where: { pullId }, transaction: ctx.tx });
}

/** Schedule a merge. */
export function insertAutoMerge(ctx: DbContext, r: Pick<AutoMergeModel, 'pullId' | 'doerId' | 'mergeStyle' | 'message' | 'deleteBranchAfterMerge'>): Promise<AutoMergeModel> {
  return AutoMergeModel.create({ ...r, createdUnix: nowUnix() }, { transaction: ctx.tx });
}

/** Drop a pull request's schedule; whether there was one. */
export async function deleteAutoMerge(ctx: DbContext, pullId: number): Promise<boolean> {
  return (await AutoMergeModel.destroy({ where: { pullId }, transaction: ctx.tx })) > 0;
}

/** The ids of the scheduled pull requests among the given ones, or of every scheduled pull request into repository `baseRepoId`. */
export async function scheduledPullIds(ctx: DbContext, o: { pullIds?: number[]; baseRepoId?: number }): Promise<number[]> {
  const where = o.pullIds
    ? { pullId: { [Op.in]: o.pullIds } }
    : { pullId: { [Op.in]: literal(`(SELECT id FROM pull_request WHERE base_repo_id = ${Number(o.baseRepoId)} AND has_merged = false)`) } };
  if (o.pullIds?.length === 0) return [];
  return (await AutoMergeModel.findAll({ attributes: ['pullId'], where, transaction: ctx.tx })).map((r) => r.pullId);
}
