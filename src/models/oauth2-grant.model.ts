/**
 * Gitea's `oauth2_grant`: a user's consent to one application (one row per pair), with the scope
 * consented to, the nonce of the latest authorization, and the counter that numbers the refresh
 * tokens issued under it.
 */
import { Op } from 'sequelize';
import { Table, Column, Model, DataType } from 'sequelize-typescript';
import type { DbContext } from '../db';
import { TableCache } from './table-cache';

const unix = (col: string) => ({ get(this: Model): number { return Number(this.getDataValue(col)); } });

@Table({ tableName: 'oauth2_grant', underscored: true, timestamps: false })
export class OAuth2GrantModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare userId: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare applicationId: number;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 1, ...unix('counter') }) declare counter: number;
  @Column({ type: DataType.TEXT, allowNull: false, defaultValue: '' }) declare scope: string;
  @Column({ type: DataType.TEXT, allowNull: false, defaultValue: '' }) declare nonce: string;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0, ...unix('createdUnix') }) declare createdUnix: number;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0, ...unix('updatedUnix') }) declare updatedUnix: number;
}

/** The grant with this id, or null. */
export function findGrantById(ctx: DbContext, id: number): Promise<OAuth2GrantModel | null> {
  return OAuth2GrantModel.findOne({ where: { id }, transaction: ctx.tx });
}

/** What checking an access token needs of its grant. */
export interface GrantSnapshot { id: number; userId: number; applicationId: number; scope: string; counter: number; createdUnix: number }

// why: every request with an OAuth2 access token reads its grant. Any committed write to the table
// (a revocation, a new scope, a refresh) clears this cache in every process before the write returns,
// so a revoked grant's tokens stop working at once everywhere.
const grantCache = new TableCache<GrantSnapshot | null>('oauth2-grant', ['oauth2_grant']);

/** The grant with this id (cached, outside a transaction), or null. */
export function grantSnapshot(ctx: DbContext, id: number): Promise<GrantSnapshot | null> {
  return grantCache.get(ctx, String(id), async () => {
    const g = await OAuth2GrantModel.findOne({ where: { id }, transaction: ctx.tx });
    return g ? { id: g.id, userId: g.userId, applicationId: g.applicationId, scope: g.scope, counter: g.counter, createdUnix: g.createdUnix } : null;
  });
}

/** The grant of `userId` to an application, or null. */
export function findGrant(ctx: DbContext, userId: number, applicationId: number): Promise<OAuth2GrantModel | null> {
  return OAuth2GrantModel.findOne({ where: { userId, applicationId }, transaction: ctx.tx });
}

/** Store a new grant (counter 1). */
export function insertGrant(ctx: DbContext, row: { userId: number; applicationId: number; scope: string; nonce: string; now: number }): Promise<OAuth2GrantModel> {
  const { now, ...rest } = row;
  return OAuth2GrantModel.create({ ...rest, counter: 1, createdUnix: now, updatedUnix: now }, { transaction: ctx.tx });
}

/** Change a grant's scope and nonce. */
export async function updateGrant(ctx: DbContext, id: number, patch: { scope?: string; nonce?: string; updatedUnix: number }): Promise<void> {
  await OAuth2GrantModel.update(patch, { where: { id }, transaction: ctx.tx });
}

/**
 * Move the grant's counter from `expected` to `expected + 1`; false when it was not at `expected`
 * (the grant is gone, or another refresh moved it first).
 */
export async function advanceGrantCounter(ctx: DbContext, id: number, expected: number, now: number): Promise<boolean> {
  const [n] = await OAuth2GrantModel.update({ counter: expected + 1, updatedUnix: now }, { where: { id, counter: expected }, transaction: ctx.tx });
  return n > 0;
}

/** Delete a grant (of `userId`, when given); whether it was there. */
export async function deleteGrantRow(ctx: DbContext, id: number, userId?: number): Promise<boolean> {
  return (await OAuth2GrantModel.destroy({ where: { id, ...(userId === undefined ? {} : { userId }) }, transaction: ctx.tx })) > 0;
}

/** The grants of a user, oldest first. */
export function grantsOfUser(ctx: DbContext, userId: number): Promise<OAuth2GrantModel[]> {
  return OAuth2GrantModel.findAll({ where: { userId }, order: [['id', 'ASC']], transaction: ctx.tx });
}

/** Ids of the grants given to these applications, or by this user. */
export async function grantIdsWhere(ctx: DbContext, where: { applicationIds?: number[]; userId?: number }): Promise<number[]> {
  const or = [
    ...(where.applicationIds?.length ? [{ applicationId: { [Op.in]: where.applicationIds } }] : []),
    ...(where.userId !== undefined ? [{ userId: where.userId }] : []),
  ];
  if (or.length === 0) return [];
  const rows = await OAuth2GrantModel.findAll({ where: { [Op.or]: or }, attributes: ['id'], transaction: ctx.tx });
  return rows.map((r) => r.id);
}

/** Delete grants by id. */
export async function deleteGrantsByIds(ctx: DbContext, ids: number[]): Promise<void> {
  if (ids.length) await OAuth2GrantModel.destroy({ where: { id: { [Op.in]: ids } }, transaction: ctx.tx });
}
