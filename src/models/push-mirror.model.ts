/**
 * A push mirror (Gitea's `push_mirror`): the remote a repository's branches and tags are pushed to,
 * named `remote_mirror_<random>`, its address without userinfo and the credentials sealed with the
 * instance secret, its interval in seconds (0 = only on demand or on commit), and the outcome of
 * its last push. next_update_unix is when the schedule pushes next (0 = not scheduled).
 */
import { Op } from 'sequelize';
import { Table, Column, Model, DataType } from 'sequelize-typescript';
import type { DbContext } from '../db';

@Table({ tableName: 'push_mirror', underscored: true, timestamps: false })
export class PushMirrorModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare repoId: number;
  @Column({ type: DataType.STRING(64), allowNull: false }) declare remoteName: string;
  @Column({ type: DataType.STRING(2048), allowNull: false, defaultValue: '' }) declare remoteAddress: string;
  @Column({ type: DataType.TEXT, allowNull: false, defaultValue: '' }) declare credentials: string;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: true }) declare syncOnCommit: boolean;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare interval: number;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare createdUnix: number;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare lastUpdateUnix: number;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare nextUpdateUnix: number;
  @Column({ type: DataType.TEXT, allowNull: false, defaultValue: '' }) declare lastError: string;
}

/** What a new push mirror starts with. */
export type NewPushMirror = Pick<PushMirrorModel, 'repoId' | 'remoteName' | 'remoteAddress' | 'credentials' | 'syncOnCommit' | 'interval' | 'createdUnix' | 'nextUpdateUnix'>;

/** Record a push mirror. */
export function insertPushMirror(ctx: DbContext, m: NewPushMirror): Promise<PushMirrorModel> {
  return PushMirrorModel.create({ ...m }, { transaction: ctx.tx });
}

/** A page of a repository's push mirrors, oldest first, with their count. */
export async function listPushMirrors(ctx: DbContext, repoId: number, offset: number, limit: number): Promise<{ rows: PushMirrorModel[]; count: number }> {
  return PushMirrorModel.findAndCountAll({ where: { repoId }, order: [['id', 'ASC']], offset, limit, transaction: ctx.tx });
}

/** Every push mirror of a repository. */
export function pushMirrorsOfRepo(ctx: DbContext, repoId: number, onlySyncOnCommit = false): Promise<PushMirrorModel[]> {
  return PushMirrorModel.findAll({ where: { repoId, ...(onlySyncOnCommit ? { syncOnCommit: true } : {}) }, order: [['id', 'ASC']], transaction: ctx.tx });
}

/** A push mirror by its repository and remote name, or null. */
export function findPushMirror(ctx: DbContext, repoId: number, remoteName: string): Promise<PushMirrorModel | null> {
  return PushMirrorModel.findOne({ where: { repoId, remoteName }, transaction: ctx.tx });
}

/** A push mirror by id, or null. */
export function findPushMirrorById(ctx: DbContext, id: number): Promise<PushMirrorModel | null> {
  return PushMirrorModel.findByPk(id, { transaction: ctx.tx });
}

/** Delete a repository's push mirror by remote name; how many rows went. */
export function deletePushMirror(ctx: DbContext, repoId: number, remoteName: string): Promise<number> {
  return PushMirrorModel.destroy({ where: { repoId, remoteName }, transaction: ctx.tx });
}

/** Up to `limit` push mirrors whose scheduled push is due at `now`, longest waiting first. */
export function duePushMirrors(ctx: DbContext, now: number, limit: number): Promise<PushMirrorModel[]> {
  return PushMirrorModel.findAll({
    where: { nextUpdateUnix: { [Op.gt]: 0, [Op.lte]: now } }, order: [['nextUpdateUnix', 'ASC']], limit, transaction: ctx.tx,
  });
}

/** Move a due push mirror's schedule from `seen` to `next`; false when another node moved it first. */
export async function claimPushMirrorSchedule(ctx: DbContext, id: number, seen: number, next: number): Promise<boolean> {
  const [n] = await PushMirrorModel.update({ nextUpdateUnix: next }, { where: { id, nextUpdateUnix: seen }, transaction: ctx.tx });
  return n === 1;
}

/** Store a push's outcome and when the schedule pushes next (0: not scheduled). */
export async function recordPushMirrorOutcome(ctx: DbContext, id: number, o: { lastUpdateUnix: number; lastError: string; nextUpdateUnix: number }): Promise<void> {
  await PushMirrorModel.update(o, { where: { id }, transaction: ctx.tx });
}
