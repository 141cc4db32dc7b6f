/**
 * A pull mirror (Gitea's `mirror`): its source without userinfo, the credentials sealed with the
 * instance secret, its LFS source, its schedule (next_update_unix, 0 = no scheduled sync) and its
 * consecutive failures. The interval, prune choice and last sync time live on the repository row,
 * which the API shows.
 */
import { Op } from 'sequelize';
import { Table, Column, Model, DataType } from 'sequelize-typescript';
import type { DbContext } from '../db';

@Table({ tableName: 'mirror', underscored: true, timestamps: false })
export class MirrorModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare repoId: number;
  @Column({ type: DataType.STRING(2048), allowNull: false, defaultValue: '' }) declare remoteAddress: string;
  @Column({ type: DataType.TEXT, allowNull: false, defaultValue: '' }) declare credentials: string;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare lfsEnabled: boolean;
  @Column({ type: DataType.STRING(2048), allowNull: false, defaultValue: '' }) declare lfsEndpoint: string;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare nextUpdateUnix: number;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare failures: number;
  @Column({ type: DataType.TEXT, allowNull: false, defaultValue: '' }) declare lastError: string;
}

/** An address as it may be shown and stored: without userinfo, or '' when it does not parse. */
export function addressWithoutUserinfo(raw: string): string {
  try {
    const u = new URL(raw.trim());
    u.username = '';
    u.password = '';
    return u.href;
  } catch {
    return '';
  }
}

/** What a new pull mirror starts with. */
export interface NewMirror { repoId: number; remoteAddress: string; credentials: string; lfsEnabled: boolean; lfsEndpoint: string; nextUpdateUnix: number }

/** Record a pull mirror. */
export async function insertMirror(ctx: DbContext, m: NewMirror): Promise<void> {
  await MirrorModel.create({ ...m }, { transaction: ctx.tx });
}

/** The pull mirror of a repository, or null. */
export function findMirrorOfRepo(ctx: DbContext, repoId: number): Promise<MirrorModel | null> {
  return MirrorModel.findOne({ where: { repoId }, transaction: ctx.tx });
}

/** Up to `limit` mirrors whose scheduled sync is due at `now`, longest waiting first. */
export function dueMirrors(ctx: DbContext, now: number, limit: number): Promise<MirrorModel[]> {
  return MirrorModel.findAll({
    where: { nextUpdateUnix: { [Op.gt]: 0, [Op.lte]: now } }, order: [['nextUpdateUnix', 'ASC']], limit, transaction: ctx.tx,
  });
}

/**
 * Move a due mirror's schedule from `seen` to `next`; false when another node moved it first.
 * why: the guarded update is what makes a scheduled sync start once across the cluster.
 */
export async function claimMirrorSchedule(ctx: DbContext, id: number, seen: number, next: number): Promise<boolean> {
  const [n] = await MirrorModel.update({ nextUpdateUnix: next }, { where: { id, nextUpdateUnix: seen }, transaction: ctx.tx });
  return n === 1;
}

/** Store a sync's outcome: the next scheduled sync, the failures in a row and the last error ('' after a success). */
export async function recordMirrorOutcome(ctx: DbContext, repoId: number, o: { nextUpdateUnix: number; failures: number; lastError: string }): Promise<void> {
  await MirrorModel.update(o, { where: { repoId }, transaction: ctx.tx });
}

/** Set when the next scheduled sync runs (0: none). */
export async function setMirrorSchedule(ctx: DbContext, repoId: number, nextUpdateUnix: number): Promise<void> {
  await MirrorModel.update({ nextUpdateUnix }, { where: { repoId }, transaction: ctx.tx });
}
