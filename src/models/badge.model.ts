/** A badge an administrator can give to users. */
import { Op } from 'sequelize';
import { Table, Column, Model, DataType } from 'sequelize-typescript';
import type { DbContext } from '../db';
import { UserBadgeModel } from './user-badge.model';

@Table({ tableName: 'badge', underscored: true, timestamps: true })
export class BadgeModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.STRING(255), allowNull: false, unique: true }) declare slug: string;
  @Column({ type: DataType.STRING(255), allowNull: false, defaultValue: '' }) declare description: string;
  @Column({ type: DataType.STRING(2048), allowNull: false, defaultValue: '' }) declare imageUrl: string;
}

/** Insert a badge definition. */
export function insertBadge(ctx: DbContext, row: { slug: string; description: string; imageUrl: string }): Promise<BadgeModel> {
  return BadgeModel.create(row, { transaction: ctx.tx });
}

/** The badges with these slugs (exact match), in no particular order. */
export function findBadgesBySlugs(ctx: DbContext, slugs: string[]): Promise<BadgeModel[]> {
  if (slugs.length === 0) return Promise.resolve([]);
  return BadgeModel.findAll({ where: { slug: { [Op.in]: slugs } }, transaction: ctx.tx });
}

/** The badges given to a user, in the order they were given. */
export async function badgesOfUser(ctx: DbContext, userId: number): Promise<BadgeModel[]> {
  const links = await UserBadgeModel.findAll({ where: { userId }, order: [['id', 'ASC']], transaction: ctx.tx });
  if (links.length === 0) return [];
  const badges = await BadgeModel.findAll({ where: { id: { [Op.in]: links.map((l) => l.badgeId) } }, transaction: ctx.tx });
  const byId = new Map(badges.map((b) => [b.id, b]));
  return links.map((l) => byId.get(l.badgeId)).filter((b): b is BadgeModel => !!b);
}

/** Ids of these badges the user already has. */
export async function badgeIdsOfUser(ctx: DbContext, userId: number, badgeIds: number[]): Promise<Set<number>> {
  if (badgeIds.length === 0) return new Set();
  const rows = await UserBadgeModel.findAll({ where: { userId, badgeId: { [Op.in]: badgeIds } }, transaction: ctx.tx });
  return new Set(rows.map((r) => r.badgeId));
}

/** Give a badge to a user (the caller checks it is not given yet). */
export async function insertUserBadge(ctx: DbContext, userId: number, badgeId: number): Promise<void> {
  await UserBadgeModel.create({ userId, badgeId }, { transaction: ctx.tx });
}

/** Take these badges away from a user. */
export async function deleteUserBadges(ctx: DbContext, userId: number, badgeIds: number[]): Promise<void> {
  if (badgeIds.length === 0) return;
  await UserBadgeModel.destroy({ where: { userId, badgeId: { [Op.in]: badgeIds } }, transaction: ctx.tx });
}
