/** A repository; git owns its refs, these columns are a cache and its settings. */
import type { DbContext } from '../db';
import { Table, Column, Model, DataType } from 'sequelize-typescript';

@Table({ tableName: 'repository', underscored: true, timestamps: true })
export class RepositoryModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare ownerId: number;
  @Column({ type: DataType.STRING(255), allowNull: false }) declare ownerName: string;
  @Column({ type: DataType.STRING(255), allowNull: false }) declare lowerName: string;
  @Column({ type: DataType.STRING(255), allowNull: false }) declare name: string;
  @Column({ type: DataType.TEXT, allowNull: false, defaultValue: '' }) declare description: string;
  @Column({ type: DataType.STRING(2048), allowNull: false, defaultValue: '' }) declare website: string;
  @Column({ type: DataType.STRING(255), allowNull: false, defaultValue: 'main' }) declare defaultBranch: string;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare isPrivate: boolean;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: true }) declare isEmpty: boolean;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare isArchived: boolean;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare isMirror: boolean;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare isFork: boolean;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare forkId: number;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare isTemplate: boolean;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare templateId: number;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare size: number;
  @Column({ type: DataType.STRING(16), allowNull: false, defaultValue: 'sha1' }) declare objectFormatName: string;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare numStars: number;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare numWatches: number;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare numForks: number;
  declare createdAt: Date;
  declare updatedAt: Date;
}

/** A repository of an owner by name, case-insensitively. */
export function findRepoByOwnerAndName(ctx: DbContext, ownerId: number, name: string): Promise<RepositoryModel | null> {
  return RepositoryModel.findOne({ where: { ownerId, lowerName: name.toLowerCase() }, transaction: ctx.tx });
}

/** Number of repositories an owner (user or organization) has. */
export function countReposOfOwner(ctx: DbContext, ownerId: number): Promise<number> {
  return RepositoryModel.count({ where: { ownerId }, transaction: ctx.tx });
}
