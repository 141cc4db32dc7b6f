/**
 * deploy_key rows: one repository's use of a deploy key (a public_key row of type 2 that several
 * repositories may share), with the title and mode chosen for that repository.
 */
import type { DbContext } from '../db';
import { Op, Transaction } from 'sequelize';
import { Table, Column, Model, DataType } from 'sequelize-typescript';
import { PublicKeyModel, PublicKeyType } from './public-key.model';

@Table({ tableName: 'deploy_key', underscored: true, timestamps: true })
export class DeployKeyModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  /** The public_key row holding the key content. */
  @Column({ type: DataType.INTEGER, allowNull: false }) declare keyId: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare repoId: number;
  @Column({ type: DataType.STRING(255), allowNull: false }) declare name: string;
  @Column({ type: DataType.STRING(255), allowNull: false }) declare fingerprint: string;
  /** 1 read, 2 write. */
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 1 }) declare mode: number;
  declare createdAt: Date;
  declare updatedAt: Date;
}

/** Filters of a repository's deploy key list (Gitea's ListDeployKeysOptions). */
export interface DeployKeyFilter { repoId: number; keyId?: number; fingerprint?: string }

/** One page of a repository's deploy keys, oldest first. */
export function listDeployKeys(ctx: DbContext, f: DeployKeyFilter, limit: number, offset: number): Promise<{ rows: DeployKeyModel[]; count: number }> {
  const where = { repoId: f.repoId, ...(f.keyId ? { keyId: f.keyId } : {}), ...(f.fingerprint ? { fingerprint: f.fingerprint } : {}) };
  return DeployKeyModel.findAndCountAll({ where, order: [['id', 'ASC']], limit, offset, transaction: ctx.tx });
}

/** A deploy key by id. */
export function findDeployKeyById(ctx: DbContext, id: number): Promise<DeployKeyModel | null> {
  return DeployKeyModel.findByPk(id, { transaction: ctx.tx });
}

/** The use of public key `keyId` by repository `repoId`, if any. */
export function findDeployKeyOfRepo(ctx: DbContext, keyId: number, repoId: number): Promise<DeployKeyModel | null> {
  return DeployKeyModel.findOne({ where: { keyId, repoId }, transaction: ctx.tx });
}

/** A deploy key of `repoId` titled `name`, if any. */
export function findDeployKeyByName(ctx: DbContext, repoId: number, name: string): Promise<DeployKeyModel | null> {
  return DeployKeyModel.findOne({ where: { repoId, name }, transaction: ctx.tx });
}

/** Does any repository still use public key `keyId`? */
export async function isDeployKeyInUse(ctx: DbContext, keyId: number): Promise<boolean> {
  return (await DeployKeyModel.count({ where: { keyId }, transaction: ctx.tx })) > 0;
}

/** Insert a deploy key row. */
export function insertDeployKey(ctx: DbContext, row: { keyId: number; repoId: number; name: string; fingerprint: string; mode: number }): Promise<DeployKeyModel> {
  return DeployKeyModel.create(row, { transaction: ctx.tx });
}

/**
 * The public_key row of a deploy key, locked until the transaction ends (PostgreSQL). why: adding
 * a repository's use of a key and deleting the key's last use both lock this row first, so a
 * delete never removes a key row that a concurrent addition is about to reference.
 */
export function lockPublicKeyRow(ctx: DbContext, fingerprint: string): Promise<PublicKeyModel | null> {
  return PublicKeyModel.findOne({ where: { fingerprint }, transaction: ctx.tx, ...(ctx.tx ? { lock: Transaction.LOCK.UPDATE } : {}) });
}

/** Delete one deploy key row, and its public_key row when no repository uses that key any more. */
export async function deleteDeployKeyRow(ctx: DbContext, dk: DeployKeyModel): Promise<void> {
  await PublicKeyModel.findByPk(dk.keyId, { transaction: ctx.tx, ...(ctx.tx ? { lock: Transaction.LOCK.UPDATE } : {}) });
  await DeployKeyModel.destroy({ where: { id: dk.id }, transaction: ctx.tx });
  if (!(await isDeployKeyInUse(ctx, dk.keyId))) {
    await PublicKeyModel.destroy({ where: { id: dk.keyId, type: PublicKeyType.Deploy }, transaction: ctx.tx });
  }
}

/** Remove every deploy key of a repository (repository deletion), and key rows left unused. */
export async function deleteDeployKeysOfRepo(ctx: DbContext, repoId: number): Promise<void> {
  const rows = await DeployKeyModel.findAll({ where: { repoId }, order: [['id', 'ASC']], transaction: ctx.tx });
  for (const dk of rows) await deleteDeployKeyRow(ctx, dk);
}

/** Public key rows by id (to show each deploy key's content). */
export function findPublicKeysByIds(ctx: DbContext, ids: number[]): Promise<PublicKeyModel[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return PublicKeyModel.findAll({ where: { id: { [Op.in]: ids } }, transaction: ctx.tx });
}
