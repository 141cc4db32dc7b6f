/**
 * How other servers find this one and its people: nodeinfo (what software runs here and how much
 * it is used; the counts are kept three minutes per process, as Gitea keeps them) and webfinger
 * (`acct:name@host` or `mailto:` to a user's actor), each only with [federation] ENABLED.
 */
import type { DbContext } from '../../db';
import { BadRequest, NotFound } from '../../errors';
import { settings } from '../../config';
import { findUserByName, type UserModel } from '../../models/user.model';
import { findUsersByEmails } from '../../models/email-address.model';
import { instanceUsage, type InstanceUsage } from '../../models/instance-usage';
import type { Principal } from '../auth/principal';
import { canSeeOwner } from '../perm/permission';
import { assertFederationEnabled } from './person.service';

const USAGE_TTL_MS = 180_000;
let usage: { at: number; value: Promise<InstanceUsage> } | null = null;

/** The instance's usage counts, or null when [federation] SHARE_USER_STATISTICS is off. */
export async function nodeUsage(ctx: DbContext): Promise<InstanceUsage | null> {
  assertFederationEnabled();
  if (!settings().federation.shareUserStatistics) return null;
  if (!usage || Date.now() - usage.at > USAGE_TTL_MS) {
    const now = new Date();
    const monthAgo = new Date(now);
    monthAgo.setMonth(now.getMonth() - 1);
    const halfYearAgo = new Date(now);
    halfYearAgo.setMonth(now.getMonth() - 6);
    usage = { at: Date.now(), value: instanceUsage(ctx, monthAgo, halfYearAgo) };
    usage.value.catch(() => { usage = null; });
  }
  return usage.value;
}

/**
 * The user a webfinger `resource` names: `acct:name@host` (this server's host, 400 otherwise) or
 * `mailto:address` (a public address only); 404 for nobody, or for a user the caller may not see.
 */
export async function webfingerUser(ctx: DbContext, p: Principal, resource: string): Promise<UserModel> {
  assertFederationEnabled();
  const r = resource.trim();
  let user: UserModel | null | undefined = null;
  if (/^acct:/i.test(r)) {
    const rest = r.slice(5);
    const at = rest.indexOf('@');
    if (at < 0 || rest.slice(at + 1) !== new URL(settings().server.rootUrl).host) throw new BadRequest('the resource must be acct:name@' + new URL(settings().server.rootUrl).host);
    user = rest.slice(0, at) ? await findUserByName(ctx, rest.slice(0, at)) : null;
  } else if (/^mailto:/i.test(r)) {
    const email = r.slice(7).toLowerCase();
    user = (await findUsersByEmails(ctx, [email])).get(email);
    if (user?.keepEmailPrivate) user = null;
  } else {
    throw new BadRequest('the resource must be an acct: or mailto: URI');
  }
  if (!user || !(await canSeeOwner(ctx, p, user))) throw new NotFound();
  return user;
}
