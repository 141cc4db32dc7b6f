/** Matching git identities (commit author and committer emails) to users, as Gitea's GetUserByEmail does. */
import type { DbContext } from '../db';
import { Op, fn, col, where } from 'sequelize';
import { UserModel } from './user.model';
import { EmailAddressModel } from './email-address.model';

/**
 * Lower-cased email -> user name for the given emails: a user's primary email, else an activated
 * secondary address. Unknown emails are left out.
 */
export async function userNamesByEmails(ctx: DbContext, emails: string[]): Promise<Map<string, string>> {
  const lower = [...new Set(emails.map((e) => e.toLowerCase()).filter(Boolean))];
  const out = new Map<string, string>();
  if (lower.length === 0) return out;
  const users = await UserModel.findAll({ where: where(fn('lower', col('email')), { [Op.in]: lower }), attributes: ['name', 'email'], transaction: ctx.tx });
  for (const u of users) out.set(u.email.toLowerCase(), u.name);
  const rest = lower.filter((e) => !out.has(e));
  if (rest.length === 0) return out;
  const rows = await EmailAddressModel.findAll({ where: { lowerEmail: { [Op.in]: rest }, isActivated: true }, attributes: ['uid', 'lowerEmail'], transaction: ctx.tx });
  const owners = new Map((await UserModel.findAll({ where: { id: { [Op.in]: rows.map((r) => r.uid) } }, attributes: ['id', 'name'], transaction: ctx.tx })).map((u) => [u.id, u.name]));
  for (const r of rows) {
    const name = owners.get(r.uid);
    if (name) out.set(r.lowerEmail, name);
  }
  return out;
}
