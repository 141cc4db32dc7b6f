/**
 * Queries on organizations: rows of the users table with type Organization. Lists are sorted by
 * name, as Gitea sorts them.
 */
import { col, fn, literal, Op, where as sqlWhere, type WhereOptions } from 'sequelize';
import type { DbContext } from '../db';
import { UserModel, UserType, Visibility } from './user.model';
import { OrgUserModel } from './org-user.model';
import { deleteWebhooksOf } from './webhook.model';
import { deleteActionsSettingsOf } from './action-variable.model';
import { UserSettingModel } from './user-setting.model';

/** The columns a new organization row needs. */
export interface NewOrgRow {
  name: string;
  fullName: string;
  email: string;
  description: string;
  website: string;
  location: string;
  visibility: Visibility;
  repoAdminChangeTeamAccess: boolean;
}

/** Insert an organization row. */
export function insertOrg(ctx: DbContext, row: NewOrgRow): Promise<UserModel> {
  return UserModel.create({
    ...row,
    lowerName: row.name.toLowerCase(),
    type: UserType.Organization,
    isActive: true,
    loginName: '',
    passwdHash: '',
    allowCreateOrganization: false,
  }, { transaction: ctx.tx });
}

/**
 * One page of organizations whose visibility is one of `visibilities` (or, with `memberId`, of
 * which that user is a member), whose name or full name holds `keyword` when given.
 */
export async function listOrgs(ctx: DbContext, visibilities: Visibility[], limit: number, offset: number, keyword = '', memberId?: number): Promise<{ rows: UserModel[]; count: number }> {
  const visible: WhereOptions = { visibility: { [Op.in]: visibilities } };
  const and: WhereOptions[] = [{ type: UserType.Organization }, memberId === undefined ? visible
    : { [Op.or]: [visible, { id: { [Op.in]: literal(`(SELECT org_id FROM org_user WHERE uid = ${Number(memberId)})`) } }] }];
  const kw = keyword.toLowerCase();
  if (kw !== '') {
    const like = { [Op.like]: `%${kw}%` };
    and.push({ [Op.or]: [{ lowerName: like }, sqlWhere(fn('LOWER', col('full_name')), like)] });
  }
  return UserModel.findAndCountAll({ where: { [Op.and]: and }, order: [['lowerName', 'ASC']], limit, offset, transaction: ctx.tx });
}

/** Filter for the organizations of one member. */
export interface MemberOrgFilter {
  /** Only memberships the member made public. */
  publicMembershipOnly: boolean;
  /** Organization visibilities to include. */
  visibilities: Visibility[];
  /** Organizations to include whatever their visibility (those the viewer belongs to). */
  alsoIds?: number[];
}

/** One page of the organizations `uid` is a member of. */
export async function listOrgsOfMember(
  ctx: DbContext, uid: number, f: MemberOrgFilter, limit: number, offset: number,
): Promise<{ rows: UserModel[]; count: number }> {
  const memberships = await OrgUserModel.findAll({
    where: { uid, ...(f.publicMembershipOnly ? { isPublic: true } : {}) }, attributes: ['orgId'], transaction: ctx.tx,
  });
  const ids = memberships.map((m) => m.orgId);
  if (ids.length === 0) return { rows: [], count: 0 };
  const vis: WhereOptions = f.alsoIds?.length
    ? { [Op.or]: [{ visibility: { [Op.in]: f.visibilities } }, { id: { [Op.in]: f.alsoIds } }] }
    : { visibility: { [Op.in]: f.visibilities } };
  return UserModel.findAndCountAll({
    where: { [Op.and]: [{ id: { [Op.in]: ids }, type: UserType.Organization }, vis] },
    order: [['lowerName', 'ASC']], limit, offset, transaction: ctx.tx,
  });
}

/** Ids of the organizations `uid` belongs to. */
export async function orgIdsOfMember(ctx: DbContext, uid: number): Promise<number[]> {
  const rows = await OrgUserModel.findAll({ where: { uid }, attributes: ['orgId'], transaction: ctx.tx });
  return rows.map((r) => r.orgId);
}

/** Delete an organization's users row, its hooks, actions secrets and variables, and its settings. */
export async function deleteOrgRow(ctx: DbContext, orgId: number): Promise<void> {
  await deleteWebhooksOf(ctx, { ownerId: orgId });
  await UserSettingModel.destroy({ where: { userId: orgId }, transaction: ctx.tx });
  await deleteActionsSettingsOf(ctx, { ownerId: orgId });
  await UserModel.destroy({ where: { id: orgId, type: UserType.Organization }, transaction: ctx.tx });
}
