/**
 * Gitea's `oauth2_application`: an OAuth2 client registered by a user (`uid`) or, with uid 0, by
 * the site's administrators. The client secret is stored as `sha256$<hex>`; redirect URIs are a
 * JSON array of exact strings.
 */
import { Op } from 'sequelize';
import { Table, Column, Model, DataType } from 'sequelize-typescript';
import type { DbContext } from '../db';

const unix = (col: string) => ({ get(this: Model): number { return Number(this.getDataValue(col)); } });

@Table({ tableName: 'oauth2_application', underscored: true, timestamps: false })
export class OAuth2ApplicationModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare uid: number;
  @Column({ type: DataType.STRING(255), allowNull: false, defaultValue: '' }) declare name: string;
  @Column({ type: DataType.STRING(64), allowNull: false, unique: true }) declare clientId: string;
  @Column({ type: DataType.STRING(255), allowNull: false, defaultValue: '' }) declare clientSecret: string;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: true }) declare confidentialClient: boolean;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare skipSecondaryAuthorization: boolean;
  @Column({ type: DataType.TEXT, allowNull: false, defaultValue: '[]' }) declare redirectUris: string;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0, ...unix('createdUnix') }) declare createdUnix: number;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0, ...unix('updatedUnix') }) declare updatedUnix: number;
}

/** The columns of a new application. */
export interface NewApplicationRow {
  uid: number; name: string; clientId: string; clientSecret: string; confidentialClient: boolean;
  skipSecondaryAuthorization: boolean; redirectUris: string; createdUnix: number; updatedUnix: number;
}

/** What an edit may change. */
export type ApplicationPatch = Partial<Pick<NewApplicationRow, 'name' | 'clientSecret' | 'confidentialClient' | 'skipSecondaryAuthorization' | 'redirectUris' | 'updatedUnix'>>;

/** Store a new application. */
export function insertApplication(ctx: DbContext, row: NewApplicationRow): Promise<OAuth2ApplicationModel> {
  return OAuth2ApplicationModel.create({ ...row }, { transaction: ctx.tx });
}

/** The application with this id, or null. */
export function findApplicationById(ctx: DbContext, id: number): Promise<OAuth2ApplicationModel | null> {
  return OAuth2ApplicationModel.findOne({ where: { id }, transaction: ctx.tx });
}

/** The application with this client id, or null. */
export function findApplicationByClientId(ctx: DbContext, clientId: string): Promise<OAuth2ApplicationModel | null> {
  return OAuth2ApplicationModel.findOne({ where: { clientId }, transaction: ctx.tx });
}

/** Applications by id. */
export function applicationsByIds(ctx: DbContext, ids: number[]): Promise<OAuth2ApplicationModel[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return OAuth2ApplicationModel.findAll({ where: { id: { [Op.in]: [...new Set(ids)] } }, transaction: ctx.tx });
}

/** One page of the applications owned by `uid` (0: the site's), newest first, and their number. */
export function listApplicationsOf(ctx: DbContext, uid: number, limit: number, offset: number): Promise<{ rows: OAuth2ApplicationModel[]; count: number }> {
  return OAuth2ApplicationModel.findAndCountAll({ where: { uid }, order: [['id', 'DESC']], limit, offset, transaction: ctx.tx });
}

/** Change an application of `uid`; whether it was there. */
export async function updateApplication(ctx: DbContext, id: number, uid: number, patch: ApplicationPatch): Promise<boolean> {
  const [n] = await OAuth2ApplicationModel.update(patch, { where: { id, uid }, transaction: ctx.tx });
  return n > 0;
}

/** Delete an application of `uid`; whether it was there. */
export async function deleteApplicationRow(ctx: DbContext, id: number, uid: number): Promise<boolean> {
  return (await OAuth2ApplicationModel.destroy({ where: { id, uid }, transaction: ctx.tx })) > 0;
}

/** Ids of the applications `uid` owns. */
export async function applicationIdsOf(ctx: DbContext, uid: number): Promise<number[]> {
  const rows = await OAuth2ApplicationModel.findAll({ where: { uid }, attributes: ['id'], transaction: ctx.tx });
  return rows.map((r) => r.id);
}

/** Delete every application `uid` owns (a deleted account). */
export async function deleteApplicationsOf(ctx: DbContext, uid: number): Promise<void> {
  await OAuth2ApplicationModel.destroy({ where: { uid }, transaction: ctx.tx });
}
