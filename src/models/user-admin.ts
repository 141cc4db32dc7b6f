/**
 * Queries behind the site administration of users: listing users and email addresses, making an
 * address primary, renaming, and removing a user with everything that belongs to it.
 */
import { Op, QueryTypes, Transaction } from 'sequelize';
import { db, type DbContext } from '../db';
import { UserModel, UserType } from './user.model';
import { EmailAddressModel } from './email-address.model';
import { AccessTokenModel } from './access-token.model';
import { RepositoryModel, deleteRepoRows } from './repository.model';
import { OrgUserModel } from './org-user.model';
import { deleteWebhooksOf } from './webhook.model';
import { deleteActionsSettingsOf } from './action-variable.model';
import { deleteProjectsOf } from './project.model';

/** Filters of the admin user list (Gitea's SearchUserOptions as /admin/users uses them). */
export interface AdminUserFilter { loginName?: string; sourceId?: number }

/** Individual users matching the filter, alphabetically, one page, with the total. */
export function searchUsersForAdmin(ctx: DbContext, f: AdminUserFilter, limit: number, offset: number): Promise<{ rows: UserModel[]; count: number }> {
  const where: Record<string, unknown> = { type: UserType.Individual };
  if (f.loginName) where.loginName = f.loginName;
  if (f.sourceId && f.sourceId > 0) where.loginSource = f.sourceId;
  // why: lower_name, not name: "alphabetical" must not depend on the database's collation (SQLite is byte order, PostgreSQL locale order).
  return UserModel.findAndCountAll({ where, order: [['lowerName', 'ASC'], ['id', 'ASC']], limit, offset, transaction: ctx.tx });
}

/** One email address with its owner, as the admin email list shows it. */
export interface EmailWithOwner { email: string; isActivated: boolean; isPrimary: boolean; uid: number; userName: string }

/**
 * Email addresses of individual users whose address, login or full name contains `keyword`
 * (case-insensitive; every address when empty), ordered by address, one page, with the total.
 */
export async function searchEmailsForAdmin(ctx: DbContext, keyword: string, limit: number, offset: number): Promise<{ rows: EmailWithOwner[]; count: number }> {
  const like = `%${keyword.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const cond = keyword
    ? `AND (e.lower_email LIKE :like ESCAPE '\\' OR u.lower_name LIKE :like ESCAPE '\\' OR LOWER(u.full_name) LIKE :like ESCAPE '\\')`
    : '';
  const from = `FROM email_address e JOIN users u ON u.id = e.uid WHERE u.type = :individual ${cond}`;
  const replacements = { like, individual: UserType.Individual, limit, offset };
  const [counted] = await db().query<{ n: number | string }>(`SELECT COUNT(*) AS n ${from}`, { replacements, type: QueryTypes.SELECT, transaction: ctx.tx });
  const rows = await db().query<{ email: string; is_activated: boolean | number; is_primary: boolean | number; uid: number; name: string }>(
    `SELECT e.email, e.is_activated, e.is_primary, e.uid, u.name ${from} ORDER BY e.lower_email ASC, e.is_primary DESC, e.id ASC LIMIT :limit OFFSET :offset`,
    { replacements, type: QueryTypes.SELECT, transaction: ctx.tx },
  );
  return {
    count: Number(counted?.n ?? 0),
    rows: rows.map((r) => ({ email: r.email, isActivated: !!r.is_activated, isPrimary: !!r.is_primary, uid: r.uid, userName: r.name })),
  };
}

/**
 * Number of site administrators, locking their rows until the transaction ends.
 * why: two admins demoting or deleting each other at once must not both see "another admin is left".
 */
export async function countAdminsLocked(ctx: DbContext): Promise<number> {
  const rows = await UserModel.findAll({
    attributes: ['id'], where: { isAdmin: true, type: UserType.Individual }, transaction: ctx.tx,
    ...(ctx.tx ? { lock: Transaction.LOCK.UPDATE } : {}),
  });
  return rows.length;
}

/** Re-read a user row inside the transaction, locked for update. */
export function findUserForUpdate(ctx: DbContext, id: number): Promise<UserModel | null> {
  return UserModel.findByPk(id, { transaction: ctx.tx, ...(ctx.tx ? { lock: Transaction.LOCK.UPDATE } : {}) });
}

/** Write these columns of a user row. */
export async function updateUserColumns(ctx: DbContext, id: number, cols: Partial<Record<keyof UserModel, unknown>>): Promise<void> {
  await UserModel.update(cols, { where: { id }, transaction: ctx.tx });
}

/**
 * Make `email` the primary address of user `uid`: its row if the user has it, a new activated
 * row otherwise; the old primary stays as a secondary address. Mirrors users.email.
 */
export async function makePrimaryEmail(ctx: DbContext, uid: number, email: string): Promise<void> {
  const lower = email.toLowerCase();
  await EmailAddressModel.update({ isPrimary: false }, { where: { uid, isPrimary: true }, transaction: ctx.tx });
  const own = await EmailAddressModel.findOne({ where: { uid, lowerEmail: lower }, transaction: ctx.tx });
  if (own) await EmailAddressModel.update({ isPrimary: true, isActivated: true, email }, { where: { id: own.id }, transaction: ctx.tx });
  else await EmailAddressModel.create({ uid, email, lowerEmail: lower, isPrimary: true, isActivated: true }, { transaction: ctx.tx });
  await UserModel.update({ email }, { where: { id: uid }, transaction: ctx.tx });
}

/** Hashes of every token of a user (to drop them from the token caches). */
export async function tokenHashesOf(ctx: DbContext, uid: number): Promise<string[]> {
  const rows = await AccessTokenModel.findAll({ attributes: ['tokenHash'], where: { uid }, transaction: ctx.tx });
  return rows.map((r) => r.tokenHash);
}

/** Rename a user or organization and the owner name cached on its repositories. */
export async function renameOwner(ctx: DbContext, id: number, name: string): Promise<void> {
  await UserModel.update({ name, lowerName: name.toLowerCase() }, { where: { id }, transaction: ctx.tx });
  await RepositoryModel.update({ ownerName: name }, { where: { ownerId: id }, transaction: ctx.tx });
}

/** Number of repositories owned by a user or organization. */
export function countReposOwnedBy(ctx: DbContext, ownerId: number): Promise<number> {
  return RepositoryModel.count({ where: { ownerId }, transaction: ctx.tx });
}

/** Ids of the organizations a user belongs to. */
export async function orgIdsOfMember(ctx: DbContext, uid: number): Promise<number[]> {
  const rows = await OrgUserModel.findAll({ attributes: ['orgId'], where: { uid }, order: [['orgId', 'ASC']], transaction: ctx.tx });
  return rows.map((r) => r.orgId);
}

/** Ids of the organizations where this user is the only member of an owner team. */
export async function orgsWhereSoleOwner(ctx: DbContext, uid: number): Promise<number[]> {
  const rows = await db().query<{ org_id: number }>(
    `SELECT t.org_id FROM team t JOIN team_user tu ON tu.team_id = t.id
      WHERE t.authorize >= 4
      GROUP BY t.org_id
     HAVING COUNT(DISTINCT tu.uid) = 1 AND MAX(CASE WHEN tu.uid = :uid THEN 1 ELSE 0 END) = 1`,
    { replacements: { uid }, type: QueryTypes.SELECT, transaction: ctx.tx },
  );
  return rows.map((r) => r.org_id);
}

async function exec(ctx: DbContext, sql: string, replacements: Record<string, unknown>): Promise<void> {
  await db().query(sql, { replacements, transaction: ctx.tx });
}

/** Delete every repository row of an owner, with what each carries (see deleteRepoRows). */
export async function deleteRepoRowsOwnedBy(ctx: DbContext, ownerId: number): Promise<number[]> {
  const repos = await RepositoryModel.findAll({ where: { ownerId }, attributes: ['id'], transaction: ctx.tx });
  for (const r of repos) await deleteRepoRows(ctx, r.id);
  return repos.map((r) => r.id);
}

/** Remove every follow from and to a user, fixing the counters of the users on the other side. */
export async function deleteFollowsOf(ctx: DbContext, uid: number): Promise<void> {
  const dec = (col: string) => `${col} = CASE WHEN ${col} > 0 THEN ${col} - 1 ELSE 0 END`;
  await exec(ctx, `UPDATE users SET ${dec('num_followers')} WHERE id IN (SELECT follow_id FROM follow WHERE user_id = :uid)`, { uid });
  await exec(ctx, `UPDATE users SET ${dec('num_following')} WHERE id IN (SELECT user_id FROM follow WHERE follow_id = :uid)`, { uid });
  await exec(ctx, 'DELETE FROM follow WHERE user_id = :uid OR follow_id = :uid', { uid });
}

/**
 * Delete an individual user's row and what only it owns: tokens, email addresses, SSH and GPG
 * keys, blocks either way, badges, organization and team memberships, collaborations, settings, hooks,
 * and its old names (redirects).
 * Follows go through deleteFollowsOf first (counters).
 */
export async function deleteUserRows(ctx: DbContext, uid: number): Promise<void> {
  const byColumn: [string, string][] = [
    ['access_token', 'uid'], ['auth_token', 'user_id'], ['web_session', 'uid'], ['email_address', 'uid'], ['public_key', 'owner_id'], ['gpg_key', 'owner_id'],
    ['user_badge', 'user_id'], ['org_user', 'uid'], ['team_user', 'uid'], ['collaboration', 'user_id'], ['user_setting', 'user_id'],
    ['user_redirect', 'redirect_user_id'],
  ];
  // why: the user's stars and watches are counted on other users' repositories.
  await exec(ctx, 'UPDATE repository SET num_stars = num_stars - 1 WHERE id IN (SELECT repo_id FROM star WHERE uid = :uid)', { uid });
  await exec(ctx, 'UPDATE repository SET num_watches = num_watches - 1 WHERE id IN (SELECT repo_id FROM watch WHERE user_id = :uid)', { uid });
  byColumn.push(['star', 'uid'], ['watch', 'user_id']);
  for (const [table, col] of byColumn) await exec(ctx, `DELETE FROM ${table} WHERE ${col} = :uid`, { uid });
  await exec(ctx, 'DELETE FROM user_blocking WHERE blocker_id = :uid OR blockee_id = :uid', { uid });
  await deleteWebhooksOf(ctx, { ownerId: uid });
  await deleteActionsSettingsOf(ctx, { ownerId: uid });
  await deleteProjectsOf(ctx, { ownerId: uid });
  await UserModel.destroy({ where: { id: uid, type: UserType.Individual }, transaction: ctx.tx });
}

/** Is this email address used by anyone but `uid`? */
export async function emailUsedByOther(ctx: DbContext, email: string, uid: number): Promise<boolean> {
  return (await EmailAddressModel.count({ where: { lowerEmail: email.toLowerCase(), uid: { [Op.ne]: uid } }, transaction: ctx.tx })) > 0;
}

/** Every individual user, by id (the CLI's user list). */
export function allIndividualUsers(ctx: DbContext): Promise<UserModel[]> {
  return UserModel.findAll({ where: { type: UserType.Individual }, order: [['id', 'ASC']], transaction: ctx.tx });
}

/**
 * Set must_change_password on individual users: those named (lower-case names), or all of them,
 * less those excluded. Returns how many users changed (those that had it already are not counted).
 */
export async function updateMustChangePassword(ctx: DbContext, target: { all: boolean; lowerNames: string[]; excludeLowerNames: string[] }, value: boolean): Promise<number> {
  const where: Record<string | symbol, unknown> = { type: UserType.Individual, mustChangePassword: !value };
  const name: Record<symbol, unknown> = {};
  if (!target.all) name[Op.in] = target.lowerNames;
  if (target.excludeLowerNames.length) name[Op.notIn] = target.excludeLowerNames;
  if (Object.getOwnPropertySymbols(name).length) where.lowerName = name;
  const [n] = await UserModel.update({ mustChangePassword: value }, { where, transaction: ctx.tx });
  return n;
}
