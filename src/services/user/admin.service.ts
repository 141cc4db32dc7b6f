/**
 * Site administration of users: edit, delete and rename, with Gitea's rules (the last site
 * administrator stays, an administrator cannot delete themself, owners of repositories and
 * members of organizations are deleted only with purge). Each operation is one transaction.
 */
import { withTx, isUniqueViolation, type DbContext } from '../../db';
import { BadRequest, NotFound, Validation } from '../../errors';
import { findUserByName, findUserById, UserType, type UserModel } from '../../models/user.model';
import { countAdminsLocked, emailUsedByOther, findUserForUpdate, makePrimaryEmail, tokenHashesOf, updateUserColumns, allIndividualUsers, updateMustChangePassword } from '../../models/user-admin';
import { findEmail } from '../../models/email-address.model';
import { hashPassword } from '../auth/password';
import { forgetRememberTokensOf } from '../auth/remember.service';
import { notify } from '../notify/notifier';
import { revokeCachedToken } from '../auth/token-cache';
import { parseVisibility } from './user.service';
import { renameAccount } from './rename.service';
import { assertEmail, assertPassword, emailDomainAllowed } from './validate';

/** What an administrator may change on a user; absent fields stay as they are. */
export interface UserEdit {
  loginName: string;
  sourceId?: number;
  email?: string;
  password?: string;
  mustChangePassword?: boolean;
  fullName?: string;
  website?: string;
  location?: string;
  description?: string;
  active?: boolean;
  admin?: boolean;
  allowGitHook?: boolean;
  allowImportLocal?: boolean;
  maxRepoCreation?: number;
  prohibitLogin?: boolean;
  allowCreateOrganization?: boolean;
  restricted?: boolean;
  visibility?: string;
}

/** An edited user and the warning to send when its new email bypasses the domain lists. */
export interface Edited { user: UserModel; warning: string | null }

export function lastAdmin(uid: number): Validation {
  return new Validation(`can not delete the last admin user [uid: ${uid}]`);
}

export function notAnIndividual(u: UserModel): Validation {
  return new Validation(`${u.name} is an organization not a user`);
}

/** Gitea's ValidUrl: empty, or an absolute http(s) URL. */
function isValidUrl(s: string): boolean {
  if (s === '') return true;
  try {
    const u = new URL(s);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

/** Forget the cached lookups of every token of a user, in every process. */
export async function dropCachedTokens(ctx: DbContext, uid: number): Promise<void> {
  for (const h of await tokenHashesOf(ctx, uid)) revokeCachedToken(h);
}

/** Apply an administrator's edit to an individual user; every rule is checked before anything is written. */
export async function editUser(ctx: DbContext, target: UserModel, e: UserEdit): Promise<Edited> {
  if (target.type !== UserType.Individual) throw notAnIndividual(target);
  if (typeof e.loginName !== 'string' || e.loginName === '') throw new Validation('[LoginName]: Required');
  if (e.password) assertPassword(e.password);
  if (e.email !== undefined) {
    try {
      assertEmail(e.email);
    } catch (err) {
      // why: Gitea answers a bad address on edit with 400 (422 is for the create form's binding).
      if (err instanceof Validation) throw new BadRequest(err.message);
      throw err;
    }
  }
  if (e.website !== undefined && !isValidUrl(e.website)) throw new Validation('[Website]: Url');
  const cols: Record<string, unknown> = { loginName: e.loginName };
  if (e.visibility) cols.visibility = parseVisibility(e.visibility, 'public');
  if (e.sourceId) cols.loginSource = e.sourceId;
  if (e.password) cols.passwdHash = await hashPassword(e.password);
  const simple: [keyof UserEdit, string][] = [
    ['mustChangePassword', 'mustChangePassword'], ['fullName', 'fullName'], ['website', 'website'], ['location', 'location'],
    ['description', 'description'], ['active', 'isActive'], ['admin', 'isAdmin'], ['allowGitHook', 'allowGitHook'],
    ['allowImportLocal', 'allowImportLocal'], ['maxRepoCreation', 'maxRepoCreation'], ['prohibitLogin', 'prohibitLogin'],
    ['allowCreateOrganization', 'allowCreateOrganization'], ['restricted', 'isRestricted'],
  ];
  for (const [from, to] of simple) if (e[from] !== undefined) cols[to] = e[from];

  let user: UserModel;
  try {
    user = await withTx(ctx, async (tx) => {
      const fresh = await findUserForUpdate(tx, target.id);
      if (!fresh) throw new NotFound(`user redirect does not exist [name: ${target.name}]`);
      if (e.admin === false && fresh.isAdmin && (await countAdminsLocked(tx)) <= 1) throw lastAdmin(fresh.id);
      if (e.email !== undefined && e.email.toLowerCase() !== fresh.email.toLowerCase()) {
        if (await emailUsedByOther(tx, e.email, fresh.id)) throw new BadRequest(`e-mail already in use [email: ${e.email}]`);
        await makePrimaryEmail(tx, fresh.id, e.email);
      }
      await updateUserColumns(tx, fresh.id, cols);
      if (e.password) {
        await notify.accountSecurityChanged(tx, { user: fresh, change: 'password' });
        // why: whoever knew the old password must not stay signed in through a remembered browser.
        await forgetRememberTokensOf(tx, fresh.id);
      }
      return (await findUserById(tx, fresh.id))!;
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw new BadRequest(`e-mail already in use [email: ${e.email}]`);
    throw err;
  }
  // why: the committed users write already clears every process's user cache, so these take effect at once;
  // dropping the cached token lookups as well leaves nothing from before the change in any process.
  if (e.password || e.prohibitLogin === true || e.active === false) await dropCachedTokens(ctx, user.id);
  const warning = e.email !== undefined && !emailDomainAllowed(e.email)
    ? `the domain of user email ${e.email} conflicts with EMAIL_DOMAIN_ALLOWLIST or EMAIL_DOMAIN_BLOCKLIST`
    : null;
  return { user, warning };
}

/** Rename an individual user (204 in the API); repositories follow, and the old name redirects (renameAccount). */
export async function renameUser(ctx: DbContext, target: UserModel, newName: string): Promise<void> {
  if (target.type !== UserType.Individual) throw notAnIndividual(target);
  await renameAccount(ctx, target, newName);
}

/** Every individual user by id, for the CLI's list. */
export function listAllUsers(ctx: DbContext): Promise<UserModel[]> {
  return allIndividualUsers(ctx);
}

/**
 * The individual user the CLI names by id, username and/or email; every one given must name the
 * same user (Gitea's `admin user delete` checks the same).
 */
export async function findUserForCli(ctx: DbContext, by: { id?: string; username?: string; email?: string }): Promise<UserModel> {
  let user: UserModel | null = null;
  const same = (u: UserModel | null, what: string) => {
    if (!u || u.type !== UserType.Individual) throw new NotFound(`user does not exist [uid: 0, ${what}]`);
    if (user && user.id !== u.id) throw new Validation(`the ${what} names another user than ${user.name}`);
    user = u;
  };
  if (by.id !== undefined) {
    if (!/^\d+$/.test(by.id)) throw new Validation(`--id must be a number: ${by.id}`);
    same(await findUserById(ctx, Number(by.id)), `id: ${by.id}`);
  }
  if (by.username !== undefined) same(await findUserByName(ctx, by.username), `name: ${by.username}`);
  if (by.email !== undefined) {
    const row = await findEmail(ctx, by.email);
    same(row ? await findUserById(ctx, row.uid) : null, `email: ${by.email}`);
  }
  return user!;
}

/** Set a user's password (Gitea's length rule applies) and whether they must change it at next sign-in. */
export async function setPassword(ctx: DbContext, user: UserModel, password: string, mustChange: boolean): Promise<void> {
  if (!password) throw new Validation('[Password]: Required');
  await editUser(ctx, user, { loginName: user.loginName || user.name, password, mustChangePassword: mustChange });
}

/**
 * Set must_change_password for the named users (unknown names are ignored, as Gitea does), or all
 * users, less the excluded ones; returns how many users it changed.
 */
export function setMustChangePassword(ctx: DbContext, t: { all: boolean; names: string[]; exclude: string[] }, value: boolean): Promise<number> {
  const lower = (names: string[]) => names.map((n) => n.trim().toLowerCase()).filter(Boolean);
  return updateMustChangePassword(ctx, { all: t.all, lowerNames: lower(t.names), excludeLowerNames: lower(t.exclude) }, value);
}
