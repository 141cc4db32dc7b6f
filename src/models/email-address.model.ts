/** An email address of a user; the primary one mirrors users.email. */
import type { DbContext } from '../db';
import { Table, Column, Model, DataType } from 'sequelize-typescript';
import { UserModel, UserType } from './user.model';

@Table({ tableName: 'email_address', underscored: true, timestamps: true })
export class EmailAddressModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare uid: number;
  @Column({ type: DataType.STRING(255), allowNull: false }) declare email: string;
  @Column({ type: DataType.STRING(255), allowNull: false, unique: true }) declare lowerEmail: string;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare isActivated: boolean;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare isPrimary: boolean;
}

/** The address row for this email, whoever owns it (case-insensitive). */
export function findEmail(ctx: DbContext, email: string): Promise<EmailAddressModel | null> {
  return EmailAddressModel.findOne({ where: { lowerEmail: email.toLowerCase() }, transaction: ctx.tx });
}

/** Every address of a user, primary first. */
export function listEmailsOf(ctx: DbContext, uid: number): Promise<EmailAddressModel[]> {
  return EmailAddressModel.findAll({ where: { uid }, order: [['isPrimary', 'DESC'], ['id', 'ASC']], transaction: ctx.tx });
}

/** Add an address for a user. */
export function insertEmail(ctx: DbContext, uid: number, email: string, primary: boolean, activated: boolean): Promise<EmailAddressModel> {
  return EmailAddressModel.create({ uid, email, lowerEmail: email.toLowerCase(), isPrimary: primary, isActivated: activated }, { transaction: ctx.tx });
}

/** The address row for this email when it belongs to `uid` (case-insensitive). */
export function findEmailOf(ctx: DbContext, uid: number, email: string): Promise<EmailAddressModel | null> {
  return EmailAddressModel.findOne({ where: { uid, lowerEmail: email.toLowerCase() }, transaction: ctx.tx });
}

/** Remove an address row. */
export async function deleteEmailById(ctx: DbContext, id: number): Promise<void> {
  await EmailAddressModel.destroy({ where: { id }, transaction: ctx.tx });
}

/**
 * The active individual users behind the given emails (primary or activated secondary addresses),
 * keyed by lower-cased email; emails nobody owns are absent.
 */
export async function findUsersByEmails(ctx: DbContext, emails: string[]): Promise<Map<string, UserModel>> {
  const lower = [...new Set(emails.map((e) => e.toLowerCase()))];
  const out = new Map<string, UserModel>();
  if (lower.length === 0) return out;
  const rows = await EmailAddressModel.findAll({ where: { lowerEmail: lower, isActivated: true }, transaction: ctx.tx });
  const users = await UserModel.findAll({ where: { id: [...new Set(rows.map((r) => r.uid))], type: UserType.Individual, isActive: true }, transaction: ctx.tx });
  const byId = new Map(users.map((u) => [u.id, u]));
  for (const r of rows) {
    const u = byId.get(r.uid);
    if (u) out.set(r.lowerEmail, u);
  }
  return out;
}
