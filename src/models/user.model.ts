/**
 * Users and organizations share one table, as in Gitea: names are unique across both and
 * repositories have one kind of owner.
 */
import type { DbContext } from '../db';
import { Op } from 'sequelize';
import { Table, Column, Model, DataType } from 'sequelize-typescript';

/** users.type */
export enum UserType { Individual = 0, Organization = 1 }
/** users.visibility, in Gitea's numbering. */
export enum Visibility { Public = 0, Limited = 1, Private = 2 }
/** Visibility as the API names it. */
export const VISIBILITY_NAMES = ['public', 'limited', 'private'] as const;
export type VisibilityName = (typeof VISIBILITY_NAMES)[number];

@Table({ tableName: 'users', underscored: true, timestamps: true })
export class UserModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.STRING(40), allowNull: false, unique: true }) declare lowerName: string;
  @Column({ type: DataType.STRING(40), allowNull: false }) declare name: string;
  @Column({ type: DataType.STRING(255), allowNull: false, defaultValue: '' }) declare fullName: string;
  @Column({ type: DataType.STRING(255), allowNull: false, defaultValue: '' }) declare email: string;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare keepEmailPrivate: boolean;
  @Column({ type: DataType.STRING(255), allowNull: false, defaultValue: '' }) declare passwdHash: string;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare mustChangePassword: boolean;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare loginSource: number;
  @Column({ type: DataType.STRING(255), allowNull: false, defaultValue: '' }) declare loginName: string;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: UserType.Individual }) declare type: UserType;
  @Column({ type: DataType.STRING(255), allowNull: false, defaultValue: '' }) declare location: string;
  @Column({ type: DataType.STRING(255), allowNull: false, defaultValue: '' }) declare website: string;
  @Column({ type: DataType.TEXT, allowNull: false, defaultValue: '' }) declare description: string;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: Visibility.Public }) declare visibility: Visibility;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: true }) declare isActive: boolean;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare isAdmin: boolean;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare isRestricted: boolean;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare prohibitLogin: boolean;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare allowGitHook: boolean;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare allowImportLocal: boolean;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: true }) declare allowCreateOrganization: boolean;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: -1 }) declare maxRepoCreation: number;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: true }) declare repoAdminChangeTeamAccess: boolean;
  @Column({ type: DataType.STRING(2048), allowNull: false, defaultValue: '' }) declare avatar: string;
  @Column({ type: DataType.STRING(255), allowNull: false, defaultValue: '' }) declare avatarEmail: string;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare numFollowers: number;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare numFollowing: number;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare numStars: number;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare numRepos: number;
  @Column({ type: DataType.STRING(255), allowNull: false, defaultValue: '' }) declare language: string;
  @Column({ type: DataType.STRING(255), allowNull: false, defaultValue: '' }) declare theme: string;
  @Column({ type: DataType.STRING(255), allowNull: false, defaultValue: '' }) declare diffViewStyle: string;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare hideActivity: boolean;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare enableRepoUnitHints: boolean;
  @Column({ type: DataType.DATE, allowNull: true }) declare lastLoginAt: Date | null;
  declare createdAt: Date;
  declare updatedAt: Date;
}


/** A user or organization by id. */
export function findUserById(ctx: DbContext, id: number): Promise<UserModel | null> {
  return UserModel.findByPk(id, { transaction: ctx.tx });
}

/** A user or organization by name, case-insensitively. */
export function findUserByName(ctx: DbContext, name: string): Promise<UserModel | null> {
  return UserModel.findOne({ where: { lowerName: name.toLowerCase() }, transaction: ctx.tx });
}

/** An individual user (not an organization) by name. */
export function findIndividualByName(ctx: DbContext, name: string): Promise<UserModel | null> {
  return UserModel.findOne({ where: { lowerName: name.toLowerCase(), type: UserType.Individual }, transaction: ctx.tx });
}

/** Users with these ids, in no particular order. */
export function findUsersByIds(ctx: DbContext, ids: number[]): Promise<UserModel[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return UserModel.findAll({ where: { id: { [Op.in]: ids } }, transaction: ctx.tx });
}

/** Number of site administrators. */
export function countAdmins(ctx: DbContext): Promise<number> {
  return UserModel.count({ where: { isAdmin: true, type: UserType.Individual }, transaction: ctx.tx });
}
