/**
 * Who a file change is committed as, and its message, following Gitea: an author or committer given
 * by email is used as given (the caller's own email keeps the caller), one given alone stands for
 * both, and none means the caller; the default message lists the added, updated and deleted paths.
 */
import { settings } from '../../config';
import { Validation } from '../../errors';
import type { UserModel } from '../../models/user.model';
import type { CommitPerson } from '../../git/tree-edit';

/** A name and email from the request. */
export interface IdentityInput { name?: string; email?: string }

/** Git refuses these in names and emails; strip them so no identity can break the commit header. */
function gitSafe(s: string): string {
  return s.replace(/[<>\0\n\r]/g, '').trim();
}

/** The caller's git identity (the no-reply placeholder when the email is private). */
function doerIdentity(doer: UserModel): { name: string; email: string } {
  const email = doer.keepEmailPrivate || !doer.email ? `${doer.lowerName}@noreply.${new URL(settings().server.rootUrl).hostname}` : doer.email;
  return { name: gitSafe(doer.fullName) || gitSafe(doer.name) || `user-${doer.id}`, email };
}

function given(doer: UserModel, i: IdentityInput | undefined): { name: string; email: string } | null {
  const email = gitSafe(i?.email ?? '');
  if (!email) return null;
  if (doer.email && email.toLowerCase() === doer.email.toLowerCase()) {
    // why: as Gitea, the caller's own address keeps the caller, with the given name and the real (not placeholder) email.
    return { name: gitSafe(i?.name ?? '') || gitSafe(doer.fullName) || gitSafe(doer.name), email: doer.email };
  }
  return { name: gitSafe(i?.name ?? '') || 'user-0', email };
}

function parseDate(v: string | undefined, field: string, now: Date): Date {
  if (v === undefined || v === '') return now;
  const d = new Date(v);
  if (Number.isNaN(d.getTime()) || !/^\d{4}-\d{2}-\d{2}T/.test(v)) throw new Validation(`[Dates.${field}]: invalid date ${JSON.stringify(v)}`);
  return d;
}

/** Author and committer of a change made by `doer`. */
export function commitPeople(doer: UserModel, author: IdentityInput | undefined, committer: IdentityInput | undefined, dates: { author?: string; committer?: string } | undefined): { author: CommitPerson; committer: CommitPerson } {
  const now = new Date();
  const c = given(doer, committer);
  const a = given(doer, author) ?? c ?? doerIdentity(doer);
  return {
    author: { ...a, date: parseDate(dates?.author, 'Author', now) },
    committer: { ...(c ?? a), date: parseDate(dates?.committer, 'Committer', now) },
  };
}

/** Gitea's default message: "Add a, b", "Update c", "Delete d" on separate lines. */
export function defaultMessage(ops: { operation: string; path: string }[]): string {
  const by = (kinds: string[]) => ops.filter((o) => kinds.includes(o.operation)).map((o) => o.path);
  const lines: string[] = [];
  const add = by(['create']);
  const upd = by(['update', 'upload', 'rename']);
  const del = by(['delete']);
  if (add.length) lines.push(`Add ${add.join(', ')}`);
  if (upd.length) lines.push(`Update ${upd.join(', ')}`);
  if (del.length) lines.push(`Delete ${del.join(', ')}`);
  return lines.join('\n');
}

/** The stored message: the trimmed text plus a newline, and the committer's Signed-off-by trailer on request. */
export function finalMessage(message: string, signoff: boolean, committer: CommitPerson): string {
  let out = `${message.trim()}\n`;
  if (signoff) out += `\nSigned-off-by: ${committer.name} <${committer.email}>`;
  return out;
}
