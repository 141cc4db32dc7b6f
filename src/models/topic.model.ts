/** A topic name shared by repositories, with the number of repositories using it. */
import type { DbContext } from '../db';
import { Op } from 'sequelize';
import { Table, Column, Model, DataType } from 'sequelize-typescript';

@Table({ tableName: 'topic', underscored: true, timestamps: true })
export class TopicModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.STRING(50), allowNull: false }) declare name: string;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare repoCount: number;
  declare createdAt: Date;
  declare updatedAt: Date;
}

/** The topic named `name`, created when missing (call inside a transaction). */
export async function findOrCreateTopic(ctx: DbContext, name: string): Promise<TopicModel> {
  const found = await TopicModel.findOne({ where: { name }, transaction: ctx.tx });
  return found ?? TopicModel.create({ name, repoCount: 0 }, { transaction: ctx.tx });
}

/** Topics by id. */
export function findTopicsByIds(ctx: DbContext, ids: number[]): Promise<TopicModel[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return TopicModel.findAll({ where: { id: ids }, order: [['name', 'ASC']], transaction: ctx.tx });
}

/** The topic named `name`, or null. */
export function findTopicByName(ctx: DbContext, name: string): Promise<TopicModel | null> {
  return TopicModel.findOne({ where: { name }, transaction: ctx.tx });
}

/** Change the repository count of a topic by `delta`. */
export async function adjustTopicRepoCount(ctx: DbContext, topicId: number, delta: number): Promise<void> {
  await TopicModel.increment({ repoCount: delta }, { where: { id: topicId }, transaction: ctx.tx });
}

/** One page of topics whose name contains `q` (all when empty), most used first. */
export function searchTopics(ctx: DbContext, q: string, limit: number, offset: number): Promise<{ rows: TopicModel[]; count: number }> {
  const kw = q.toLowerCase();
  // why: topic names only hold [-.a-z0-9], so any other character (LIKE wildcards too) matches nothing.
  if (/[^-.a-z0-9]/.test(kw)) return Promise.resolve({ rows: [], count: 0 });
  const where = kw ? { name: { [Op.like]: `%${kw}%` } } : {};
  return TopicModel.findAndCountAll({ where, order: [['repoCount', 'DESC'], ['name', 'ASC']], limit, offset, transaction: ctx.tx });
}
