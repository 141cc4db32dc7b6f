/**
 * Creating users: one path for the CLI, the admin API and self sign-up, so every rule
 * (names, emails, domains, passwords, uniqueness) is checked the same way.
 */
import { withTx, isUniqueViolation, type DbContext } from '../../db';
import { settings } from '../../config';
import { Conflict, Forbidden, Validation } from '../../errors';
import { UserModel, UserType, Visibility, VISIBILITY_NAMES, findUserByName, type VisibilityName } from '../../models/user.model';
import { deleteUserRedirect } from '../../models/user-redirect.model';
import { findEmail, insertEmail } from '../../models/email-address.model';
import { hashPassword } from '../auth/password';
import { assertUsername, assertEmail, assertPassword, emailDomainAllowed } from './validate';

/** What it takes to create an individual user. */
export interface NewUser {
  username: string;
  email: string;
  password: string;
  fullName?: string;
  loginName?: string;
  sourceId?: number;
  mustChangePassword?: boolean;
  isAdmin?: boolean;
  restricted?: boolean;
  visibility?: string;
  isActive?: boolean;
  /** Backdated creation time (RFC 3339), for migrations. */
  createdAt?: string;
}

/** Who asks: an administrator (API or CLI) may bypass the email domain rules, a self sign-up may not. */
export type Creator = 'admin' | 'signup';

/** Result of creating a user: the row, and a warning when an admin bypassed the domain allowlist. */
export interface Created { user: UserModel; warning: string | null }

/** Parse an API visibility name; throws 422 for anything else. */
export function parseVisibility(v: string | undefined, def: string): Visibility {
  const name = (v ?? def) as VisibilityName;
  const i = VISIBILITY_NAMES.indexOf(name);
  if (i < 0) throw new Validation(`visibility must be one of ${VISIBILITY_NAMES.join(', ')}`);
  return i as Visibility;
}

/** Create an individual user with its primary email, after checking every rule. */
export async function createUser(ctx: DbContext, input: NewUser, by: Creator): Promise<Created> {
  assertUsername(input.username);
  assertEmail(input.email);
  assertPassword(input.password);
  const visibility = parseVisibility(input.visibility, settings().service.defaultUserVisibility);
  let warning: string | null = null;
  if (!emailDomainAllowed(input.email)) {
    if (by === 'signup') throw new Forbidden('the email domain is not allowed to register');
    warning = `the domain of user email ${input.email} conflicts with EMAIL_DOMAIN_ALLOWLIST or EMAIL_DOMAIN_BLOCKLIST`;
  }
  let createdAt: Date | undefined;
  if (input.createdAt) {
    createdAt = new Date(input.createdAt);
    if (Number.isNaN(createdAt.getTime())) throw new Validation('[CreatedAt]: invalid time');
  }
  const passwdHash = await hashPassword(input.password);
  try {
    const user = await withTx(ctx, async (tx) => {
      if (await findUserByName(tx, input.username)) throw new Validation(`user already exists [name: ${input.username}]`);
      if (await findEmail(tx, input.email)) throw new Validation(`e-mail already in use [email: ${input.email}]`);
      const u = await UserModel.create({
        name: input.username,
        lowerName: input.username.toLowerCase(),
        email: input.email,
        fullName: input.fullName ?? '',
        loginName: input.loginName ?? input.username,
        loginSource: input.sourceId ?? 0,
        passwdHash,
        mustChangePassword: input.mustChangePassword ?? false,
        isAdmin: input.isAdmin ?? false,
        isRestricted: input.restricted ?? false,
        isActive: input.isActive ?? true,
        emailNotificationsPreference: settings().admin.defaultEmailNotifications,
        visibility,
        type: UserType.Individual,
        keepEmailPrivate: settings().service.defaultKeepEmailPrivate,
        allowCreateOrganization: settings().service.defaultAllowCreateOrganization,
        ...(createdAt ? { createdAt } : {}),
      }, { transaction: tx.tx, silent: !!createdAt });
      await insertEmail(tx, u.id, input.email, true, u.isActive);
      // why: the name is taken again, so an old name of a renamed account no longer leads there.
      await deleteUserRedirect(tx, input.username);
      return u;
    });
    return { user, warning };
  } catch (err) {
    // why: two sign-ups racing for one name or email meet the unique index; that is a conflict, not a 500.
    if (isUniqueViolation(err)) throw new Conflict(`user or e-mail already exists [name: ${input.username}]`);
    throw err;
  }
}
