/**
 * Links between LFS objects and repositories. The content lives once on disk (content-addressed by
 * oid); a repository may only serve the objects linked to it here.
 */
import { Op } from 'sequelize';
import type { DbContext } from '../db';
import { db, isUniqueViolation } from '../db';
import { Table, Column, Model, DataType } from 'sequelize-typescript';

@Table({ tableName: 'lfs_meta_object', underscored: true, timestamps: false })
export class LfsMetaObjectModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.STRING(255), allowNull: false }) declare oid: string;
  @Column({ type: DataType.BIGINT, allowNull: false }) declare size: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare repositoryId: number;
  @Column({ type: DataType.BIGINT, allowNull: false }) declare createdUnix: number;
  @Column({ type: DataType.BIGINT, allowNull: false }) declare updatedUnix: number;
}

/** The link of `oid` to a repository, or null. */
export async function findLfsMeta(ctx: DbContext, repoId: number, oid: string): Promise<{ oid: string; size: number } | null> {
  const row = await LfsMetaObjectModel.findOne({ where: { repositoryId: repoId, oid }, transaction: ctx.tx });
  return row ? { oid: row.oid, size: Number(row.size) } : null;
}

/** The links of the given objects to a repository, by oid (one query for a whole batch). */
export async function findLfsMetas(ctx: DbContext, repoId: number, oids: string[]): Promise<Map<string, { oid: string; size: number }>> {
  const out = new Map<string, { oid: string; size: number }>();
  if (oids.length === 0) return out;
  const rows = await LfsMetaObjectModel.findAll({ where: { repositoryId: repoId, oid: [...new Set(oids)] }, transaction: ctx.tx });
  for (const r of rows) out.set(r.oid, { oid: r.oid, size: Number(r.size) });
  return out;
}

/**
 * Link `oid` to a repository. why: an existing link (also one a racing request just made) is success,
 * so two uploads of the same object both succeed.
 */
export async function linkLfsMeta(ctx: DbContext, repoId: number, oid: string, size: number): Promise<void> {
  const now = Math.floor(Date.now() / 1000);
  try {
    await LfsMetaObjectModel.create({ repositoryId: repoId, oid, size, createdUnix: now, updatedUnix: now }, { transaction: ctx.tx });
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
  }
}

/** Ids of (at most `limit`) repositories `oid` is linked to, oldest link first. */
export async function repoIdsLinkingLfsObject(ctx: DbContext, oid: string, limit: number): Promise<number[]> {
  const rows = await LfsMetaObjectModel.findAll({ where: { oid }, attributes: ['repositoryId'], order: [['id', 'ASC']], limit, transaction: ctx.tx });
  return rows.map((r) => r.repositoryId);
}

/**
 * Link every LFS object of repository `fromId` to repository `toId` as well (forks and generated
 * repositories serve the objects their copied pointers name, as Gitea's CopyLFS).
 */
export async function copyLfsLinks(ctx: DbContext, fromId: number, toId: number): Promise<void> {
  const now = Math.floor(Date.now() / 1000);
  await db().query(
    `INSERT INTO lfs_meta_object (oid, size, repository_id, created_unix, updated_unix)
     SELECT oid, size, :toId, :now, :now FROM lfs_meta_object WHERE repository_id = :fromId`,
    { replacements: { fromId, toId, now }, transaction: ctx.tx },
  );
}

/** Remove the link of `oid` to a repository (undoing a link made for a change that failed). */
export async function unlinkLfsMeta(ctx: DbContext, repoId: number, oid: string): Promise<void> {
  await LfsMetaObjectModel.destroy({ where: { repositoryId: repoId, oid }, transaction: ctx.tx });
}

/** Links with ids above `afterId`, in id order (a walk over every link, for the doctor). */
export async function listLfsLinksAfter(ctx: DbContext, afterId: number, limit: number): Promise<{ id: number; oid: string; size: number; repositoryId: number }[]> {
  const rows = await LfsMetaObjectModel.findAll({ where: { id: { [Op.gt]: afterId } }, order: [['id', 'ASC']], limit, transaction: ctx.tx });
  return rows.map((r) => ({ id: r.id, oid: r.oid, size: Number(r.size), repositoryId: r.repositoryId }));
}
