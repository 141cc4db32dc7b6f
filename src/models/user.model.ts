/**
 * Users and organizations share one table, as in Gitea: names are unique across both and
 * repositories have one kind of owner.
 */
import { onTableWrite, type DbContext } from '../db';
import { publishAndWait, subscribe } from '../queue/bus';
import { readOnlyRow } from './table-cache';
import { Op, fn, col, literal, where as sqlWhere, type WhereOptions } from 'sequelize';
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
  /** Which notification mails the user wants: enabled, onmention, disabled or andyourown (Gitea's values). */
  @Column({ type: DataType.STRING(20), allowNull: false, defaultValue: 'enabled' }) declare emailNotificationsPreference: string;
  /** Salt of the user's mailed codes; rotated when one is used, so each works once. */
  @Column({ type: DataType.STRING(32), allowNull: false, defaultValue: '' }) declare rands: string;
  declare createdAt: Date;
  declare updatedAt: Date;
}


// why: every authenticated request reads its user and most read another; a short-lived per-process
// cache keeps that off the database. Any committed write to the users table (model or raw SQL, see
// onTableWrite) clears it in every process, and entries expire after USER_CACHE_TTL_MS regardless.
// Reads outside a transaction share one read-only snapshot per user: writers go through the update
// functions below (or read inside a transaction, which bypasses the cache).
const USER_CACHE_TTL_MS = 2_000;
const USERS_CHANGED = 'users-changed';
const byId = new Map<number, { user: UserModel; at: number }>();
const idByLowerName = new Map<string, number>();
const inFlight = new Map<string, Promise<UserModel | null>>();
let generation = 0;

function clearUserCache(): void {
  generation++;
  byId.clear();
  idByLowerName.clear();
}
subscribe(USERS_CHANGED, clearUserCache);
onTableWrite('users', () => publishAndWait(USERS_CHANGED, null));

async function cachedUser(ctx: DbContext, key: { id: number } | { lowerName: string }): Promise<UserModel | null> {
  const where = 'id' in key ? { id: key.id } : { lowerName: key.lowerName };
  if (ctx.tx) return UserModel.findOne({ where, transaction: ctx.tx });
  const now = Date.now();
  const id = 'id' in key ? key.id : idByLowerName.get(key.lowerName);
  const hit = id === undefined ? undefined : byId.get(id);
  if (hit && now - hit.at < USER_CACHE_TTL_MS) return hit.user;
  // why: when an entry expires under load, one query refills it instead of one per waiting request.
  // A write bumps the generation, so requests after it never join a read that started before it.
  const flightKey = `${generation}:${'id' in key ? `i${key.id}` : `n${key.lowerName}`}`;
  const pending = inFlight.get(flightKey);
  if (pending) return pending;
  const p = fillUser(where).finally(() => inFlight.delete(flightKey));
  inFlight.set(flightKey, p);
  return p;
}

async function fillUser(where: { id: number } | { lowerName: string }): Promise<UserModel | null> {
  const now = Date.now();
  const gen = generation;
  const row = await UserModel.findOne({ where });
  if (!row) return null;
  return remember(row, gen, now);
}

/** Make a fetched row a cached snapshot. */
function remember(row: UserModel, gen: number, at: number): UserModel {
  const user = readOnlyRow(row);
  // why: a write that committed while this read was in flight bumped the generation; its row may be stale.
  if (gen === generation) {
    if (byId.size > 10_000) clearUserCache();
    byId.set(user.id, { user, at });
    idByLowerName.set(user.lowerName, user.id);
  }
  return user;
}

/** A user or organization by id. */
export function findUserById(ctx: DbContext, id: number): Promise<UserModel | null> {
  return cachedUser(ctx, { id });
}

/** A user or organization by name, case-insensitively. */
export function findUserByName(ctx: DbContext, name: string): Promise<UserModel | null> {
  return cachedUser(ctx, { lowerName: name.toLowerCase() });
}

/** An individual user (not an organization) by name. */
export function findIndividualByName(ctx: DbContext, name: string): Promise<UserModel | null> {
  return UserModel.findOne({ where: { lowerName: name.toLowerCase(), type: UserType.Individual }, transaction: ctx.tx });
}

/** Users with these ids, in no particular order: fresh cached ones, the rest in one query. */
export async function findUsersByIds(ctx: DbContext, ids: number[]): Promise<UserModel[]> {
  if (ids.length === 0) return [];
  if (ctx.tx) return UserModel.findAll({ where: { id: { [Op.in]: ids } }, transaction: ctx.tx });
  const now = Date.now();
  const out: UserModel[] = [];
  const missing: number[] = [];
  for (const id of new Set(ids)) {
    const hit = byId.get(id);
    if (hit && now - hit.at < USER_CACHE_TTL_MS) out.push(hit.user);
    else missing.push(id);
  }
  if (missing.length === 0) return out;
  const gen = generation;
  for (const row of await UserModel.findAll({ where: { id: { [Op.in]: missing } } })) out.push(remember(row, gen, now));
  return out;
}

/** Number of site administrators. */
export function countAdmins(ctx: DbContext): Promise<number> {
  return UserModel.count({ where: { isAdmin: true, type: UserType.Individual }, transaction: ctx.tx });
}

/**
 * Which users a viewer may see in lists (search, followers, following): everything for site
 * administrators; public ones for everyone; limited ones for signed-in, unrestricted viewers;
 * the viewer itself; private organizations the viewer belongs to.
 */
export interface UserVisibilityScope {
  viewerId: number | null;
  seeAll: boolean;
  seeLimited: boolean;
  /** A `public-only` token: public users only, whoever asks. */
  publicOnly: boolean;
}

/**
 * The SQL condition on a `users` row (columns `id`, `visibility`) that `scope` may see; it holds
 * only numbers, never user text, so it can be embedded in any query over users.
 */
export function visibleUsersSql(scope: UserVisibilityScope): string {
  if (scope.publicOnly) return `visibility = ${Visibility.Public}`;
  if (scope.seeAll) return '1 = 1';
  const ors = [scope.seeLimited ? `visibility IN (${Visibility.Public}, ${Visibility.Limited})` : `visibility = ${Visibility.Public}`];
  if (scope.viewerId !== null) {
    const me = Number(scope.viewerId);
    // why: the viewer sees itself and the (maybe private) organizations it belongs to.
    ors.push(`id = ${me}`, `id IN (SELECT org_id FROM org_user WHERE uid = ${me})`);
  }
  return `(${ors.join(' OR ')})`;
}

function visibleWhere(scope: UserVisibilityScope): WhereOptions {
  return literal(visibleUsersSql(scope));
}

/** Lower-case names, of `lowerNames`, of users and organizations that exist and `scope` may see (for @mentions). */
export async function visibleNamesAmong(ctx: DbContext, lowerNames: string[], scope: UserVisibilityScope): Promise<string[]> {
  if (lowerNames.length === 0) return [];
  const rows = await UserModel.findAll({
    attributes: ['lowerName'],
    where: { [Op.and]: [{ lowerName: { [Op.in]: lowerNames } }, visibleWhere(scope)] },
    transaction: ctx.tx,
  });
  return rows.map((r) => r.lowerName);
}

/** Filters of a user search. */
export interface UserSearch {
  keyword: string;
  uid?: number;
  /** May the keyword match every email (admins), or only public ones and the viewer's own? */
  emailsOfAll: boolean;
  scope: UserVisibilityScope;
  limit: number;
  offset: number;
}

/** Search individual users visible to the viewer, alphabetically; one page and the total. */
export function searchIndividuals(ctx: DbContext, q: UserSearch): Promise<{ rows: UserModel[]; count: number }> {
  const and: WhereOptions[] = [{ type: UserType.Individual }, visibleWhere(q.scope)];
  if (q.uid !== undefined) and.push({ id: q.uid });
  const kw = q.keyword.toLowerCase();
  if (kw !== '') {
    const like = { [Op.like]: `%${kw}%` };
    const emailOwn: WhereOptions[] = [{ keepEmailPrivate: false }];
    if (q.scope.viewerId !== null) emailOwn.push({ id: q.scope.viewerId });
    const emailCond: WhereOptions = q.emailsOfAll
      ? sqlWhere(fn('LOWER', col('email')), like)
      : { [Op.and]: [sqlWhere(fn('LOWER', col('email')), like), { [Op.or]: emailOwn }] };
    and.push({ [Op.or]: [{ lowerName: like }, sqlWhere(fn('LOWER', col('full_name')), like), emailCond] });
  }
  return UserModel.findAndCountAll({ where: { [Op.and]: and }, order: [['lowerName', 'ASC']], limit: q.limit, offset: q.offset, transaction: ctx.tx });
}

/** Individual users following `userId` that the viewer may see, alphabetically; one page and the total. */
export function listFollowersOf(ctx: DbContext, userId: number, scope: UserVisibilityScope, limit: number, offset: number): Promise<{ rows: UserModel[]; count: number }> {
  const ids = literal(`(SELECT user_id FROM follow WHERE follow_id = ${Number(userId)})`);
  return UserModel.findAndCountAll({
    where: { [Op.and]: [{ id: { [Op.in]: ids } }, { type: UserType.Individual }, visibleWhere(scope)] },
    order: [['lowerName', 'ASC']], limit, offset, transaction: ctx.tx,
  });
}

/** Users and organizations followed by `userId` that the viewer may see, alphabetically; one page and the total. */
export function listFollowingOf(ctx: DbContext, userId: number, scope: UserVisibilityScope, limit: number, offset: number): Promise<{ rows: UserModel[]; count: number }> {
  const ids = literal(`(SELECT follow_id FROM follow WHERE user_id = ${Number(userId)})`);
  return UserModel.findAndCountAll({
    where: { [Op.and]: [{ id: { [Op.in]: ids } }, visibleWhere(scope)] },
    order: [['lowerName', 'ASC']], limit, offset, transaction: ctx.tx,
  });
}

/** Move the follow counters of both sides by `delta` (+1 follow, -1 unfollow). */
export async function adjustFollowCounters(ctx: DbContext, followerId: number, followeeId: number, delta: 1 | -1): Promise<void> {
  await UserModel.increment({ numFollowing: delta }, { where: { id: followerId }, transaction: ctx.tx });
  await UserModel.increment({ numFollowers: delta }, { where: { id: followeeId }, transaction: ctx.tx });
}

/** The profile and settings columns that `/user/settings` and `PATCH /orgs/{org}` may change. */
export interface UserSettingsPatch {
  fullName?: string; website?: string; description?: string; location?: string;
  language?: string; theme?: string; diffViewStyle?: string; keepEmailPrivate?: boolean; hideActivity?: boolean;
  email?: string; visibility?: Visibility; repoAdminChangeTeamAccess?: boolean;
  emailNotificationsPreference?: string; rands?: string; isActive?: boolean;
}

/** Write the given profile and settings columns of a user or organization. */
export async function updateUserSettings(ctx: DbContext, id: number, patch: UserSettingsPatch): Promise<void> {
  if (Object.keys(patch).length === 0) return;
  await UserModel.update(patch, { where: { id }, transaction: ctx.tx });
}

/** Who stands in for user `id` when no row has it: the Actions user for -2 (a job's token), else the Ghost. */
export function standIn(id: number): UserModel {
  return pseudoUser(id === -2 ? -2 : -1);
}

/** Who a migrated row shows for a person of its source with no local account (Gitea's NewReplaceUser); never stored. */
export function replaceUser(name: string): UserModel {
  return UserModel.build({
    id: 0, name, lowerName: name.toLowerCase(), fullName: '', email: '', keepEmailPrivate: true, isActive: true, type: UserType.Individual,
    visibility: Visibility.Public, createdAt: new Date(0),
  });
}

/** Gitea's pseudo users that `uid=-1`/`uid=-2` searches return; never stored. */
export function pseudoUser(id: -1 | -2): UserModel {
  const name = id === -1 ? 'Ghost' : 'gitea-actions';
  return UserModel.build({
    id, name, lowerName: name.toLowerCase(), fullName: id === -1 ? '' : 'Gitea Actions', email: id === -1 ? '' : 'teabot@gitea.io',
    keepEmailPrivate: true, isActive: true, type: UserType.Individual, visibility: Visibility.Public,
    createdAt: new Date(0),
  });
}

/** Users and organizations whose lower-cased names are among `lowerNames`. */
export function findUsersByLowerNames(ctx: DbContext, lowerNames: string[]): Promise<UserModel[]> {
  if (lowerNames.length === 0) return Promise.resolve([]);
  return UserModel.findAll({ where: { lowerName: lowerNames }, transaction: ctx.tx });
}
