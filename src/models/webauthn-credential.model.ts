/** Gitea's `webauthn_credential`: a user's security keys (credential id base64url, COSE public key base64). */
import { Table, Column, Model, DataType } from 'sequelize-typescript';
import type { DbContext } from '../db';

@Table({ tableName: 'webauthn_credential', underscored: true, timestamps: false })
export class WebauthnCredentialModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.STRING(255), allowNull: false, defaultValue: '' }) declare name: string;
  @Column({ type: DataType.STRING(255), allowNull: false, defaultValue: '' }) declare lowerName: string;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare userId: number;
  @Column({ type: DataType.STRING(1024), allowNull: false }) declare credentialId: string;
  @Column({ type: DataType.TEXT, allowNull: false, defaultValue: '' }) declare publicKey: string;
  @Column({ type: DataType.STRING(255), allowNull: false, defaultValue: '' }) declare attestationType: string;
  @Column({ type: DataType.STRING(64), allowNull: false, defaultValue: '' }) declare aaguid: string;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare signCount: number;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare cloneWarning: boolean;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare createdUnix: number;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare updatedUnix: number;
}

/** A user's security keys, oldest first. */
export function credentialsOf(ctx: DbContext, userId: number): Promise<WebauthnCredentialModel[]> {
  return WebauthnCredentialModel.findAll({ where: { userId }, order: [['id', 'ASC']], transaction: ctx.tx });
}

/** A security key by its credential id (base64url), or null. */
export function findCredential(ctx: DbContext, credentialId: string): Promise<WebauthnCredentialModel | null> {
  return WebauthnCredentialModel.findOne({ where: { credentialId }, transaction: ctx.tx });
}

/** Does the user have a key of this name (case-insensitive)? */
export async function credentialNameTaken(ctx: DbContext, userId: number, name: string): Promise<boolean> {
  return (await WebauthnCredentialModel.count({ where: { userId, lowerName: name.toLowerCase() }, transaction: ctx.tx })) > 0;
}

/** Store a new security key. */
export async function insertCredential(ctx: DbContext, row: { name: string; userId: number; credentialId: string; publicKey: string; attestationType: string; aaguid: string; signCount: number; createdUnix: number }): Promise<void> {
  await WebauthnCredentialModel.create({ ...row, lowerName: row.name.toLowerCase(), updatedUnix: row.createdUnix }, { transaction: ctx.tx });
}

/** Record a key's new signature counter (and a suspected clone). */
export async function updateCredentialCounter(ctx: DbContext, id: number, signCount: number, cloneWarning: boolean, now: number): Promise<void> {
  await WebauthnCredentialModel.update({ signCount, cloneWarning, updatedUnix: now }, { where: { id }, transaction: ctx.tx });
}

/** Remove one of a user's keys; whether it was there. */
export async function deleteCredential(ctx: DbContext, userId: number, id: number): Promise<boolean> {
  return (await WebauthnCredentialModel.destroy({ where: { id, userId }, transaction: ctx.tx })) > 0;
}

/** Ids of the users among `uids` that have a security key. */
export async function usersWithCredentials(ctx: DbContext, uids: number[]): Promise<Set<number>> {
  if (uids.length === 0) return new Set();
  const rows = await WebauthnCredentialModel.findAll({ attributes: ['userId'], where: { userId: uids }, group: ['user_id'], transaction: ctx.tx });
  return new Set(rows.map((r) => r.userId));
}
