/** Membership of a user in an organization (any team). */
import type { DbContext } from '../db';
import { Op } from 'sequelize';
import { Table, Column, Model, DataType } from 'sequelize-typescript';
import { UserModel } from './user.model';

@Table({ tableName: 'org_user', underscored: true, timestamps: true })
export class OrgUserModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare uid: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare orgId: number;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare isPublic: boolean;
}

/** The membership row of a user in an organization, or null. */
export function findOrgUser(ctx: DbContext, orgId: number, uid: number): Promise<OrgUserModel | null> {
  return OrgUserModel.findOne({ where: { orgId, uid }, transaction: ctx.tx });
}

/** Make a user a member of an organization (no-op when already one). */
export async function ensureOrgUser(ctx: DbContext, orgId: number, uid: number): Promise<void> {
  if (await findOrgUser(ctx, orgId, uid)) return;
  await OrgUserModel.create({ orgId, uid, isPublic: false }, { transaction: ctx.tx });
}

/** Remove a user's membership row from an organization. */
export async function deleteOrgUser(ctx: DbContext, orgId: number, uid: number): Promise<void> {
  await OrgUserModel.destroy({ where: { orgId, uid }, transaction: ctx.tx });
}

/** Remove every membership row of an organization (when it is deleted). */
export async function deleteOrgUsersOf(ctx: DbContext, orgId: number): Promise<void> {
  await OrgUserModel.destroy({ where: { orgId }, transaction: ctx.tx });
}

/** Show or hide a membership on the member's profile; false when the user is no member. */
export async function setOrgUserPublic(ctx: DbContext, orgId: number, uid: number, isPublic: boolean): Promise<boolean> {
  const [n] = await OrgUserModel.update({ isPublic }, { where: { orgId, uid }, transaction: ctx.tx });
  return n > 0;
}

/** One page of an organization's members (only public memberships when `publicOnly`), by name. */
export async function listOrgMembers(
  ctx: DbContext, orgId: number, publicOnly: boolean, limit: number, offset: number,
): Promise<{ rows: UserModel[]; count: number }> {
  const rows = await OrgUserModel.findAll({ where: { orgId, ...(publicOnly ? { isPublic: true } : {}) }, attributes: ['uid'], transaction: ctx.tx });
  const ids = rows.map((r) => r.uid);
  if (ids.length === 0) return { rows: [], count: 0 };
  const users = await UserModel.findAll({ where: { id: { [Op.in]: ids } }, order: [['lowerName', 'ASC']], limit, offset, transaction: ctx.tx });
  return { rows: users, count: ids.length };
}
