/**
 * Gitea's project table: a board of a repository (type 2, `repo_id`) or of a user (type 1) or an
 * organization (type 3, `owner_id`), with its title, Markdown description, the template its columns
 * came from and its open or closed state. Times are Unix seconds.
 */
import { Op, QueryTypes, literal, type WhereOptions } from 'sequelize';
import { Table, Column, Model, DataType } from 'sequelize-typescript';
import { db, type DbContext } from '../db';
import { nowUnix } from './issue.model';

/** Who owns a project (Gitea's project.Type). */
export enum ProjectType { Individual = 1, Repository = 2, Organization = 3 }

/** The columns a new project starts with (Gitea's TemplateType, stored in `board_type`). */
export enum ProjectTemplate { None = 0, BasicKanban = 1, BugTriage = 2 }

@Table({ tableName: 'project', underscored: true, timestamps: false })
export class ProjectModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.STRING(255), allowNull: false }) declare title: string;
  @Column({ type: DataType.TEXT, allowNull: false, defaultValue: '' }) declare description: string;
  /** The user or organization of an owner's project (0 for a repository's). */
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare ownerId: number;
  /** The repository of a repository's project (0 for an owner's). */
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare repoId: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare creatorId: number;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare isClosed: boolean;
  /** The template (Gitea keeps it in `board_type`). */
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0, field: 'board_type' }) declare templateType: ProjectTemplate;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare cardType: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare type: ProjectType;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare createdUnix: number;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare updatedUnix: number;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare closedDateUnix: number;
}

/** Whose projects: a repository's, or an owner's (a user or an organization). */
export type ProjectPlace = { repoId: number } | { ownerId: number };

/** The fields of a new project. */
export interface NewProject { title: string; description: string; creatorId: number; templateType: ProjectTemplate; type: ProjectType; repoId: number; ownerId: number }

/** Insert a project. */
export function insertProject(ctx: DbContext, p: NewProject): Promise<ProjectModel> {
  const now = nowUnix();
  return ProjectModel.create({ ...p, isClosed: false, cardType: 0, createdUnix: now, updatedUnix: now }, { transaction: ctx.tx });
}

const placeWhere = (place: ProjectPlace): WhereOptions => ('repoId' in place
  ? { repoId: place.repoId, type: ProjectType.Repository }
  : { ownerId: place.ownerId, repoId: 0, type: { [Op.ne]: ProjectType.Repository } });

/** A project of `place` by id, or null. */
export function findProject(ctx: DbContext, place: ProjectPlace, id: number): Promise<ProjectModel | null> {
  if (!Number.isSafeInteger(id) || id < 1) return Promise.resolve(null);
  return ProjectModel.findOne({ where: { id, ...placeWhere(place) }, transaction: ctx.tx });
}

/** A project by id wherever it belongs, or null. */
export function findProjectById(ctx: DbContext, id: number): Promise<ProjectModel | null> {
  if (!Number.isSafeInteger(id) || id < 1) return Promise.resolve(null);
  return ProjectModel.findByPk(id, { transaction: ctx.tx });
}

/** Projects by id (read-only values), in no particular order. */
export function projectsByIds(ctx: DbContext, ids: number[]): Promise<ProjectModel[]> {
  const wanted = [...new Set(ids.filter((id) => Number.isSafeInteger(id) && id > 0))];
  if (wanted.length === 0) return Promise.resolve([]);
  return ProjectModel.findAll({ where: { id: { [Op.in]: wanted } }, raw: true, transaction: ctx.tx })
    .then((rows) => rows.map((r) => Object.assign(r, { isClosed: Boolean(r.isClosed) })));
}

/** The orders of the project list (Gitea's `sort`). */
export const PROJECT_SORTS = {
  newest: [['createdUnix', 'DESC'], ['id', 'DESC']], oldest: [['createdUnix', 'ASC'], ['id', 'ASC']],
  recentupdate: [['updatedUnix', 'DESC'], ['id', 'DESC']], leastupdate: [['updatedUnix', 'ASC'], ['id', 'ASC']],
  alphabetically: [['title', 'ASC'], ['id', 'ASC']], reversealphabetically: [['title', 'DESC'], ['id', 'DESC']],
} as const;

/** A LIKE pattern for titles containing `kw` (ignoring case), with `!` escaping its wildcards. */
const containing = (kw: string) => `%${kw.toLowerCase().replace(/[!%_]/g, '!$&')}%`;

/**
 * The condition on a title containing `kw`, ignoring case.
 * why: an explicit escape character, since SQLite's LIKE has none by default and PostgreSQL's is the backslash.
 */
const titleLike = (kw: string): WhereOptions => literal(`LOWER(title) LIKE ${db().escape(containing(kw))} ESCAPE '!'`) as unknown as WhereOptions;

/** A project list's filters. */
export interface ProjectFilter { isClosed?: boolean; keyword?: string; sort: keyof typeof PROJECT_SORTS; limit?: number; offset?: number }

/** One page of the projects of `place` (read-only values) and how many match. */
export async function listProjects(ctx: DbContext, place: ProjectPlace, f: ProjectFilter): Promise<{ rows: ProjectModel[]; count: number }> {
  const and: WhereOptions[] = [placeWhere(place)];
  if (f.isClosed !== undefined) and.push({ isClosed: f.isClosed });
  if (f.keyword) and.push(titleLike(f.keyword));
  const where = { [Op.and]: and };
  const rows = await ProjectModel.findAll({
    where, order: PROJECT_SORTS[f.sort] as unknown as [string, string][], limit: f.limit, offset: f.offset, raw: true, transaction: ctx.tx,
  });
  // why: SQLite gives booleans of raw rows as 0/1.
  for (const r of rows) r.isClosed = Boolean(r.isClosed);
  const count = f.limit === undefined ? rows.length : await ProjectModel.count({ where, transaction: ctx.tx });
  return { rows, count };
}

/** How many open and closed projects `place` has (the list's tabs), in one query. */
export async function countProjectsByState(ctx: DbContext, place: ProjectPlace, keyword?: string): Promise<{ open: number; closed: number }> {
  const repo = 'repoId' in place;
  const rows = await db().query<{ is_closed: boolean | number; n: number | string }>(
    `SELECT is_closed, COUNT(*) AS n FROM project
      WHERE ${repo ? 'repo_id = :id AND type = :repoType' : 'owner_id = :id AND repo_id = 0 AND type <> :repoType'}
        ${keyword ? "AND LOWER(title) LIKE :like ESCAPE '!'" : ''}
      GROUP BY is_closed`,
    {
      replacements: { id: repo ? place.repoId : place.ownerId, repoType: ProjectType.Repository, like: containing(keyword ?? '') },
      type: QueryTypes.SELECT, transaction: ctx.tx,
    },
  );
  const out = { open: 0, closed: 0 };
  for (const r of rows) out[r.is_closed ? 'closed' : 'open'] = Number(r.n);
  return out;
}

/** Save a project's changed columns and bump its update time. */
export async function saveProject(ctx: DbContext, p: ProjectModel): Promise<void> {
  p.updatedUnix = nowUnix();
  await p.save({ transaction: ctx.tx });
}

/** Delete projects with their columns and cards. */
export async function deleteProjectRows(ctx: DbContext, ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  const run = (sql: string) => db().query(sql, { replacements: { ids }, transaction: ctx.tx });
  await run('DELETE FROM project_issue WHERE project_id IN (:ids)');
  await run('DELETE FROM project_board WHERE project_id IN (:ids)');
  await run('DELETE FROM project WHERE id IN (:ids)');
}

/** Delete every project of `place` (a repository or owner going away), with their columns and cards. */
export async function deleteProjectsOf(ctx: DbContext, place: ProjectPlace): Promise<void> {
  const rows = await ProjectModel.findAll({ where: placeWhere(place), attributes: ['id'], raw: true, transaction: ctx.tx });
  await deleteProjectRows(ctx, rows.map((r) => r.id));
}
