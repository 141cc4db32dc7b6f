/**
 * Notification mails (Gitea's services/mailer, made durable). An event queues one `mail.event` job
 * in its transaction (notifier.ts); a worker of any node finds the recipients, renders the mail
 * once, and queues one `mail.send` message per recipient in the same transaction that completes the
 * job, so a crash never mails anyone twice from one event nor loses the event.
 *
 * Recipients of an issue's or pull request's mail, as Gitea picks them: the users it mentions (who
 * want mail, `onmention` included), then everyone who follows it (explicit subscribers, the poster,
 * assignees, commenters, and the repository's watchers unless a pull request is work in progress)
 * who want all mail (`enabled`, `andyourown`), less those who unsubscribed from it. The doer only
 * with `andyourown`. Never a user who cannot read the issue's unit, nor one who blocked the doer.
 */
import { settings } from '../../config';
import { systemCtx, withTx, type DbContext } from '../../db';
import { completeInTx } from '../../queue/outbox';
import type { OutboxJobRef } from '../../queue/worker';
import { escapeHtml as esc } from '../../markup/sanitize';
import { findIssueById, type IssueModel } from '../../models/issue.model';
import { findCommentById } from '../../models/comment.model';
import { findRepoById, type RepositoryModel } from '../../models/repository.model';
import { findUserById, findUsersByIds, UserType, type UserModel } from '../../models/user.model';
import { followerIds, unwatcherIds } from '../../models/issue-watch';
import { assigneeIdsOfIssues } from '../../models/issue-links';
import { blockersAmong } from '../../models/user-blocking.model';
import { isDraftTitle } from '../../models/pull-request.model';
import { listWatcherIds } from '../../models/watch.model';
import { findReleaseById } from '../../models/release.model';
import { findRunById } from '../../models/action-run.model';
import { AccessMode, UnitType } from '../../models/perm';
import { repoPermission } from '../perm/permission';
import { ANONYMOUS, asUser } from '../auth/principal';
import { unitOf } from '../issue/access';
import { renderComments } from '../markup/markup.service';
import { addressed, mailDomain, textOf, queueMails, type MailContent, type MailMessage } from './message';
import { frame, link } from './templates';

/** The outbox topic of events to mail about. */
export const EVENT_TOPIC = 'mail.event';

/** What happened to an issue or pull request, in Gitea's mail action names. */
export type IssueAction =
  | 'new' | 'comment' | 'close' | 'reopen' | 'merge' | 'approve' | 'reject' | 'review' | 'push' | 'ready_for_review' | 'assigned' | 'review_request';

/** A queued event. `at`: when it happened (ms), so a retried job makes the same Message-IDs. */
export type MailEvent =
  | { kind: 'issue'; issueId: number; commentId: number; doerId: number; action: IssueAction; mentioned: number[]; only?: number[]; ignoreWip?: boolean; at: number }
  | { kind: 'release'; repoId: number; releaseId: number; doerId: number }
  | { kind: 'run'; runId: number; at: number };

/** Does a user want this mail? (`direct`: they are mentioned or addressed, not only a follower.) */
function wants(u: UserModel, direct: boolean): boolean {
  const p = u.emailNotificationsPreference;
  return direct ? p !== 'disabled' : p === 'enabled' || p === 'andyourown';
}

const mailable = (u: UserModel) => u.type === UserType.Individual && u.isActive && !u.prohibitLogin && !!u.email;

async function readers(ctx: DbContext, users: UserModel[], repo: RepositoryModel, owner: UserModel, unit: UnitType): Promise<UserModel[]> {
  const out: UserModel[] = [];
  for (const u of users) if ((await repoPermission(ctx, asUser(u), repo, owner)).can(unit, AccessMode.Read)) out.push(u);
  return out;
}

/** The outbox handler of `mail.event`. */
export async function expandMailEvent(payload: unknown, job: OutboxJobRef): Promise<void> {
  const e = payload as MailEvent;
  const messages = e.kind === 'issue' ? await issueMails(e) : e.kind === 'release' ? await releaseMails(e) : await runMails(e);
  await withTx(systemCtx, async (tx) => {
    await queueMails(tx, messages);
    await completeInTx(tx, job);
  });
}

/**
 * Markdown as a mail shows it: rendered as the comment's page does, with absolute links.
 * why: as an anonymous reader, since one rendering goes to every recipient and must name nothing
 * (a private user's profile) that one of them may not see.
 */
async function rendered(owner: UserModel, repo: RepositoryModel, text: string): Promise<string> {
  if (!text) return '';
  const rc = { owner, repo, perm: await repoPermission(systemCtx, ANONYMOUS, repo, owner) };
  return (await renderComments(systemCtx, ANONYMOUS, rc, [text]))[0].toString('utf8');
}

/** The repository's paths as mails name them. */
function places(owner: UserModel, repo: RepositoryModel) {
  const path = `${owner.name}/${repo.name}`;
  return { path, url: `${settings().server.rootUrl}${path}` };
}

async function issueMails(e: Extract<MailEvent, { kind: 'issue' }>): Promise<MailMessage[]> {
  const ctx = systemCtx;
  const issue = await findIssueById(ctx, e.issueId);
  const repo = issue && (await findRepoById(ctx, issue.repoId));
  const owner = repo && (await findUserById(ctx, repo.ownerId));
  const doer = await findUserById(ctx, e.doerId);
  if (!issue || !repo || !owner || !doer) return [];
  const visited = new Set<number>(doer.emailNotificationsPreference === 'andyourown' ? [] : [doer.id]);
  // why: a user addressed directly (mentioned, assigned, asked to review) gets it unless their mail is off; a follower only with all mail on.
  const chosen: { user: UserModel; mention: boolean }[] = [];
  const take = async (ids: number[], how: 'mention' | 'direct' | 'follow') => {
    const users = (await findUsersByIds(ctx, ids.filter((id) => !visited.has(id)))).filter((u) => mailable(u) && wants(u, how !== 'follow'));
    for (const u of await readers(ctx, users, repo, owner, unitOf(issue.isPull))) {
      visited.add(u.id);
      chosen.push({ user: u, mention: how === 'mention' });
    }
  };
  if (e.only) await take(e.only, 'direct');
  else {
    await take(e.mentioned, 'mention');
    for (const id of await unwatcherIds(ctx, issue.id)) visited.add(id);
    const withWatchers = e.ignoreWip || !issue.isPull || !isDraftTitle(issue.name);
    const assignees = (await assigneeIdsOfIssues(ctx, [issue.id])).get(issue.id) ?? [];
    await take([...new Set([...(await followerIds(ctx, issue.id, withWatchers)), ...assignees])], 'follow');
  }
  const blockers = await blockersAmong(ctx, doer.id, chosen.map((c) => c.user.id));
  const to = chosen.filter((c) => !blockers.has(c.user.id));
  if (to.length === 0) return [];
  const comment = e.commentId ? await findCommentById(ctx, e.commentId) : null;
  const text = e.action === 'new' ? issue.content : comment?.content ?? '';
  const { path, url: repoUrl } = places(owner, repo);
  const kind = issue.isPull ? 'pulls' : 'issues';
  const issueUrl = `${repoUrl}/${kind}/${issue.index}`;
  const body = await rendered(owner, repo, text);
  const domain = mailDomain();
  const thread = `<${path}/${kind}/${issue.index}@${domain}>`;
  const messageId = e.commentId ? `<${path}/${kind}/${issue.index}/comment/${e.commentId}@${domain}>`
    : e.action === 'new' ? thread : `<${path}/${kind}/${issue.index}/${e.action}/${e.at}@${domain}>`;
  const subject = `${e.action === 'new' ? '' : 'Re: '}[${path}] ${issue.name} (#${issue.index})`;
  const headers: Record<string, string> = {
    'In-Reply-To': thread, References: thread,
    'List-ID': `${path} <${repo.name}.${owner.name}.${domain}>`, 'List-Archive': `<${repoUrl}>`, 'List-Unsubscribe': `<${issueUrl}>`,
    'X-Mailer': 'Forge', 'X-Gitea-Reason': issue.isPull ? 'pull' : 'issue', 'X-Gitea-Sender': doer.name,
    'X-Gitea-Repository': repo.name, 'X-Gitea-Repository-Path': path, 'X-Gitea-Repository-Link': repoUrl,
    'X-Gitea-Issue-ID': String(issue.index), 'X-Gitea-Issue-Link': issueUrl,
  };
  const target = e.commentId && e.action !== 'new' ? `${issueUrl}#issuecomment-${e.commentId}` : issueUrl;
  const content = (mention: boolean): MailContent => ({
    subject, messageId, headers, fromName: doer.fullName || doer.name,
    html: frame(subject, `${mention ? `<p>@${esc(doer.name)} mentioned you:</p>` : ''}<p>${actionLine(e.action, doer, issue, repoUrl)}</p>${body}`,
      `${link(target, `View it on ${settings().appName}`)}. You receive this because you follow ${esc(path)}; change it in ${link(`${settings().server.rootUrl}user/settings/account`, 'your mail settings')}.`),
  });
  // why: the body is rendered (and made text) once per variant, not once per recipient.
  const variants = new Map<boolean, { c: MailContent; text: string }>();
  return to.map(({ user, mention }) => {
    if (!variants.has(mention)) { const c = content(mention); variants.set(mention, { c, text: textOf(c.html) }); }
    const v = variants.get(mention)!;
    const msg = addressed(v.c, { address: user.email }, v.text);
    msg.headers = { ...msg.headers, 'X-Gitea-Recipient': user.name, 'X-Gitea-Recipient-Address': user.email };
    return msg;
  });
}

function actionLine(action: IssueAction, doer: UserModel, issue: IssueModel, repoUrl: string): string {
  const who = link(`${settings().server.rootUrl}${doer.name}`, `@${doer.name}`);
  const what = `${issue.isPull ? 'pull request' : 'issue'} ${link(`${repoUrl}/${issue.isPull ? 'pulls' : 'issues'}/${issue.index}`, `#${issue.index}`)}`;
  switch (action) {
    case 'new': return `${who} opened ${what}: <b>${esc(issue.name)}</b>.`;
    case 'close': return `${who} closed ${what}.`;
    case 'reopen': return `${who} reopened ${what}.`;
    case 'merge': return `${who} merged ${what}.`;
    case 'approve': return `${who} approved ${what}.`;
    case 'reject': return `${who} requested changes on ${what}.`;
    case 'review': return `${who} reviewed ${what}.`;
    case 'push': return `${who} pushed commits to ${what}.`;
    case 'ready_for_review': return `${who} marked ${what} ready for review.`;
    case 'assigned': return `${who} assigned you to ${what}.`;
    case 'review_request': return `${who} requested your review on ${what}.`;
    default: return `${who} commented on ${what}.`;
  }
}

async function releaseMails(e: Extract<MailEvent, { kind: 'release' }>): Promise<MailMessage[]> {
  const ctx = systemCtx;
  const repo = await findRepoById(ctx, e.repoId);
  const owner = repo && (await findUserById(ctx, repo.ownerId));
  const release = repo && (await findReleaseById(ctx, repo.id, e.releaseId));
  const doer = await findUserById(ctx, e.doerId);
  if (!repo || !owner || !release || !doer) return [];
  const { ids } = await listWatcherIds(ctx, repo.id, 100_000, 0);
  // why: as Gitea, the publisher never gets the mail of their own release.
  const users = (await findUsersByIds(ctx, ids.filter((id) => id !== doer.id))).filter((u) => mailable(u) && wants(u, false));
  const blockers = await blockersAmong(ctx, doer.id, users.map((u) => u.id));
  const to = (await readers(ctx, users.filter((u) => !blockers.has(u.id)), repo, owner, UnitType.Releases));
  if (to.length === 0) return [];
  const { path, url: repoUrl } = places(owner, repo);
  const url = `${repoUrl}/releases/tag/${encodeURIComponent(release.tagName)}`;
  const notes = await rendered(owner, repo, release.note);
  const subject = `${release.tagName} in ${path} released`;
  const c: MailContent = {
    subject, fromName: doer.fullName || doer.name, messageId: `<${path}/releases/${release.id}@${mailDomain()}>`,
    html: frame(subject, `<p>@${esc(doer.name)} released ${link(url, release.title || release.tagName)} in ${link(repoUrl, path)}.</p>${notes}`, link(url, `View it on ${settings().appName}`)),
  };
  const text = textOf(c.html);
  return to.map((u) => addressed(c, { address: u.email, name: u.fullName || u.name }, text));
}

async function runMails(e: Extract<MailEvent, { kind: 'run' }>): Promise<MailMessage[]> {
  const ctx = systemCtx;
  const run = await findRunById(ctx, e.runId);
  const repo = run && (await findRepoById(ctx, run.repoId));
  const owner = repo && (await findUserById(ctx, repo.ownerId));
  const user = run && run.triggerUserId > 0 ? await findUserById(ctx, run.triggerUserId) : null;
  if (!run || !repo || !owner || !user || !mailable(user) || !wants(user, true)) return [];
  if (!(await readers(ctx, [user], repo, owner, UnitType.Actions)).length) return [];
  const { path, url: repoUrl } = places(owner, repo);
  const url = `${repoUrl}/actions/runs/${run.index}`;
  const subject = `[${path}] Run failed: ${run.title} (${run.workflowId})`;
  const c: MailContent = {
    subject, messageId: `<${path}/actions/runs/${run.index}/failed/${e.at}@${mailDomain()}>`,
    html: frame(subject, `<p>The workflow <b>${esc(run.workflowId)}</b> failed on ${esc(run.ref.replace(/^refs\/(heads|tags)\//, ''))} `
      + `at ${link(`${repoUrl}/commit/${run.commitSha}`, run.commitSha.slice(0, 10))}, run ${link(url, `#${run.index}`)}: ${esc(run.title)}.</p>`,
    link(url, `View the run on ${settings().appName}`)),
  };
  return [addressed(c, { address: user.email, name: user.fullName || user.name })];
}
