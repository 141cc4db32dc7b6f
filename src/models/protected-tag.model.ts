/** Gitea's protected_tag: a tag name pattern and the users and teams allowed to control matching tags. */
import type { DbContext } from '../db';
import { Table, Column, Model, DataType } from 'sequelize-typescript';

@Table({ tableName: 'protected_tag', underscored: true, timestamps: true })
export class ProtectedTagModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare repoId: number;
  @Column({ type: DataType.STRING(255), allowNull: false }) declare namePattern: string;
  @Column({ type: DataType.TEXT, allowNull: false, defaultValue: '[]' }) declare allowlistUserIds: string;
  @Column({ type: DataType.TEXT, allowNull: false, defaultValue: '[]' }) declare allowlistTeamIds: string;
  declare createdAt: Date;
  declare updatedAt: Date;
}

/** Parse one of the JSON id lists of a rule (bad data counts as empty). */
export function idList(json: string): number[] {
  try {
    const v: unknown = JSON.parse(json);
    return Array.isArray(v) ? v.filter((x): x is number => Number.isInteger(x)) : [];
  } catch {
    return [];
  }
}

/** Every rule of a repository, oldest first. */
export function listProtectedTags(ctx: DbContext, repoId: number): Promise<ProtectedTagModel[]> {
  return ProtectedTagModel.findAll({ where: { repoId }, order: [['id', 'ASC']], transaction: ctx.tx });
}

/** A rule of the repository by id, or null. */
export function findProtectedTag(ctx: DbContext, repoId: number, id: number): Promise<ProtectedTagModel | null> {
  return ProtectedTagModel.findOne({ where: { repoId, id }, transaction: ctx.tx });
}

/** The rule with exactly this pattern, or null. */
export function findProtectedTagByPattern(ctx: DbContext, repoId: number, namePattern: string): Promise<ProtectedTagModel | null> {
  return ProtectedTagModel.findOne({ where: { repoId, namePattern }, transaction: ctx.tx });
}

/** What a rule holds. */
export interface ProtectedTagFields { namePattern: string; userIds: number[]; teamIds: number[] }

/** Insert a rule (a duplicate pattern violates the unique index). */
export function insertProtectedTag(ctx: DbContext, repoId: number, f: ProtectedTagFields): Promise<ProtectedTagModel> {
  return ProtectedTagModel.create({
    repoId, namePattern: f.namePattern, allowlistUserIds: JSON.stringify(f.userIds), allowlistTeamIds: JSON.stringify(f.teamIds),
  }, { transaction: ctx.tx });
}

/** Replace the fields of a rule. */
export async function updateProtectedTag(ctx: DbContext, row: ProtectedTagModel, f: ProtectedTagFields): Promise<void> {
  row.namePattern = f.namePattern;
  row.allowlistUserIds = JSON.stringify(f.userIds);
  row.allowlistTeamIds = JSON.stringify(f.teamIds);
  row.changed('updatedAt', true);
  await row.save({ transaction: ctx.tx });
}

/** Delete a rule; false when it was already gone. */
export async function deleteProtectedTag(ctx: DbContext, repoId: number, id: number): Promise<boolean> {
  return (await ProtectedTagModel.destroy({ where: { repoId, id }, transaction: ctx.tx })) > 0;
}
