/**
 * Gitea's `action_runner`: a runner registered at instance (owner 0, repo 0), user or organization
 * (owner), or repository (repo) scope. Its token is kept as a SHA-256 hash; its labels as a JSON list.
 */
import { Op } from 'sequelize';
import { Table, Column, Model, DataType } from 'sequelize-typescript';
import { db, type DbContext } from '../db';
import type { ActionsScope } from './actions-scope';

/** A BIGINT column read as a number. why: PostgreSQL hands BIGINT over as a string. */
export function bigintColumn(name: string) {
  return { type: DataType.BIGINT, allowNull: false, defaultValue: 0, get(this: Model): number { return Number(this.getDataValue(name)); } };
}

@Table({ tableName: 'action_runner', underscored: true, timestamps: false })
export class ActionRunnerModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.STRING(36), allowNull: false }) declare uuid: string;
  @Column({ type: DataType.STRING(255), allowNull: false }) declare name: string;
  @Column({ type: DataType.STRING(64), allowNull: false, defaultValue: '' }) declare version: string;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare ownerId: number;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare repoId: number;
  @Column({ type: DataType.TEXT, allowNull: false, defaultValue: '' }) declare description: string;
  @Column({ type: DataType.STRING(64), allowNull: false }) declare tokenHash: string;
  @Column({ type: DataType.STRING(8), allowNull: false }) declare tokenLastEight: string;
  @Column({ type: DataType.TEXT, allowNull: false, defaultValue: '[]' }) declare agentLabels: string;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare ephemeral: boolean;
  @Column(bigintColumn('lastOnline')) declare lastOnline: number;
  @Column(bigintColumn('lastActive')) declare lastActive: number;
  @Column(bigintColumn('created')) declare created: number;
  @Column(bigintColumn('updated')) declare updated: number;

  /** The labels as a list. */
  labels(): string[] {
    try { return JSON.parse(this.agentLabels) as string[]; } catch { return []; }
  }
}

/** A new runner's row. */
export interface NewRunner extends ActionsScope { uuid: string; name: string; version: string; tokenHash: string; tokenLastEight: string; labels: string[]; ephemeral: boolean; now: number }

/** Store a new runner. */
export function insertRunner(ctx: DbContext, r: NewRunner): Promise<ActionRunnerModel> {
  return ActionRunnerModel.create({
    uuid: r.uuid, name: r.name, version: r.version, ownerId: r.ownerId, repoId: r.repoId, tokenHash: r.tokenHash, tokenLastEight: r.tokenLastEight,
    agentLabels: JSON.stringify(r.labels), ephemeral: r.ephemeral, lastOnline: r.now, created: r.now, updated: r.now,
  }, { transaction: ctx.tx });
}

/** A runner by its UUID, or null. */
export function findRunnerByUuid(ctx: DbContext, uuid: string): Promise<ActionRunnerModel | null> {
  return ActionRunnerModel.findOne({ where: { uuid }, transaction: ctx.tx });
}

/** A runner by id, or null. */
export function findRunnerById(ctx: DbContext, id: number): Promise<ActionRunnerModel | null> {
  return ActionRunnerModel.findByPk(id, { transaction: ctx.tx });
}

/** Runners by id. */
export function findRunnersByIds(ctx: DbContext, ids: number[]): Promise<ActionRunnerModel[]> {
  return ids.length ? ActionRunnerModel.findAll({ where: { id: ids }, transaction: ctx.tx }) : Promise.resolve([]);
}

/** The runners of a scope (all of them for `null`: the instance's view), one page by id, and their number. */
export function listRunners(ctx: DbContext, scope: ActionsScope | null, page: { limit: number; offset: number }): Promise<{ rows: ActionRunnerModel[]; count: number }> {
  return ActionRunnerModel.findAndCountAll({ where: scope ? { ...scope } : {}, order: [['id', 'ASC']], ...page, transaction: ctx.tx });
}

/** The runners of any of several scopes (a repository's own, its owner's and the instance's), one page by id, and their number. */
export function listRunnersOfScopes(ctx: DbContext, scopes: ActionsScope[], page: { limit: number; offset: number }): Promise<{ rows: ActionRunnerModel[]; count: number }> {
  return ActionRunnerModel.findAndCountAll({ where: { [Op.or]: scopes.map((s) => ({ ...s })) }, order: [['id', 'ASC']], ...page, transaction: ctx.tx });
}

/** Set a runner's description. */
export async function setRunnerDescription(ctx: DbContext, id: number, description: string, now: number): Promise<void> {
  await ActionRunnerModel.update({ description, updated: now }, { where: { id }, transaction: ctx.tx });
}

/** Replace a runner's version and labels (Declare). */
export async function declareRunner(ctx: DbContext, id: number, version: string, labels: string[], now: number): Promise<void> {
  await ActionRunnerModel.update({ version, agentLabels: JSON.stringify(labels), updated: now }, { where: { id }, transaction: ctx.tx });
}

/**
 * Write the presence times of runners kept in memory, only forward (another node may have written
 * a later time). why: one statement per few hundred runners, not one per runner: a thousand idle
 * runners come due together.
 */
export async function writeRunnerPresence(ctx: DbContext, rows: { id: number; lastOnline: number; lastActive: number }[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 500) {
    const part = rows.slice(i, i + 500);
    const replacements: Record<string, number> = {};
    part.forEach((r, k) => Object.assign(replacements, { [`i${k}`]: r.id, [`o${k}`]: r.lastOnline, [`a${k}`]: r.lastActive }));
    const forward = (col: string, v: string) => `CASE id ${part.map((_r, k) => `WHEN :i${k} THEN (CASE WHEN ${col} < :${v}${k} THEN :${v}${k} ELSE ${col} END)`).join(' ')} END`;
    await db().query(
      `UPDATE action_runner SET last_online = ${forward('last_online', 'o')}, last_active = ${forward('last_active', 'a')} WHERE id IN (${part.map((_r, k) => `:i${k}`).join(', ')})`,
      { replacements, transaction: ctx.tx },
    );
  }
}

/** Delete a runner; whether there was one. */
export async function deleteRunner(ctx: DbContext, id: number): Promise<boolean> {
  return (await ActionRunnerModel.destroy({ where: { id }, transaction: ctx.tx })) > 0;
}

/** Delete the runners of repositories or owners that are going away. */
export async function deleteRunnersOf(ctx: DbContext, scope: Partial<ActionsScope>): Promise<void> {
  await ActionRunnerModel.destroy({ where: { ...scope }, transaction: ctx.tx });
}
