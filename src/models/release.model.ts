/**
 * Gitea's release table. Push processing keeps one tag-only row (`is_tag`) per git tag; real
 * releases (a later issue) share the table, as in Gitea.
 */
import type { DbContext } from '../db';
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
  declare createdAt: Date;
  declare updatedAt: Date;
}

/** Rows that stand for a git tag (published releases and tag-only rows; drafts have no tag yet). */
export function listTaggedReleases(ctx: DbContext, repoId: number): Promise<ReleaseModel[]> {
  return ReleaseModel.findAll({ where: { repoId, isDraft: false }, order: [['id', 'ASC']], transaction: ctx.tx });
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
