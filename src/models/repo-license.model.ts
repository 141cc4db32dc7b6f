/**
 * Gitea's `repo_license`: one row per SPDX license found on a repository's default branch, with the
 * commit it was read from. Replaced whole each time the licenses are detected again.
 */
import { Op } from 'sequelize';
import { Table, Column, Model, DataType } from 'sequelize-typescript';
import type { DbContext } from '../db';

@Table({ tableName: 'repo_license', underscored: true, timestamps: false })
export class RepoLicenseModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare repoId: number;
  @Column({ type: DataType.STRING(64), allowNull: false, defaultValue: '' }) declare commitId: string;
  @Column({ type: DataType.STRING(255), allowNull: false }) declare license: string;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare createdUnix: number;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare updatedUnix: number;
}

/** A repository's license rows, by license name. */
export function listRepoLicenses(ctx: DbContext, repoId: number): Promise<RepoLicenseModel[]> {
  return RepoLicenseModel.findAll({ where: { repoId }, order: [['license', 'ASC']], transaction: ctx.tx });
}


/**
 * Make the repository's rows exactly `licenses` read at `commitId`: rows of other licenses go, kept
 * ones get the new commit, new ones are inserted (Gitea's UpdateRepoLicenses).
 */
export async function replaceRepoLicenses(ctx: DbContext, repoId: number, commitId: string, licenses: string[], now: number): Promise<void> {
  await RepoLicenseModel.destroy({ where: { repoId, license: { [Op.notIn]: licenses.length ? licenses : [''] } }, transaction: ctx.tx });
  if (licenses.length === 0) return;
  await RepoLicenseModel.update({ commitId, updatedUnix: now }, { where: { repoId }, transaction: ctx.tx });
  const have = new Set((await listRepoLicenses(ctx, repoId)).map((r) => r.license));
  const add = licenses.filter((l) => !have.has(l));
  if (add.length) await RepoLicenseModel.bulkCreate(add.map((license) => ({ repoId, commitId, license, createdUnix: now, updatedUnix: now })), { transaction: ctx.tx });
}

/** Copy one repository's rows to another (a fork starts with its parent's licenses, as in Gitea). */
export async function copyRepoLicenses(ctx: DbContext, fromRepoId: number, toRepoId: number, now: number): Promise<void> {
  const rows = await listRepoLicenses(ctx, fromRepoId);
  if (rows.length) await RepoLicenseModel.bulkCreate(rows.map((r) => ({ repoId: toRepoId, commitId: r.commitId, license: r.license, createdUnix: now, updatedUnix: now })), { transaction: ctx.tx });
}
