/** A GPG key or subkey of a user; subkeys point at their primary by primary_key_id. */
import type { DbContext } from '../db';
import { Op } from 'sequelize';
import { Table, Column, Model, DataType } from 'sequelize-typescript';

@Table({ tableName: 'gpg_key', underscored: true, timestamps: true })
export class GpgKeyModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare ownerId: number;
  @Column({ type: DataType.STRING(16), allowNull: false }) declare keyId: string;
  @Column({ type: DataType.STRING(16), allowNull: false, defaultValue: '' }) declare primaryKeyId: string;
  @Column({ type: DataType.TEXT, allowNull: false }) declare content: string;
  @Column({ type: DataType.TEXT, allowNull: false, defaultValue: '[]' }) declare emails: string;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare verified: boolean;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare canSign: boolean;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare canEncryptComms: boolean;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare canEncryptStorage: boolean;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare canCertify: boolean;
  @Column({ type: DataType.DATE, allowNull: true }) declare keyCreatedAt: Date | null;
  @Column({ type: DataType.DATE, allowNull: true }) declare expiresAt: Date | null;
  declare createdAt: Date;
  declare updatedAt: Date;
}

/** Columns of a new gpg_key row. */
export type NewGpgKeyRow = Pick<GpgKeyModel, 'ownerId' | 'keyId' | 'primaryKeyId' | 'content' | 'emails' | 'verified' | 'canSign'
  | 'canEncryptComms' | 'canEncryptStorage' | 'canCertify' | 'keyCreatedAt' | 'expiresAt'>;

/** One page of a user's primary GPG keys, oldest first. */
export function listPrimaryGpgKeysOf(ctx: DbContext, ownerId: number, limit: number, offset: number): Promise<{ rows: GpgKeyModel[]; count: number }> {
  return GpgKeyModel.findAndCountAll({ where: { ownerId, primaryKeyId: '' }, order: [['id', 'ASC']], limit, offset, transaction: ctx.tx });
}

/** The subkeys of these primary key ids. */
export function listGpgSubkeys(ctx: DbContext, primaryKeyIds: string[]): Promise<GpgKeyModel[]> {
  if (!primaryKeyIds.length) return Promise.resolve([]);
  return GpgKeyModel.findAll({ where: { primaryKeyId: { [Op.in]: primaryKeyIds } }, order: [['id', 'ASC']], transaction: ctx.tx });
}

/** A primary GPG key of `ownerId` by id. */
export function findPrimaryGpgKeyOf(ctx: DbContext, ownerId: number, id: number): Promise<GpgKeyModel | null> {
  return GpgKeyModel.findOne({ where: { id, ownerId, primaryKeyId: '' }, transaction: ctx.tx });
}

/** A primary GPG key of `ownerId` by its key id. */
export function findPrimaryGpgKeyOfByKeyId(ctx: DbContext, ownerId: number, keyId: string): Promise<GpgKeyModel | null> {
  return GpgKeyModel.findOne({ where: { keyId, ownerId, primaryKeyId: '' }, transaction: ctx.tx });
}

/** Any key or subkey with one of these key ids. */
export function findGpgKeyByKeyIds(ctx: DbContext, keyIds: string[]): Promise<GpgKeyModel | null> {
  return GpgKeyModel.findOne({ where: { keyId: { [Op.in]: keyIds } }, transaction: ctx.tx });
}

/** Insert a key or subkey row. */
export function insertGpgKey(ctx: DbContext, row: NewGpgKeyRow): Promise<GpgKeyModel> {
  return GpgKeyModel.create(row, { transaction: ctx.tx });
}

/** Mark a primary key (and its subkeys) as verified by a signature. */
export async function markGpgKeyVerified(ctx: DbContext, keyId: string): Promise<void> {
  await GpgKeyModel.update({ verified: true }, { where: { [Op.or]: [{ keyId }, { primaryKeyId: keyId }] }, transaction: ctx.tx });
}

/** Delete a primary key and its subkeys. */
export async function deleteGpgKeyWithSubkeys(ctx: DbContext, keyId: string): Promise<void> {
  await GpgKeyModel.destroy({ where: { [Op.or]: [{ keyId }, { primaryKeyId: keyId }] }, transaction: ctx.tx });
}

/** Every key and subkey row of these owners (for signature verification). */
export function listGpgKeysOfOwners(ctx: DbContext, ownerIds: number[]): Promise<GpgKeyModel[]> {
  if (!ownerIds.length) return Promise.resolve([]);
  return GpgKeyModel.findAll({ where: { ownerId: { [Op.in]: ownerIds } }, order: [['id', 'ASC']], transaction: ctx.tx });
}
