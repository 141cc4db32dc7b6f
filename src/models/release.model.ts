/**
 * Gitea's release table. Push processing keeps one tag-only row (`is_tag`) per git tag; real
 * releases (a later issue) share the table, as in Gitea.
 */
import type { DbContext } from '../db';
import { Op, type WhereOptions } from 'sequelize';
import { Table, Column, Model, DataType } from 'sequelize-typescript';

@Table({ tableName: 'release', underscored: true, timestamps: true })
export class ReleaseModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare repoId: number;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare publisherId: number;
  @Column({ type: DataType.STRING(255), allowNull: false }) declare tagName: string;
  @Column({ type: DataType.STRING(255), allowNull: false }) declare lowerTagName: string;
  @Column({ type: DataType.STRING(255), allowNull: false, defaultValue: '' }) declare target: string;
  @Column({ type: DataType.STRING(255), allowNull: false, defaultValue: '' }) declare title: string;
  @Column({ type: DataType.STRING(64), allowNull: false, defaultValue: '' }) declare sha1: string;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare numCommits: number;
  @Column({ type: DataType.TEXT, allowNull: false, defaultValue: '' }) declare note: string;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare isDraft: boolean;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare isPrerelease: boolean;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare isTag: boolean;
  /** A migrated release's publisher on its source, when no local user is that person (Gitea's original_author). */
  @Column({ type: DataType.STRING(255), allowNull: false, defaultValue: '' }) declare originalAuthor: string;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare originalAuthorId: number;
  declare createdAt: Date;
  declare updatedAt: Date;
}

/**
 * Rows that may stand for a git tag: published releases, tag-only rows, and drafts whose tag was
 * pushed meanwhile (a row stands for a tag when its sha1 is set).
 * why: a draft row that a pushed tag filled in must count as recorded, or every sync would record it again.
 */
export function listTaggedReleases(ctx: DbContext, repoId: number): Promise<ReleaseModel[]> {
  return ReleaseModel.findAll({ where: { repoId, sha1: { [Op.ne]: '' } }, order: [['id', 'ASC']], transaction: ctx.tx });
}

/** Record that tag `name` points at `sha1`: update its row, or add a tag-only row. */
export async function upsertTagRelease(ctx: DbContext, repoId: number, name: string, sha1: string, publisherId: number): Promise<void> {
  const [n] = await ReleaseModel.update({ sha1 }, { where: { repoId, tagName: name }, transaction: ctx.tx });
  if (n === 0) {
    await ReleaseModel.create({ repoId, tagName: name, lowerTagName: name.toLowerCase(), sha1, publisherId, isTag: true }, { transaction: ctx.tx });
  }
}

/** A tag is gone: drop its tag-only row; a real release keeps its text but loses the commit. */
export async function removeTagRelease(ctx: DbContext, repoId: number, name: string): Promise<void> {
  await ReleaseModel.destroy({ where: { repoId, tagName: name, isTag: true }, transaction: ctx.tx });
  await ReleaseModel.update({ sha1: '' }, { where: { repoId, tagName: name }, transaction: ctx.tx });
}

/** A row of the repository by id (tag-only rows included), or null. */
export function findReleaseById(ctx: DbContext, repoId: number, id: number): Promise<ReleaseModel | null> {
  return ReleaseModel.findOne({ where: { repoId, id }, transaction: ctx.tx });
}

/** The row of a tag name (release, draft or tag-only), or null. */
export function findReleaseByTag(ctx: DbContext, repoId: number, tagName: string): Promise<ReleaseModel | null> {
  return ReleaseModel.findOne({ where: { repoId, tagName }, transaction: ctx.tx });
}

/** Filters of a release listing (tag-only rows are never listed). */
export interface ReleaseFilter { includeDrafts: boolean; draft?: boolean; prerelease?: boolean }

function releaseWhere(repoId: number, f: ReleaseFilter): WhereOptions {
  const and: WhereOptions[] = [{ repoId }, { isTag: false }];
  if (!f.includeDrafts) and.push({ isDraft: false });
  if (f.draft !== undefined) and.push({ isDraft: f.draft });
  if (f.prerelease !== undefined) and.push({ isPrerelease: f.prerelease });
  return { [Op.and]: and };
}

/** One page of releases, newest first (Gitea: created DESC, id DESC), with the filtered total. */
export async function listReleases(ctx: DbContext, repoId: number, f: ReleaseFilter, limit: number, offset: number): Promise<{ rows: ReleaseModel[]; count: number }> {
  const where = releaseWhere(repoId, f);
  const rows = await ReleaseModel.findAll({ where, order: [['createdAt', 'DESC'], ['id', 'DESC']], limit, offset, transaction: ctx.tx });
  const count = await ReleaseModel.count({ where, transaction: ctx.tx });
  return { rows, count };
}

/** The newest published release that is not a pre-release, or null. */
export function findLatestRelease(ctx: DbContext, repoId: number): Promise<ReleaseModel | null> {
  return ReleaseModel.findOne({
    where: { repoId, isTag: false, isDraft: false, isPrerelease: false }, order: [['createdAt', 'DESC'], ['id', 'DESC']], transaction: ctx.tx,
  });
}

/** The fields of a new release row. */
export interface NewRelease {
  publisherId: number; tagName: string; target: string; title: string; sha1: string; note: string;
  isDraft: boolean; isPrerelease: boolean; isTag: boolean;
}

/** Insert a release row. */
export function insertRelease(ctx: DbContext, repoId: number, r: NewRelease): Promise<ReleaseModel> {
  return ReleaseModel.create({ repoId, ...r, lowerTagName: r.tagName.toLowerCase() }, { transaction: ctx.tx });
}

/** Save a changed release row (keeps lower_tag_name in step with tag_name). */
export async function saveRelease(ctx: DbContext, row: ReleaseModel): Promise<void> {
  row.lowerTagName = row.tagName.toLowerCase();
  await row.save({ transaction: ctx.tx });
}

/** Delete a release row. */
export async function deleteReleaseRow(ctx: DbContext, id: number): Promise<void> {
  await ReleaseModel.destroy({ where: { id }, transaction: ctx.tx });
}
