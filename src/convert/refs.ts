/** Git objects and tag protection rows -> API Branch, PayloadCommit, Tag and TagProtection. */
import type { Branch, PayloadCommit, PayloadCommitVerification, PayloadUser, Tag, TagProtection } from '../api/refs';
import type { ProtectedTagModel } from '../models/protected-tag.model';
import { isoTime } from './time';

/** A person of a commit or tag (src/git/history.ts GitIdentity). */
export interface SignatureLike { name: string; email: string; date: string }

/** A verified commit as read from git (src/services/refs/ref-ops.ts VerifiedCommit). */
export interface CommitLike { id: string; author: SignatureLike; committer: SignatureLike; message: string; verification: PayloadCommitVerification | null }

/** A tag as read from git (src/git/ref-info.ts GitTag). */
export interface TagLike { name: string; id: string; object: string; tagger: SignatureLike; message: string }

import type { RepoUrls } from './commit';

export type { RepoUrls } from './commit';

/** Escape each `/`-separated segment of a ref name for a URL path (Gitea's PathEscapeSegments). */
export function escapeSegments(name: string): string {
  return name.split('/').map(encodeURIComponent).join('/');
}

function person(s: SignatureLike, usernames: Map<string, string>): PayloadUser {
  return { name: s.name, email: s.email, username: usernames.get(s.email.toLowerCase()) ?? '' };
}

/** A commit as Gitea's ToPayloadCommit shows it. */
export function toPayloadCommit(c: CommitLike, repo: RepoUrls, usernames: Map<string, string>): PayloadCommit {
  return {
    id: c.id,
    message: c.message,
    url: `${repo.html}/commit/${c.id}`,
    author: person(c.author, usernames),
    committer: person(c.committer, usernames),
    timestamp: c.author.date,
    verification: c.verification,
    added: null,
    removed: null,
    modified: null,
  };
}

/** A branch's protection as the caller sees it (services/refs/branch-guard.ts BranchProtectionState). */
export interface BranchRights {
  rule: { requiredApprovals: number; enableStatusCheck: boolean; statusCheckContexts: string } | null;
  canPush: boolean;
  canMerge: boolean;
  ruleName: string;
}

/** A branch as Gitea's ToBranch shows it. */
export function toBranch(name: string, c: CommitLike, repo: RepoUrls, usernames: Map<string, string>, p: BranchRights): Branch {
  return {
    name,
    commit: toPayloadCommit(c, repo, usernames),
    protected: p.rule !== null,
    required_approvals: p.rule?.requiredApprovals ?? 0,
    enable_status_check: p.rule?.enableStatusCheck ?? false,
    status_check_contexts: p.rule ? (JSON.parse(p.rule.statusCheckContexts) as string[]) : [],
    user_can_push: p.canPush,
    user_can_merge: p.canMerge,
    effective_branch_protection_name: p.ruleName,
  };
}

/** A tag as Gitea's ToTag shows it. */
export function toTag(t: TagLike, repo: RepoUrls): Tag {
  const archive = `${repo.html}/archive/${escapeSegments(t.name)}`;
  return {
    name: t.name,
    message: t.message.trim(),
    id: t.id,
    // why: Gitea links the tag's own id here (the tag object for annotated tags), not the commit.
    commit: { url: `${repo.api}/git/commits/${t.id}`, sha: t.object, created: t.tagger.date },
    zipball_url: `${archive}.zip`,
    tarball_url: `${archive}.tar.gz`,
  };
}

/** A tag protection rule with its allow-lists resolved to names. */
export function toTagProtection(row: ProtectedTagModel, usernames: string[], teams: string[]): TagProtection {
  return {
    id: row.id,
    name_pattern: row.namePattern,
    whitelist_usernames: usernames,
    whitelist_teams: teams,
    created_at: isoTime(row.createdAt),
    updated_at: isoTime(row.updatedAt),
  };
}
