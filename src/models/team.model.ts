/** A team of an organization; authorize is an access mode (1 read .. 4 owner). */
import { Op, literal, type WhereOptions } from 'sequelize';
import { Table, Column, Model, DataType } from 'sequelize-typescript';
import type { DbContext } from '../db';
import { TeamUserModel } from './team-user.model';

@Table({ tableName: 'team', underscored: true, timestamps: true })
export class TeamModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare orgId: number;
  @Column({ type: DataType.STRING(255), allowNull: false }) declare lowerName: string;
  @Column({ type: DataType.STRING(255), allowNull: false }) declare name: string;
  @Column({ type: DataType.STRING(255), allowNull: false, defaultValue: '' }) declare description: string;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 1 }) declare authorize: number;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare includesAllRepositories: boolean;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare canCreateOrgRepo: boolean;
}

/** The name of the team whose members own the organization. */
export const OWNER_TEAM_NAME = 'Owners';

/** Columns of a new team. */
export interface NewTeamRow {
  orgId: number;
  name: string;
  description: string;
  authorize: number;
  includesAllRepositories: boolean;
  canCreateOrgRepo: boolean;
}

/** A team by id. */
export function findTeamById(ctx: DbContext, id: number): Promise<TeamModel | null> {
  return TeamModel.findByPk(id, { transaction: ctx.tx });
}

/** A team of an organization by name, case-insensitively. */
export function findTeamByName(ctx: DbContext, orgId: number, name: string): Promise<TeamModel | null> {
  return TeamModel.findOne({ where: { orgId, lowerName: name.toLowerCase() }, transaction: ctx.tx });
}

/** The Owners team of an organization. */
export function findOwnerTeam(ctx: DbContext, orgId: number): Promise<TeamModel | null> {
  return findTeamByName(ctx, orgId, OWNER_TEAM_NAME);
}

/** Insert a team. */
export function insertTeam(ctx: DbContext, row: NewTeamRow): Promise<TeamModel> {
  return TeamModel.create({ ...row, lowerName: row.name.toLowerCase() }, { transaction: ctx.tx });
}

/** Write changed columns of a team. */
export async function saveTeam(ctx: DbContext, team: TeamModel): Promise<void> {
  team.lowerName = team.name.toLowerCase();
  await team.save({ transaction: ctx.tx });
}

/** Delete a team row. */
export async function deleteTeamRow(ctx: DbContext, teamId: number): Promise<void> {
  await TeamModel.destroy({ where: { id: teamId }, transaction: ctx.tx });
}

/** Delete every team row of an organization. */
export async function deleteTeamsOfOrg(ctx: DbContext, orgId: number): Promise<void> {
  await TeamModel.destroy({ where: { orgId }, transaction: ctx.tx });
}

/** One page of an organization's teams, by name. */
export function listTeamsOfOrg(ctx: DbContext, orgId: number, limit: number, offset: number): Promise<{ rows: TeamModel[]; count: number }> {
  return TeamModel.findAndCountAll({ where: { orgId }, order: [['lowerName', 'ASC']], limit, offset, transaction: ctx.tx });
}

async function teamIdsOfUser(ctx: DbContext, uid: number, orgId?: number): Promise<number[]> {
  const rows = await TeamUserModel.findAll({ where: { uid, ...(orgId ? { orgId } : {}) }, attributes: ['teamId'], transaction: ctx.tx });
  return rows.map((r) => r.teamId);
}

/** Search an organization's teams by keyword in the name (and description); only teams of `memberId` when given. */
export async function searchTeams(
  ctx: DbContext, orgId: number, q: { keyword: string; includeDesc: boolean; memberId: number | null }, limit: number, offset: number,
): Promise<{ rows: TeamModel[]; count: number }> {
  const where: WhereOptions[] = [{ orgId }];
  if (q.memberId !== null) where.push({ id: { [Op.in]: await teamIdsOfUser(ctx, q.memberId, orgId) } });
  if (q.keyword) {
    // why: LIKE wildcards in the keyword are literal (ESCAPE works alike on SQLite and PostgreSQL).
    const seq = TeamModel.sequelize!;
    const pat = seq.escape(`%${q.keyword.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    const like = (col: string) => seq.literal(`lower(${col}) LIKE ${pat} ESCAPE '\\'`);
    where.push(q.includeDesc ? { [Op.or]: [like('lower_name'), like('description')] } : like('lower_name'));
  }
  return TeamModel.findAndCountAll({ where: { [Op.and]: where }, order: [['lowerName', 'ASC']], limit, offset, transaction: ctx.tx });
}

/**
 * One page of the teams `uid` is in, across organizations; with `orgsVisibleTo` (a users-table
 * condition from visibleUsersSql), only those of organizations it lets the caller see.
 */
export async function listTeamsOfUser(ctx: DbContext, uid: number, limit: number, offset: number, orgsVisibleTo?: string): Promise<{ rows: TeamModel[]; count: number }> {
  const ids = await teamIdsOfUser(ctx, uid);
  if (ids.length === 0) return { rows: [], count: 0 };
  const where: WhereOptions[] = [{ id: { [Op.in]: ids } }];
  if (orgsVisibleTo) where.push({ orgId: { [Op.in]: literal(`(SELECT id FROM users WHERE ${orgsVisibleTo})`) } });
  return TeamModel.findAndCountAll({ where: { [Op.and]: where }, order: [['orgId', 'ASC'], ['lowerName', 'ASC']], limit, offset, transaction: ctx.tx });
}

/** Teams by id. */
export function teamsByIds(ctx: DbContext, ids: number[]): Promise<TeamModel[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return TeamModel.findAll({ where: { id: { [Op.in]: [...new Set(ids)] } }, transaction: ctx.tx });
}

/** The teams of `uid` in one organization. */
export async function teamsOfUserInOrg(ctx: DbContext, orgId: number, uid: number): Promise<TeamModel[]> {
  const ids = await teamIdsOfUser(ctx, uid, orgId);
  if (ids.length === 0) return [];
  return TeamModel.findAll({ where: { id: { [Op.in]: ids } }, transaction: ctx.tx });
}

/**
 * The teams of an organization that reach a repository (linked to it, or including every
 * repository), the Owners team first and then by name, as Gitea's GetRepoTeams lists them.
 */
export function listTeamsOfRepo(ctx: DbContext, orgId: number, repoId: number): Promise<TeamModel[]> {
  return TeamModel.findAll({
    where: {
      orgId,
      [Op.or]: [{ includesAllRepositories: true }, { id: { [Op.in]: literal(`(SELECT team_id FROM team_repo WHERE repo_id = ${Number(repoId)})`) } }],
    },
    order: [[literal(`CASE WHEN lower_name = '${OWNER_TEAM_NAME.toLowerCase()}' THEN 0 ELSE 1 END`), 'ASC'], ['lowerName', 'ASC']],
    transaction: ctx.tx,
  });
}
