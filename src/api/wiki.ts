/** Wiki API objects, with Gitea's field names (modules/structs/repo_wiki.go). */
import type { CommitUser } from './commit';

/** A commit of the wiki (Gitea spells the committer field `commiter`). */
export interface WikiCommit {
  sha: string;
  author: CommitUser | null;
  commiter: CommitUser | null;
  message: string;
}

/** A page's name, links and last change. */
export interface WikiPageMetaData {
  title: string;
  html_url: string;
  sub_url: string;
  last_commit: WikiCommit | null;
}

/** A page with its content (base64), revision count, and the wiki's sidebar and footer (base64). */
export interface WikiPage extends WikiPageMetaData {
  content_base64: string;
  commit_count: number;
  sidebar: string;
  footer: string;
}

/** One page of a page's revisions and how many there are in all. */
export interface WikiCommitList {
  commits: WikiCommit[];
  count: number;
}

/** Create or edit a page. */
export interface CreateWikiPageOptions {
  /** page title. leave empty to keep unchanged */
  title?: string;
  /** content must be base64 encoded */
  content_base64?: string;
  /** optional commit message summarizing the change */
  message?: string;
}
