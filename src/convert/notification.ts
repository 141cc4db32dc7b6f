/** Notification threads -> API NotificationThread. */
import type { NotificationSubject, NotificationThread } from '../api/notification';
import { NotificationSource, NotificationStatus, type NotificationModel } from '../models/notification.model';
import type { IssueModel } from '../models/issue.model';
import { issueHtmlUrl, unixTime } from './issue';
import { toRepositoryView, type RepoViewData } from './repo';
import type { Viewer } from './user';

/** A thread with what its JSON shows besides its row. */
export interface ThreadData { row: NotificationModel; repo: RepoViewData | null; issue: IssueModel | null; merged: boolean; lastCommentId: number }

const esc = encodeURIComponent;

function subjectOf(t: ThreadData, rootUrl: string): NotificationSubject | null {
  const repo = t.repo;
  if (!repo) return null;
  const full = `${esc(repo.owner.name)}/${esc(repo.repo.name)}`;
  const blank = { title: '', url: '', html_url: '', latest_comment_url: '', latest_comment_html_url: '', state: '' };
  switch (Number(t.row.source)) {
    case NotificationSource.Issue:
    case NotificationSource.PullRequest: {
      const type = Number(t.row.source) === NotificationSource.PullRequest ? 'Pull' : 'Issue';
      const i = t.issue;
      if (!i) return { ...blank, type };
      const html = issueHtmlUrl(i, { rootUrl, repoId: repo.repo.id, owner: repo.owner.name, repo: repo.repo.name });
      const c = t.lastCommentId;
      return {
        // why: as Gitea, a pull request's API URL is its issue's.
        title: i.name, url: `${rootUrl}api/v1/repos/${full}/issues/${i.index}`, html_url: html,
        latest_comment_url: c ? `${rootUrl}api/v1/repos/${full}/issues/comments/${c}` : '', latest_comment_html_url: c ? `${html}#issuecomment-${c}` : '',
        type, state: i.isPull && t.merged ? 'merged' : i.isClosed ? 'closed' : 'open',
      };
    }
    case NotificationSource.Commit: {
      const url = `${rootUrl}${full}/commit/${esc(t.row.commitId)}`;
      return { ...blank, type: 'Commit', title: t.row.commitId, url, html_url: url };
    }
    case NotificationSource.Repository:
      // why: Gitea keeps this one URL relative to the site (its API has always answered so).
      return { ...blank, type: 'Repository', title: `${repo.owner.name}/${repo.repo.name}`, url: `${new URL(rootUrl).pathname.replace(/\/$/, '')}/${full}`, html_url: `${rootUrl}${full}` };
    default:
      return null;
  }
}

/** Convert a thread; its repository as Gitea shows it there, without the caller's permissions. */
export function toNotificationThread(t: ThreadData, viewer: Viewer | null, rootUrl: string): NotificationThread {
  const repository = t.repo ? { ...toRepositoryView(t.repo, viewer, rootUrl), permissions: undefined } : null;
  return {
    id: Number(t.row.id), repository, subject: subjectOf(t, rootUrl),
    unread: Number(t.row.status) === NotificationStatus.Unread, pinned: Number(t.row.status) === NotificationStatus.Pinned,
    updated_at: unixTime(Number(t.row.updatedUnix)), url: `${rootUrl}api/v1/notifications/threads/${t.row.id}`,
  };
}
