/** Notifications as Gitea's API shows them (structs.NotificationThread, NotificationSubject, NotificationCount). */
import type { Repository } from './repo';

/** What a thread is about. */
export interface NotificationSubject {
  title: string;
  url: string;
  html_url: string;
  latest_comment_url: string;
  latest_comment_html_url: string;
  /** Issue, Pull, Commit or Repository. */
  type: string;
  /** open, closed or merged; empty for commits and repositories. */
  state: string;
}

/** A user's notification thread. */
export interface NotificationThread {
  id: number;
  repository: Repository | null;
  subject: NotificationSubject | null;
  unread: boolean;
  pinned: boolean;
  updated_at: string;
  url: string;
}

/** How many unread threads a user has. */
export interface NotificationCount {
  new: number;
}
