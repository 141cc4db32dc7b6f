/** The armored text a GPG key was uploaded with, by primary key id (for signature verification). */
import type { DbContext } from '../db';
import { Table, Column, Model, DataType } from 'sequelize-typescript';

@Table({ tableName: 'gpg_key_import', underscored: true, timestamps: true })
export class GpgKeyImportModel extends Model {
  @Column({ type: DataType.STRING(16), primaryKey: true, allowNull: false }) declare keyId: string;
  @Column({ type: DataType.TEXT, allowNull: false }) declare content: string;
  declare createdAt: Date;
  declare updatedAt: Date;
}

/** Store the armored upload of a key. */
export async function insertGpgKeyImport(ctx: DbContext, keyId: string, content: string): Promise<void> {
  await GpgKeyImportModel.create({ keyId, content }, { transaction: ctx.tx });
}

/** The armored upload of a key, if kept. */
export function findGpgKeyImport(ctx: DbContext, keyId: string): Promise<GpgKeyImportModel | null> {
  return GpgKeyImportModel.findByPk(keyId, { transaction: ctx.tx });
}

/** Forget the armored upload of a key. */
export async function deleteGpgKeyImport(ctx: DbContext, keyId: string): Promise<void> {
  await GpgKeyImportModel.destroy({ where: { keyId }, transaction: ctx.tx });
}

/** The armored uploads of these primary key ids, by key id. */
export async function findGpgKeyImports(ctx: DbContext, keyIds: string[]): Promise<Map<string, string>> {
  if (!keyIds.length) return new Map();
  const rows = await GpgKeyImportModel.findAll({ where: { keyId: keyIds }, transaction: ctx.tx });
  return new Map(rows.map((r) => [r.keyId, r.content]));
}
