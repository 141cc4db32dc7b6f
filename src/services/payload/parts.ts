/**
 * The parts of event payloads, as Gitea converts them for hooks and Actions: users as a signed-out
 * viewer sees them (the placeholder email unless public), the repository with the permission the
 * event names (an owner's, none, or the doer's own), and commits with their authors' usernames.
 * why: payloads are API objects; this folder and the webhook emitters are the service code that converts.
 */
import { settings } from '../../config';
import type { DbContext } from '../../db';
import type { Repository } from '../../api/repo';
import type { User } from '../../api/user';
import type { PayloadCommit } from '../../api/refs';
import { toRepositoryView } from '../../convert/repo';
import { toUser } from '../../convert/user';
import { toPayloadCommit } from '../../convert/refs';
import { pseudoUser, type UserModel } from '../../models/user.model';
import type { RepositoryModel } from '../../models/repository.model';
import { findUsersByEmails } from '../../models/email-address.model';
import type { CommitRecord } from '../../git/history';
import { asUser, ANONYMOUS } from '../auth/principal';
import { viewOf, type RepoView } from '../repo/repo.service';

const rootUrl = () => settings().server.rootUrl;


/** A user as hooks show it (signed-out: no admin fields, the placeholder email unless public); the Ghost for none. */
export function hookUser(u: UserModel | null): User {
  return toUser(u ?? pseudoUser(-1), null, rootUrl());
}

/** Whose permission the payload's repository carries: an owner's (all true), none (all false), or the doer's own. */
export type PayloadAccess = 'owner' | 'none' | 'doer';

/** The repository of a payload, read in `ctx` (in the change's transaction, it shows the counts the change moved). */
export async function hookRepo(ctx: DbContext, repo: RepositoryModel, owner: UserModel, doer: UserModel | null, access: PayloadAccess): Promise<Repository> {
  return repoPayload(await viewOf(ctx, doer ? asUser(doer) : ANONYMOUS, repo, owner), access);
}

/** A repository view as payloads show it, with the permission `access` names. */
export function repoPayload(v: RepoView, access: PayloadAccess): Repository {
  const permissions = access === 'doer' ? v.permissions : { admin: access === 'owner', push: access === 'owner', pull: access === 'owner' };
  return toRepositoryView({ ...v, permissions }, null, rootUrl());
}

/** Commits as a push payload lists them, with the usernames of their authors and committers found by email. */
export async function hookCommits(ctx: DbContext, commits: (CommitRecord & { files?: { status: string; path: string }[] })[], repoHtml: string): Promise<PayloadCommit[]> {
  const emails = [...new Set(commits.flatMap((c) => [c.author.email.toLowerCase(), c.committer.email.toLowerCase()]))];
  const found = await findUsersByEmails(ctx, emails);
  const usernames = new Map([...found].map(([e, u]) => [e.toLowerCase(), u.name]));
  return commits.map((c) => {
    const pc = toPayloadCommit({ ...c, verification: null }, { html: repoHtml, api: '' }, usernames);
    if (c.files) {
      pc.added = c.files.filter((f) => f.status === 'A').map((f) => f.path);
      pc.removed = c.files.filter((f) => f.status === 'D').map((f) => f.path);
      pc.modified = c.files.filter((f) => f.status !== 'A' && f.status !== 'D').map((f) => f.path);
    }
    return pc;
  });
}

/** One verified commit as the test delivery shows it (with its verification, without files). */
export function hookVerifiedCommit(c: Parameters<typeof toPayloadCommit>[0], repoHtml: string, usernames: Map<string, string>): PayloadCommit {
  return toPayloadCommit(c, { html: repoHtml, api: '' }, usernames);
}
