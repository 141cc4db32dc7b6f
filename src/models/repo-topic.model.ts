/** repo_id carries topic_id. */
import type { DbContext } from '../db';
import { Table, Column, Model, DataType } from 'sequelize-typescript';

@Table({ tableName: 'repo_topic', underscored: true, timestamps: true })
export class RepoTopicModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare repoId: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare topicId: number;
}

/** Topic ids of a repository. */
export async function topicIdsOfRepo(ctx: DbContext, repoId: number): Promise<number[]> {
  const rows = await RepoTopicModel.findAll({ where: { repoId }, attributes: ['topicId'], transaction: ctx.tx });
  return rows.map((r) => r.topicId);
}

/** Attach a topic to a repository. */
export async function insertRepoTopic(ctx: DbContext, repoId: number, topicId: number): Promise<void> {
  await RepoTopicModel.create({ repoId, topicId }, { transaction: ctx.tx });
}

/** Detach a topic from a repository; false when it was not attached. */
export async function deleteRepoTopic(ctx: DbContext, repoId: number, topicId: number): Promise<boolean> {
  return (await RepoTopicModel.destroy({ where: { repoId, topicId }, transaction: ctx.tx })) > 0;
}
