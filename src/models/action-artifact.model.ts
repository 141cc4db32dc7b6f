/**
 * Gitea's `action_artifact`: an artifact a job of a run uploads (v4 protocol: one zip per name,
 * `artifact_path` = name + `.zip`, content encoding `application/zip`). Its status moves from
 * pending to confirmed when the upload is finalized, then to expired or pending deletion and
 * deleted, each step a guarded update so two nodes never both act on one row.
 */
import { Op, type WhereOptions } from 'sequelize';
import { Table, Column, Model, DataType } from 'sequelize-typescript';
import type { DbContext } from '../db';
import { bigintColumn } from './action-runner.model';

/** Gitea's artifact statuses. */
export enum ArtifactStatus { UploadPending = 1, UploadConfirmed = 2, UploadError = 3, Expired = 4, PendingDeletion = 5, Deleted = 6 }

/** The content encoding of v4 artifacts. */
export const V4_ENCODING = 'application/zip';

@Table({ tableName: 'action_artifact', underscored: true, timestamps: false })
export class ActionArtifactModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare runId: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare runnerId: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare repoId: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare ownerId: number;
  @Column({ type: DataType.STRING(64), allowNull: false }) declare commitSha: string;
  @Column({ type: DataType.STRING(255), allowNull: false, defaultValue: '' }) declare storagePath: string;
  @Column(bigintColumn('fileSize')) declare fileSize: number;
  @Column(bigintColumn('fileCompressedSize')) declare fileCompressedSize: number;
  @Column({ type: DataType.STRING(64), allowNull: false, defaultValue: '' }) declare contentEncoding: string;
  @Column({ type: DataType.STRING(255), allowNull: false }) declare artifactPath: string;
  @Column({ type: DataType.STRING(255), allowNull: false }) declare artifactName: string;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare status: ArtifactStatus;
  @Column(bigintColumn('created')) declare created: number;
  @Column(bigintColumn('updated')) declare updated: number;
  @Column(bigintColumn('expired')) declare expired: number;
}

/** The fields of an artifact a task starts uploading. */
export type NewArtifact = Pick<ActionArtifactModel, 'runId' | 'runnerId' | 'repoId' | 'ownerId' | 'commitSha' | 'artifactName' | 'expired'>;

/**
 * Start (or restart) the v4 upload of an artifact of a run: a new pending row, or the existing row
 * of that name set back to pending with the new expiry. Returns the row.
 */
export async function upsertPendingArtifact(ctx: DbContext, a: NewArtifact, now: number): Promise<ActionArtifactModel> {
  const where = { runId: a.runId, artifactName: a.artifactName, artifactPath: `${a.artifactName}.zip` };
  const fields = { status: ArtifactStatus.UploadPending, contentEncoding: V4_ENCODING, fileSize: 0, fileCompressedSize: 0, expired: a.expired, updated: now };
  const [n] = await ActionArtifactModel.update(fields, { where, transaction: ctx.tx });
  if (n > 0) return (await ActionArtifactModel.findOne({ where, transaction: ctx.tx }))!;
  return ActionArtifactModel.create({ ...a, ...where, ...fields, created: now }, { transaction: ctx.tx });
}

/** A run's v4 artifact by name, or null. */
export function findRunArtifact(ctx: DbContext, runId: number, name: string): Promise<ActionArtifactModel | null> {
  return ActionArtifactModel.findOne({ where: { runId, artifactName: name, artifactPath: `${name}.zip`, contentEncoding: V4_ENCODING }, transaction: ctx.tx });
}

/** An artifact by id, or null. */
export function findArtifactById(ctx: DbContext, id: number): Promise<ActionArtifactModel | null> {
  return ActionArtifactModel.findByPk(id, { transaction: ctx.tx });
}

/** Record a finished upload: its file, size and confirmation; whether the row was still pending. */
export async function confirmArtifact(ctx: DbContext, id: number, storagePath: string, size: number, now: number): Promise<boolean> {
  const [n] = await ActionArtifactModel.update(
    { storagePath, fileSize: size, fileCompressedSize: size, status: ArtifactStatus.UploadConfirmed, updated: now },
    { where: { id, status: ArtifactStatus.UploadPending }, transaction: ctx.tx },
  );
  return n > 0;
}

/** Filters of artifact listings. */
export interface ArtifactFilter { repoId?: number; runId?: number; name?: string; id?: number; confirmedOnly?: boolean }

/** Finished v4 artifacts (confirmed, or expired too unless `confirmedOnly`), oldest first, one page, and their number. */
export function listArtifacts(ctx: DbContext, f: ArtifactFilter, page?: { limit: number; offset: number }): Promise<{ rows: ActionArtifactModel[]; count: number }> {
  const where: WhereOptions = {
    contentEncoding: V4_ENCODING,
    status: f.confirmedOnly ? ArtifactStatus.UploadConfirmed : [ArtifactStatus.UploadConfirmed, ArtifactStatus.Expired],
    ...(f.repoId ? { repoId: f.repoId } : {}), ...(f.runId ? { runId: f.runId } : {}), ...(f.name ? { artifactName: f.name } : {}), ...(f.id ? { id: f.id } : {}),
  };
  return ActionArtifactModel.findAndCountAll({ where, order: [['id', 'ASC']], ...page, transaction: ctx.tx });
}

/** Move an artifact from one status to another; whether this call did it. */
export async function moveArtifact(ctx: DbContext, id: number, from: ArtifactStatus, to: ArtifactStatus, now: number): Promise<boolean> {
  const [n] = await ActionArtifactModel.update({ status: to, updated: now }, { where: { id, status: from }, transaction: ctx.tx });
  return n > 0;
}

/** Confirmed artifacts past their expiry, and artifacts marked for deletion: what the cleanup removes. */
export function artifactsToRemove(ctx: DbContext, now: number, limit: number): Promise<ActionArtifactModel[]> {
  return ActionArtifactModel.findAll({
    where: { [Op.or]: [{ status: ArtifactStatus.UploadConfirmed, expired: { [Op.gt]: 0, [Op.lt]: now } }, { status: ArtifactStatus.PendingDeletion }] },
    order: [['id', 'ASC']], limit, transaction: ctx.tx,
  });
}

/** Mark the artifacts of runs, or of a repository, for the cleanup to delete (with their runs or repository). */
export async function markArtifactsForDeletion(ctx: DbContext, of: { runIds: number[] } | { repoId: number }, now: number): Promise<void> {
  const where = 'runIds' in of ? { runId: of.runIds } : { repoId: of.repoId };
  if ('runIds' in of && of.runIds.length === 0) return;
  await ActionArtifactModel.update(
    { status: ArtifactStatus.PendingDeletion, updated: now },
    { where: { ...where, status: [ArtifactStatus.UploadPending, ArtifactStatus.UploadConfirmed, ArtifactStatus.Expired] }, transaction: ctx.tx },
  );
}
