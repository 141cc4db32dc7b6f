/** A repository a team has access to. */
import { Op } from 'sequelize';
import { Table, Column, Model, DataType } from 'sequelize-typescript';
import type { DbContext } from '../db';
import { RepositoryModel } from './repository.model';

@Table({ tableName: 'team_repo', underscored: true, timestamps: true })
export class TeamRepoModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare orgId: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare teamId: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare repoId: number;
}

/** Is the repository linked to the team? */
export async function hasTeamRepo(ctx: DbContext, teamId: number, repoId: number): Promise<boolean> {
  return (await TeamRepoModel.count({ where: { teamId, repoId }, transaction: ctx.tx })) > 0;
}

/** Link a repository to a team (no-op when linked). */
export async function insertTeamRepo(ctx: DbContext, orgId: number, teamId: number, repoId: number): Promise<void> {
  if (await hasTeamRepo(ctx, teamId, repoId)) return;
  await TeamRepoModel.create({ orgId, teamId, repoId }, { transaction: ctx.tx });
}

/** Unlink a repository from a team. */
export async function deleteTeamRepo(ctx: DbContext, teamId: number, repoId: number): Promise<void> {
  await TeamRepoModel.destroy({ where: { teamId, repoId }, transaction: ctx.tx });
}

/** Unlink a repository from every team. */
export async function deleteTeamReposOfRepo(ctx: DbContext, repoId: number): Promise<void> {
  await TeamRepoModel.destroy({ where: { repoId }, transaction: ctx.tx });
}

/** Unlink every repository of a team. */
export async function deleteTeamReposOfTeam(ctx: DbContext, teamId: number): Promise<void> {
  await TeamRepoModel.destroy({ where: { teamId }, transaction: ctx.tx });
}

/** Unlink every repository of every team of an organization. */
export async function deleteTeamReposOfOrg(ctx: DbContext, orgId: number): Promise<void> {
  await TeamRepoModel.destroy({ where: { orgId }, transaction: ctx.tx });
}

/**
 * One page of a team's repositories, by name. A team that includes all repositories has every
 * repository of its organization (the same rule the permission function uses).
 */
export async function listTeamRepos(
  ctx: DbContext, team: { id: number; orgId: number; includesAllRepositories: boolean }, limit: number, offset: number,
): Promise<{ rows: RepositoryModel[]; count: number }> {
  let where;
  if (team.includesAllRepositories) where = { ownerId: team.orgId };
  else {
    const links = await TeamRepoModel.findAll({ where: { teamId: team.id }, attributes: ['repoId'], transaction: ctx.tx });
    if (links.length === 0) return { rows: [], count: 0 };
    where = { id: { [Op.in]: links.map((l) => l.repoId) } };
  }
  return RepositoryModel.findAndCountAll({ where, order: [['lowerName', 'ASC']], limit, offset, transaction: ctx.tx });
}

/** Ids of the repositories a team reaches (every repository of its organization when it includes all). */
export async function teamRepoIds(ctx: DbContext, orgId: number, teamId: number, includesAll: boolean): Promise<number[]> {
  if (includesAll) {
    const rows = await RepositoryModel.findAll({ where: { ownerId: orgId }, attributes: ['id'], transaction: ctx.tx });
    return rows.map((r) => r.id);
  }
  return (await TeamRepoModel.findAll({ where: { teamId }, transaction: ctx.tx })).map((r) => r.repoId);
}
