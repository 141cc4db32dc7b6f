/** Gitea's attachment table: uploaded files (release assets), stored on disk under their uuid. */
import type { DbContext } from '../db';
import { Op, literal } from 'sequelize';
import { Table, Column, Model, DataType } from 'sequelize-typescript';

@Table({ tableName: 'attachment', underscored: true, timestamps: true })
export class AttachmentModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.STRING(40), allowNull: false }) declare uuid: string;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare repoId: number;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare issueId: number;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare releaseId: number;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare commentId: number;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare uploaderId: number;
  @Column({ type: DataType.STRING(255), allowNull: false }) declare name: string;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare downloadCount: number;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare size: number;
  declare createdAt: Date;
  declare updatedAt: Date;
}

/** A new attachment row. */
export interface NewAttachment { uuid: string; repoId: number; releaseId: number; uploaderId: number; name: string; size: number }

/** Insert an attachment row. */
export function insertAttachment(ctx: DbContext, a: NewAttachment): Promise<AttachmentModel> {
  return AttachmentModel.create({ ...a }, { transaction: ctx.tx });
}

/** The attachments of the given releases, oldest first. */
export function listReleaseAttachments(ctx: DbContext, releaseIds: number[]): Promise<AttachmentModel[]> {
  if (releaseIds.length === 0) return Promise.resolve([]);
  return AttachmentModel.findAll({ where: { releaseId: { [Op.in]: releaseIds } }, order: [['id', 'ASC']], transaction: ctx.tx });
}

/** An attachment of a release by id, or null. */
export function findReleaseAttachment(ctx: DbContext, releaseId: number, id: number): Promise<AttachmentModel | null> {
  return AttachmentModel.findOne({ where: { releaseId, id }, transaction: ctx.tx });
}

/** An attachment by uuid, or null. */
export function findAttachmentByUuid(ctx: DbContext, uuid: string): Promise<AttachmentModel | null> {
  return AttachmentModel.findOne({ where: { uuid }, transaction: ctx.tx });
}

/** Rename an attachment. */
export async function renameAttachment(ctx: DbContext, row: AttachmentModel, name: string): Promise<void> {
  row.name = name;
  await row.save({ transaction: ctx.tx });
}

/** Count one more download. */
export async function countAttachmentDownload(ctx: DbContext, id: number): Promise<void> {
  await AttachmentModel.increment({ downloadCount: 1 }, { where: { id }, transaction: ctx.tx });
}

/** Delete attachment rows by id. */
export async function deleteAttachmentRows(ctx: DbContext, ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  await AttachmentModel.destroy({ where: { id: { [Op.in]: ids } }, transaction: ctx.tx });
}

/** The uuids of every attachment of the given repositories (their files go when the repositories go). */
export async function attachmentUuidsOfRepos(ctx: DbContext, repoIds: number[]): Promise<string[]> {
  if (repoIds.length === 0) return [];
  const rows = await AttachmentModel.findAll({ where: { repoId: { [Op.in]: repoIds } }, attributes: ['uuid'], transaction: ctx.tx });
  return rows.map((r) => r.uuid);
}

/** The uuids of every attachment in the repositories an owner has. */
export async function attachmentUuidsOfOwner(ctx: DbContext, ownerId: number): Promise<string[]> {
  const rows = await AttachmentModel.findAll({
    where: { repoId: { [Op.in]: literal(`(SELECT id FROM repository WHERE owner_id = ${Number(ownerId)})`) } }, attributes: ['uuid'], transaction: ctx.tx,
  });
  return rows.map((r) => r.uuid);
}

/** The attachments of issues (not of their comments), oldest first. */
export function listIssueAttachments(ctx: DbContext, issueIds: number[]): Promise<AttachmentModel[]> {
  if (issueIds.length === 0) return Promise.resolve([]);
  return AttachmentModel.findAll({ where: { issueId: { [Op.in]: issueIds }, commentId: 0 }, order: [['id', 'ASC']], transaction: ctx.tx });
}

/** The attachments of comments, oldest first. */
export function listCommentAttachments(ctx: DbContext, commentIds: number[]): Promise<AttachmentModel[]> {
  if (commentIds.length === 0) return Promise.resolve([]);
  return AttachmentModel.findAll({ where: { commentId: { [Op.in]: commentIds } }, order: [['id', 'ASC']], transaction: ctx.tx });
}

/** The uuids of the attachments of issues and their comments, and delete their rows. */
export async function deleteIssueAttachments(ctx: DbContext, issueIds: number[]): Promise<string[]> {
  if (issueIds.length === 0) return [];
  const rows = await AttachmentModel.findAll({ where: { issueId: { [Op.in]: issueIds } }, attributes: ['id', 'uuid'], transaction: ctx.tx });
  await deleteAttachmentRows(ctx, rows.map((r) => r.id));
  return rows.map((r) => r.uuid);
}

/** A new attachment of an issue (commentId 0) or of one of its comments. */
export interface NewIssueAttachment { uuid: string; repoId: number; issueId: number; commentId: number; uploaderId: number; name: string; size: number }

/** Insert an attachment row of an issue or comment. */
export function insertIssueAttachment(ctx: DbContext, a: NewIssueAttachment): Promise<AttachmentModel> {
  return AttachmentModel.create({ ...a }, { transaction: ctx.tx });
}

/** An attachment by id, or null. */
export function findAttachmentById(ctx: DbContext, id: number): Promise<AttachmentModel | null> {
  if (!Number.isSafeInteger(id)) return Promise.resolve(null);
  return AttachmentModel.findByPk(id, { transaction: ctx.tx });
}
