/**
 * Recording activity (the feeds' events, Gitea's action rows) with the change that makes it, in
 * its transaction: issues and pull requests opened, commented, closed, reopened, merged and
 * reviewed, repositories created, renamed and transferred, releases published, and pushes.
 */
import type { DbContext } from '../../db';
import { ActionType, insertActions, type NewAction } from '../../models/action.model';
import { findReposByIds } from '../../models/repository.model';
import type { IssueModel } from '../../models/issue.model';

/** An event as a service states it; the repository's privacy is read when it is written. */
export type Activity = Omit<NewAction, 'isPrivate'>;

/** The longest content kept (Gitea's TEXT column limit). */
const MAX_CONTENT = 65535;

/** Content cut to what is kept: a JSON document too long becomes `{}` (a cut one would not parse), a text is cut with an ellipsis. */
function keptContent(content = ''): string {
  if (content.length <= MAX_CONTENT) return content;
  return content.startsWith('{"') && content.endsWith('}') ? '{}' : `${[...content].slice(0, MAX_CONTENT - 1).join('')}…`;
}

/** Record events of repositories in `tx`, each private as its repository is now. */
export async function recordActivity(tx: DbContext, acts: Activity[]): Promise<void> {
  if (acts.length === 0) return;
  const privacy = new Map((await findReposByIds(tx, acts.map((a) => a.repoId))).map((r) => [r.id, r.isPrivate]));
  await insertActions(tx, acts.filter((a) => privacy.has(a.repoId)).map((a) => ({ ...a, content: keptContent(a.content), isPrivate: privacy.get(a.repoId)! })));
}

/** The most characters of a comment a feed keeps (Gitea cuts at 200 columns with an ellipsis). */
const COMMENT_CHARS = 200;

/** A comment's text as its event keeps it: at most 200 characters, cut at a word when one ends near, with an ellipsis. */
export function feedExcerpt(text: string): string {
  const chars = [...text];
  if (chars.length <= COMMENT_CHARS) return text;
  let cut = chars.slice(0, COMMENT_CHARS - 1).join('');
  const space = cut.lastIndexOf(' ');
  if (space >= 0 && cut.length - space <= 15) cut = cut.slice(0, space);
  return `${cut}…`;
}

/** What an issue event says about its issue. */
type IssueRef = Pick<IssueModel, 'repoId' | 'index' | 'isPull'>;

/** A comment on an issue or pull request (`index|excerpt`). */
export function commentActivity(doerId: number, issue: IssueRef, commentId: number, text: string): Activity {
  return { opType: issue.isPull ? ActionType.CommentPull : ActionType.CommentIssue, actUserId: doerId, repoId: issue.repoId, commentId, content: `${Number(issue.index)}|${feedExcerpt(text)}` };
}

/** A close or reopen (`index|`, the comment the history shows). */
export function stateActivity(doerId: number, issue: IssueRef, closed: boolean, commentId: number): Activity {
  const opType = issue.isPull ? (closed ? ActionType.ClosePullRequest : ActionType.ReopenPullRequest) : (closed ? ActionType.CloseIssue : ActionType.ReopenIssue);
  return { opType, actUserId: doerId, repoId: issue.repoId, commentId, content: `${Number(issue.index)}|` };
}

/** A merge (`index|title`), by hand or scheduled. */
export function mergeActivity(doerId: number, issue: IssueRef, title: string, scheduled: boolean): Activity {
  return { opType: scheduled ? ActionType.AutoMergePullRequest : ActionType.MergePullRequest, actUserId: doerId, repoId: issue.repoId, content: `${Number(issue.index)}|${title}` };
}

/** A review's verdict (`index|first line`): approve, reject, or a comment. */
export function reviewActivity(doerId: number, issue: IssueRef, verdict: 'approve' | 'reject' | 'comment', commentId: number, body: string): Activity {
  const opType = verdict === 'approve' ? ActionType.ApprovePullRequest : verdict === 'reject' ? ActionType.RejectPullRequest : ActionType.CommentPull;
  return { opType, actUserId: doerId, repoId: issue.repoId, commentId, content: `${Number(issue.index)}|${body.split('\n')[0]}` };
}

/** A repository event: created (and forked), renamed (the old name), transferred (the old `owner/name`). */
export function repoActivity(opType: ActionType.CreateRepo | ActionType.RenameRepo | ActionType.TransferRepo, doerId: number, repoId: number, content = ''): Activity {
  return { opType, actUserId: doerId, repoId, content };
}

/** A release published (its title, on its tag). */
export function releaseActivity(publisherId: number, repoId: number, tag: string, title: string): Activity {
  return { opType: ActionType.PublishRelease, actUserId: publisherId, repoId, refName: `refs/tags/${tag}`, content: title };
}
