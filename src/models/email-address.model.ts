/** An email address of a user; the primary one mirrors users.email. */
import type { DbContext } from '../db';
import { Table, Column, Model, DataType } from 'sequelize-typescript';
import { findUsersByIds, UserModel, UserType } from './user.model';
import { TableCache } from './table-cache';

// why: every commit list maps up to a hundred author and committer emails to users.
const ownerCache = new TableCache<number | null>('email-owner', ['email_address']);

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
  const owners = await ownerCache.getMany(ctx, lower, async (missing) => {
    const rows = await EmailAddressModel.findAll({ where: { lowerEmail: missing, isActivated: true }, transaction: ctx.tx });
    const found = new Map<string, number | null>(missing.map((e) => [e, null]));
    for (const r of rows) found.set(r.lowerEmail, r.uid);
    return found;
  });
  const out = new Map<string, UserModel>();
  const uids = [...new Set([...owners.values()].filter((uid): uid is number => uid !== null))];
  const users = new Map((await findUsersByIds(ctx, uids)).map((u) => [u.id, u]));
  for (const [email, uid] of owners) {
    const u = uid === null ? undefined : users.get(uid);
    if (u && u.type === UserType.Individual && u.isActive) out.set(email, u);
  }
  return out;
}

/** Mark a user's address confirmed; false when the user has no such address. */
export async function setEmailActivated(ctx: DbContext, uid: number, email: string): Promise<boolean> {
  const [n] = await EmailAddressModel.update({ isActivated: true }, { where: { uid, lowerEmail: email.toLowerCase() }, transaction: ctx.tx });
  return n > 0;
}

/** Set an address row's confirmed state. */
export async function setEmailActivation(ctx: DbContext, id: number, activated: boolean): Promise<void> {
  await EmailAddressModel.update({ isActivated: activated }, { where: { id }, transaction: ctx.tx });
}
