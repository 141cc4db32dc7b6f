/** A user in a team. */
import { Op, QueryTypes } from 'sequelize';
import { Table, Column, Model, DataType } from 'sequelize-typescript';
import { db, type DbContext } from '../db';
import { UserModel } from './user.model';
import { AccessMode } from './perm';

@Table({ tableName: 'team_user', underscored: true, timestamps: true })
export class TeamUserModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare orgId: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare teamId: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare uid: number;
}

/** Is `uid` a member of the team? */
export async function isTeamMember(ctx: DbContext, teamId: number, uid: number): Promise<boolean> {
  return (await TeamUserModel.count({ where: { teamId, uid }, transaction: ctx.tx })) > 0;
}

/** Add a user to a team (no-op when already in it). */
export async function insertTeamUser(ctx: DbContext, orgId: number, teamId: number, uid: number): Promise<void> {
  if (await isTeamMember(ctx, teamId, uid)) return;
  await TeamUserModel.create({ orgId, teamId, uid }, { transaction: ctx.tx });
}

/** Remove a user from a team. */
export async function deleteTeamUser(ctx: DbContext, teamId: number, uid: number): Promise<void> {
  await TeamUserModel.destroy({ where: { teamId, uid }, transaction: ctx.tx });
}

/** Remove a user from every team of an organization. */
export async function deleteTeamUsersInOrg(ctx: DbContext, orgId: number, uid: number): Promise<void> {
  await TeamUserModel.destroy({ where: { orgId, uid }, transaction: ctx.tx });
}

/** Remove every member of a team; returns the ids of the former members. */
export async function deleteTeamUsersOfTeam(ctx: DbContext, teamId: number): Promise<number[]> {
  const rows = await TeamUserModel.findAll({ where: { teamId }, attributes: ['uid'], transaction: ctx.tx });
  await TeamUserModel.destroy({ where: { teamId }, transaction: ctx.tx });
  return rows.map((r) => r.uid);
}

/** Remove every team membership in an organization (when it is deleted). */
export async function deleteTeamUsersOfOrg(ctx: DbContext, orgId: number): Promise<void> {
  await TeamUserModel.destroy({ where: { orgId }, transaction: ctx.tx });
}

/** Number of members of a team. */
export function countTeamMembers(ctx: DbContext, teamId: number): Promise<number> {
  return TeamUserModel.count({ where: { teamId }, transaction: ctx.tx });
}

/** Number of teams of an organization `uid` is in. */
export function countTeamsOfUserInOrg(ctx: DbContext, orgId: number, uid: number): Promise<number> {
  return TeamUserModel.count({ where: { orgId, uid }, transaction: ctx.tx });
}

/** One page of a team's members, by name. */
export async function listTeamMembers(ctx: DbContext, teamId: number, limit: number, offset: number): Promise<{ rows: UserModel[]; count: number }> {
  const rows = await TeamUserModel.findAll({ where: { teamId }, attributes: ['uid'], transaction: ctx.tx });
  const ids = rows.map((r) => r.uid);
  if (ids.length === 0) return { rows: [], count: 0 };
  const users = await UserModel.findAll({ where: { id: { [Op.in]: ids } }, order: [['lowerName', 'ASC']], limit, offset, transaction: ctx.tx });
  return { rows: users, count: ids.length };
}

/** Ids of the members of an organization who may create its repositories (owners, and teams allowed to). */
export async function orgRepoCreatorIds(ctx: DbContext, orgId: number): Promise<number[]> {
  const rows = await db().query<{ uid: number }>(
    `SELECT DISTINCT tu.uid FROM team_user tu JOIN team t ON t.id = tu.team_id
     WHERE tu.org_id = :orgId AND (t.can_create_org_repo = :yes OR t.authorize = ${AccessMode.Owner})`,
    { type: QueryTypes.SELECT, replacements: { orgId, yes: true }, transaction: ctx.tx },
  );
  return rows.map((r) => Number(r.uid));
}
