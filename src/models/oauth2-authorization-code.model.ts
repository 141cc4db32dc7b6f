/**
 * Gitea's `oauth2_authorization_code`: a code the authorization endpoint handed to a client, good
 * once and for a few minutes, with the PKCE challenge and the redirect URI it was issued for. Only
 * the code's SHA-256 is stored.
 */
import { Op } from 'sequelize';
import { Table, Column, Model, DataType } from 'sequelize-typescript';
import type { DbContext } from '../db';

@Table({ tableName: 'oauth2_authorization_code', underscored: true, timestamps: false })
export class OAuth2AuthorizationCodeModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare grantId: number;
  @Column({ type: DataType.STRING(64), allowNull: false, unique: true }) declare code: string;
  @Column({ type: DataType.STRING(255), allowNull: false, defaultValue: '' }) declare codeChallenge: string;
  @Column({ type: DataType.STRING(16), allowNull: false, defaultValue: '' }) declare codeChallengeMethod: string;
  @Column({ type: DataType.TEXT, allowNull: false, defaultValue: '' }) declare redirectUri: string;
  @Column({
    type: DataType.BIGINT, allowNull: false, defaultValue: 0, get(this: Model): number { return Number(this.getDataValue('validUntil')); },
  }) declare validUntil: number;
}

/** Store a code (its hash). */
export async function insertAuthorizationCode(
  ctx: DbContext, row: { grantId: number; code: string; codeChallenge: string; codeChallengeMethod: string; redirectUri: string; validUntil: number },
): Promise<void> {
  await OAuth2AuthorizationCodeModel.create({ ...row }, { transaction: ctx.tx });
}

/** The code whose hash is `hash`, or null. */
export function findAuthorizationCode(ctx: DbContext, hash: string): Promise<OAuth2AuthorizationCodeModel | null> {
  return OAuth2AuthorizationCodeModel.findOne({ where: { code: hash }, transaction: ctx.tx });
}

/** Delete a code; whether this call deleted it (of two redeemers racing, one does). */
export async function deleteAuthorizationCode(ctx: DbContext, id: number): Promise<boolean> {
  return (await OAuth2AuthorizationCodeModel.destroy({ where: { id }, transaction: ctx.tx })) > 0;
}

/** Delete the codes of these grants, and any code expired at `now`. */
export async function deleteCodesOfGrants(ctx: DbContext, grantIds: number[], now?: number): Promise<void> {
  const or = [
    ...(grantIds.length ? [{ grantId: { [Op.in]: grantIds } }] : []),
    ...(now !== undefined ? [{ validUntil: { [Op.lt]: now } }] : []),
  ];
  if (or.length) await OAuth2AuthorizationCodeModel.destroy({ where: { [Op.or]: or }, transaction: ctx.tx });
}
