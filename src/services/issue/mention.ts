/** `@name` mentions in issue and comment texts, recorded for the `mentioned_by` filter. */
import type { DbContext } from '../../db';
import { findUserByName, UserType, type UserModel } from '../../models/user.model';
import { markMentioned } from '../../models/issue-links';
import { isBlocked } from '../../models/user-blocking.model';
import type { IssueModel } from '../../models/issue.model';
import { AccessMode } from '../../models/perm';
import { repoPermission } from '../perm/permission';
import { asUser } from '../auth/principal';
import type { RepoContext } from '../repo/context';
import { unitOf } from './access';

const MENTION = /(?:^|[^\w.`/@-])@([\da-zA-Z][\w.-]*[\da-zA-Z]|[\da-zA-Z])/g;
/** At most this many names of one text are looked up. */
const MAX_MENTIONS = 20;

/** The names mentioned in a text, outside code spans, in order and without repeats. */
export function mentionedNames(text: string): string[] {
  const plain = text.replace(/```[\s\S]*?```/g, ' ').replace(/`[^`\n]*`/g, ' ');
  const names = [...plain.matchAll(MENTION)].map((m) => m[1]);
  return [...new Set(names.map((n) => n.toLowerCase()))].slice(0, MAX_MENTIONS);
}

/**
 * Record the users a text mentions who exist and can read the issue (the author, and users who
 * blocked the author, excluded); their ids, to notify.
 * why: Gitea drops mentions of users who cannot see the issue, so a mention never leaks it.
 */
export async function recordMentions(tx: DbContext, rc: RepoContext, issue: IssueModel, doer: UserModel, text: string): Promise<number[]> {
  const ids: number[] = [];
  for (const name of mentionedNames(text)) {
    const user = await findUserByName(tx, name);
    if (!user || user.id === doer.id || user.type !== UserType.Individual || !user.isActive || user.prohibitLogin) continue;
    if (!doer.isAdmin && (await isBlocked(tx, user.id, doer.id))) continue;
    const perm = await repoPermission(tx, asUser(user), rc.repo, rc.owner);
    if (perm.can(unitOf(issue.isPull), AccessMode.Read)) ids.push(user.id);
  }
  await markMentioned(tx, issue.id, ids);
  return ids;
}
