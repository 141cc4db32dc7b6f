/** git commit records -> Gitea's Commit objects. */
import type { Commit, CommitAffectedFiles, CommitStatus, PayloadCommitVerification } from '../api/commit';
import type { CommitStatusModel } from '../models/commit-status.model';
import { isoTime } from './time';
import type { User } from '../api/user';

/** The git facts of a commit this converter needs (the shape of src/git/log.ts CommitRecord). */
export interface CommitFacts {
  id: string;
  tree: string;
  parents: string[];
  author: { name: string; email: string; date: string };
  committer: { name: string; email: string; date: string };
  message: string;
  files?: { status: string; path: string }[];
  additions?: number;
  deletions?: number;
}

/** Where a repository's API and web pages are (services/content/view.ts repoUrls). */
export interface RepoUrls { api: string; html: string }

const STATUS: Record<string, string> = { A: 'added', D: 'removed' };

/** Gitea lists added, then removed, then modified files. */
export function affectedFiles(changed: { status: string; path: string }[]): CommitAffectedFiles[] {
  const files = changed.map((f) => ({ filename: f.path, status: STATUS[f.status[0]] ?? 'modified' }));
  const rank = (s: string) => (s === 'added' ? 0 : s === 'removed' ? 1 : 2);
  return files.sort((a, b) => rank(a.status) - rank(b.status));
}

/** Convert one commit; `users` maps lower-cased emails to the API users shown for them. */
export function toCommit(c: CommitFacts, urls: RepoUrls, users: Map<string, User>, verification?: PayloadCommitVerification): Commit {
  const created = c.committer.date;
  const url = `${urls.api}/git/commits/${c.id}`;
  const out: Commit = {
    url,
    sha: c.id,
    created,
    html_url: `${urls.html}/commit/${c.id}`,
    commit: {
      url,
      author: c.author,
      committer: c.committer,
      message: c.message,
      // why: the real tree id (Gitea puts the commit id here; both resolve through /git/trees/{sha}).
      tree: { url: `${urls.api}/git/trees/${c.tree}`, sha: c.tree, created },
      ...(verification ? { verification } : {}),
    },
    author: users.get(c.author.email.toLowerCase()) ?? null,
    committer: users.get(c.committer.email.toLowerCase()) ?? null,
    // why: Gitea leaves a parent's time unset, which Go writes as its zero time.
    parents: c.parents.map((p) => ({ url: `${urls.api}/git/commits/${p}`, sha: p, created: '0001-01-01T00:00:00Z' })),
  };
  if (c.files) out.files = affectedFiles(c.files);
  if (c.additions !== undefined) out.stats = { total: c.additions + c.deletions!, additions: c.additions, deletions: c.deletions! };
  return out;
}

/** A stored commit status, with its creator already converted. */
export function toCommitStatus(s: CommitStatusModel, urls: RepoUrls, creator: User | null): CommitStatus {
  return {
    id: s.id, status: s.state, target_url: s.targetUrl, description: s.description, url: `${urls.api}/statuses/${s.sha}`,
    context: s.context, creator, created_at: isoTime(s.createdAt), updated_at: isoTime(s.updatedAt),
  };
}
