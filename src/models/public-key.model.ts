/** An SSH public key of a user (type 1) or a deploy key (type 2). */
import type { DbContext } from '../db';
import { Op } from 'sequelize';
import { Table, Column, Model, DataType } from 'sequelize-typescript';

/** Kinds of public_key rows (Gitea's KeyType). */
export enum PublicKeyType { User = 1, Deploy = 2, Principal = 3 }

/** Access mode of a key: 1 read, 2 write (user keys are always write). */
export enum PublicKeyMode { Read = 1, Write = 2 }

@Table({ tableName: 'public_key', underscored: true, timestamps: true })
export class PublicKeyModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare ownerId: number;
  @Column({ type: DataType.STRING(255), allowNull: false }) declare name: string;
  @Column({ type: DataType.STRING(255), allowNull: false }) declare fingerprint: string;
  @Column({ type: DataType.TEXT, allowNull: false }) declare content: string;
  @Column({ type: DataType.STRING(32), allowNull: false }) declare keyType: string;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 2 }) declare mode: number;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 1 }) declare type: number;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare verified: boolean;
  @Column({ type: DataType.DATE, allowNull: true }) declare lastUsedAt: Date | null;
  declare createdAt: Date;
  declare updatedAt: Date;
}

/** One page of a user's own SSH keys (principal keys excluded), oldest first; optionally one fingerprint. */
export function listUserPublicKeys(ctx: DbContext, ownerId: number, limit: number, offset: number, fingerprint?: string): Promise<{ rows: PublicKeyModel[]; count: number }> {
  const where = { ownerId, type: PublicKeyType.User, ...(fingerprint !== undefined ? { fingerprint } : {}) };
  return PublicKeyModel.findAndCountAll({ where, order: [['id', 'ASC']], limit, offset, transaction: ctx.tx });
}

/** A user key of `ownerId` by id. */
export function findUserPublicKey(ctx: DbContext, ownerId: number, id: number): Promise<PublicKeyModel | null> {
  return PublicKeyModel.findOne({ where: { id, ownerId, type: PublicKeyType.User }, transaction: ctx.tx });
}

/** Any key (user or deploy) with this fingerprint. */
export function findPublicKeyByFingerprint(ctx: DbContext, fingerprint: string): Promise<PublicKeyModel | null> {
  return PublicKeyModel.findOne({ where: { fingerprint }, transaction: ctx.tx });
}

/** A user key of `ownerId` with this title. */
export function findUserPublicKeyByName(ctx: DbContext, ownerId: number, name: string): Promise<PublicKeyModel | null> {
  return PublicKeyModel.findOne({ where: { ownerId, name, type: PublicKeyType.User }, transaction: ctx.tx });
}

/** Insert a key row. */
export function insertPublicKey(ctx: DbContext, row: { ownerId: number; name: string; fingerprint: string; content: string; keyType: string; mode: number; type: number }): Promise<PublicKeyModel> {
  return PublicKeyModel.create(row, { transaction: ctx.tx });
}

/** Delete a key row by id. */
export async function deletePublicKeyById(ctx: DbContext, id: number): Promise<void> {
  await PublicKeyModel.destroy({ where: { id }, transaction: ctx.tx });
}

/** Set last_used_at unless it was set within the last minute (one write per key per minute). */
export async function touchPublicKey(ctx: DbContext, id: number, now: Date): Promise<void> {
  const cutoff = new Date(now.getTime() - 60_000);
  await PublicKeyModel.update(
    { lastUsedAt: now },
    { where: { id, [Op.or]: [{ lastUsedAt: null }, { lastUsedAt: { [Op.lt]: cutoff } }] }, transaction: ctx.tx, silent: true },
  );
}

/** A key by id, whoever owns it (for system work such as the SSH server and tests). */
export function findPublicKeyById(ctx: DbContext, id: number): Promise<PublicKeyModel | null> {
  return PublicKeyModel.findByPk(id, { transaction: ctx.tx });
}

/** User keys (not deploy or principal keys) with one of these fingerprints. */
export function listUserKeysByFingerprints(ctx: DbContext, fingerprints: string[]): Promise<PublicKeyModel[]> {
  if (!fingerprints.length) return Promise.resolve([]);
  return PublicKeyModel.findAll({ where: { fingerprint: { [Op.in]: fingerprints }, type: PublicKeyType.User }, transaction: ctx.tx });
}
