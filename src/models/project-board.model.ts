/**
 * A project's columns (Gitea's `project_board` table, its Column): title, colour, place among the
 * columns (`sorting`, then id) and the default column, where cards go that have no other (a new
 * card from the sidebar, the cards of a deleted column).
 */
import { Op } from 'sequelize';
import { Table, Column, Model, DataType } from 'sequelize-typescript';
import { db, type DbContext } from '../db';
import { nowUnix } from './issue.model';

@Table({ tableName: 'project_board', underscored: true, timestamps: false })
export class ProjectBoardModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.STRING(255), allowNull: false, defaultValue: '' }) declare title: string;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare default: boolean;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare sorting: number;
  /** `#rrggbb`, or empty for none. */
  @Column({ type: DataType.STRING(7), allowNull: false, defaultValue: '' }) declare color: string;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare projectId: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare creatorId: number;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare createdUnix: number;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare updatedUnix: number;
}

/** The fields of a new column. */
export interface NewColumn { projectId: number; title: string; color: string; isDefault: boolean; sorting: number; creatorId: number }

/** Insert columns in the order given. */
export async function insertColumns(ctx: DbContext, cols: NewColumn[]): Promise<ProjectBoardModel[]> {
  const now = nowUnix();
  const out: ProjectBoardModel[] = [];
  // why: one at a time, so their ids follow the order given (the board's tie-break after sorting).
  for (const c of cols) {
    out.push(await ProjectBoardModel.create({
      projectId: c.projectId, title: c.title, color: c.color, default: c.isDefault, sorting: c.sorting, creatorId: c.creatorId, createdUnix: now, updatedUnix: now,
    }, { transaction: ctx.tx }));
  }
  return out;
}

/** A project's columns in their order (read-only values). */
export async function columnsOf(ctx: DbContext, projectId: number): Promise<ProjectBoardModel[]> {
  const rows = await ProjectBoardModel.findAll({ where: { projectId }, order: [['sorting', 'ASC'], ['id', 'ASC']], raw: true, transaction: ctx.tx });
  // why: SQLite gives booleans of raw rows as 0/1.
  for (const r of rows) r.default = Boolean(r.default);
  return rows;
}

/** The columns of several projects (read-only values), by project, each in order. */
export async function columnsOfProjects(ctx: DbContext, projectIds: number[]): Promise<Map<number, ProjectBoardModel[]>> {
  const out = new Map<number, ProjectBoardModel[]>();
  if (projectIds.length === 0) return out;
  const rows = await ProjectBoardModel.findAll({ where: { projectId: { [Op.in]: [...new Set(projectIds)] } }, order: [['sorting', 'ASC'], ['id', 'ASC']], raw: true, transaction: ctx.tx });
  for (const r of rows) {
    r.default = Boolean(r.default);
    out.set(r.projectId, [...(out.get(r.projectId) ?? []), r]);
  }
  return out;
}

/** A column of a project by id, or null. */
export function findColumn(ctx: DbContext, projectId: number, id: number): Promise<ProjectBoardModel | null> {
  if (!Number.isSafeInteger(id) || id < 1) return Promise.resolve(null);
  return ProjectBoardModel.findOne({ where: { id, projectId }, transaction: ctx.tx });
}

/** Save a column's changed fields and bump its update time. */
export async function saveColumn(ctx: DbContext, c: ProjectBoardModel): Promise<void> {
  c.updatedUnix = nowUnix();
  await c.save({ transaction: ctx.tx });
}

/** Delete a column row (its cards must have gone elsewhere first). */
export async function deleteColumnRow(ctx: DbContext, id: number): Promise<void> {
  await ProjectBoardModel.destroy({ where: { id }, transaction: ctx.tx });
}

/** Make `columnId` the project's one default column. */
export async function setDefaultColumn(ctx: DbContext, projectId: number, columnId: number): Promise<void> {
  await db().query('UPDATE project_board SET "default" = (id = :columnId) WHERE project_id = :projectId', { replacements: { projectId, columnId }, transaction: ctx.tx });
}

/** Number the project's columns in the order of `ids` (0, 1, 2 ...). */
export async function setColumnOrder(ctx: DbContext, projectId: number, ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  const cases = ids.map((id, k) => `WHEN ${Math.trunc(id)} THEN ${k}`).join(' ');
  await db().query(`UPDATE project_board SET sorting = CASE id ${cases} ELSE sorting END WHERE project_id = :projectId`, { replacements: { projectId }, transaction: ctx.tx });
}
