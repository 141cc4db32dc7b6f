/**
 * Gitea's `user_redirect`: an old user or organization name (lower-cased) and the account it now
 * names. A rename adds one; taking the name again (a new account, another rename) removes it.
 */
import { Table, Column, Model, DataType } from 'sequelize-typescript';
import type { DbContext } from '../db';

@Table({ tableName: 'user_redirect', underscored: true, timestamps: false })
export class UserRedirectModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.STRING(40), allowNull: false, unique: true }) declare lowerName: string;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare redirectUserId: number;
}

/** The id of the account an old name leads to, or null. */
export async function findUserRedirect(ctx: DbContext, name: string): Promise<number | null> {
  const row = await UserRedirectModel.findOne({ where: { lowerName: name.toLowerCase() }, transaction: ctx.tx });
  return row ? row.redirectUserId : null;
}

/** Keep `oldName` leading to the account `userId` (now `newName`): a redirect of the new name goes, since the name is taken again. */
export async function addUserRedirect(ctx: DbContext, userId: number, oldName: string, newName: string): Promise<void> {
  await UserRedirectModel.destroy({ where: { lowerName: [oldName.toLowerCase(), newName.toLowerCase()] }, transaction: ctx.tx });
  await UserRedirectModel.create({ lowerName: oldName.toLowerCase(), redirectUserId: userId }, { transaction: ctx.tx });
}

/** Forget the redirect of a name (an account takes it again). */
export async function deleteUserRedirect(ctx: DbContext, name: string): Promise<void> {
  await UserRedirectModel.destroy({ where: { lowerName: name.toLowerCase() }, transaction: ctx.tx });
}

/** Forget every old name of a deleted account. */
export async function deleteRedirectsTo(ctx: DbContext, userId: number): Promise<void> {
  await UserRedirectModel.destroy({ where: { redirectUserId: userId }, transaction: ctx.tx });
}
