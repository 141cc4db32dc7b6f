/**
 * Building Gitea's API objects from git data (what Gitea's files service and convert package do for
 * contents, file commits, trees, refs and tags). Pure functions: no git or database access here.
 */
import type {
  AnnotatedTag, ContentsResponse, FileCommitResponse, GitEntry, PayloadCommitVerification, Reference,
} from '../../api/contents';
import type { GitTag, TreeEntry } from '../../git/objects';
import type { CommitRecord } from '../../git/history';
import { pathEscape, pathEscapeSegments, refWebLinkPath, type RefCommit } from './refs';

/** The API and web base URLs of a repository. */
export interface RepoUrls { api: string; html: string }

/** `<root>api/v1/repos/<owner>/<repo>` and `<root><owner>/<repo>`. */
export function repoUrls(rootUrl: string, owner: string, repo: string): RepoUrls {
  const full = `${pathEscape(owner)}/${pathEscape(repo)}`;
  return { api: `${rootUrl}api/v1/repos/${full}`, html: `${rootUrl}${full}` };
}

/** RFC 3339 in UTC without fractions, as Go writes time.Time. */
export function rfc3339(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Go's zero time.Time, what Gitea shows for dates it did not look up. */
export const ZERO_TIME = '0001-01-01T00:00:00Z';

/** Gitea's content type of an entry: file, dir, symlink or submodule. */
export function contentType(e: TreeEntry): string {
  if (e.type === 'tree') return 'dir';
  if (e.type === 'commit') return 'submodule';
  return e.mode === '120000' ? 'symlink' : 'file';
}

/** What is known about one entry for its ContentsResponse. */
export interface EntryDetails {
  entry: TreeEntry;
  /** Base64 of the blob when the content is included (null when too large). */
  content?: string | null;
  target?: string | null;
  submoduleUrl?: string | null;
  lastCommit?: { sha: string; committed: Date; authored: Date } | null;
  lfs?: { oid: string; size: number } | null;
}

/** A ContentsResponse of one entry at `ref`. */
export function toContentsResponse(urls: RepoUrls, ref: RefCommit, d: EntryDetails): ContentsResponse {
  const e = d.entry;
  const type = contentType(e);
  const escaped = pathEscapeSegments(e.path);
  const self = `${urls.api}/contents/${escaped}?ref=${encodeURIComponent(ref.inputRef).replace(/%20/g, '+')}`;
  const isSubmodule = type === 'submodule';
  const html = isSubmodule ? null : `${urls.html}/src/${refWebLinkPath(ref)}/${escaped}`;
  const git = isSubmodule ? null : `${urls.api}/git/blobs/${e.oid}`;
  const download = type === 'file' || type === 'symlink' ? `${urls.html}/raw/${refWebLinkPath(ref)}/${escaped}` : null;
  return {
    name: e.path.slice(e.path.lastIndexOf('/') + 1),
    path: e.path,
    sha: e.oid,
    last_commit_sha: d.lastCommit?.sha ?? '',
    last_committer_date: d.lastCommit ? rfc3339(d.lastCommit.committed) : ZERO_TIME,
    last_author_date: d.lastCommit ? rfc3339(d.lastCommit.authored) : ZERO_TIME,
    type,
    size: e.size,
    encoding: type === 'file' && d.content != null ? 'base64' : null,
    content: type === 'file' ? d.content ?? null : null,
    target: type === 'symlink' ? d.target ?? null : null,
    url: self,
    html_url: html,
    git_url: git,
    download_url: download,
    submodule_git_url: isSubmodule ? d.submoduleUrl ?? null : null,
    _links: { self, git, html },
    lfs_oid: d.lfs?.oid ?? null,
    lfs_size: d.lfs?.size ?? null,
  };
}

/** Gitea's FileCommitResponse of a commit. */
export function toFileCommit(urls: RepoUrls, c: CommitRecord): FileCommitResponse {
  return {
    url: `${urls.api}/git/commits/${c.id}`,
    sha: c.id,
    created: ZERO_TIME,
    html_url: `${urls.html}/commit/${c.id}`,
    author: c.author,
    committer: c.committer,
    parents: c.parents.map((p) => ({ url: `${urls.api}/git/commits/${p}`, sha: p, created: ZERO_TIME })),
    message: c.message,
    tree: { url: `${urls.api}/git/trees/${c.tree}`, sha: c.tree, created: ZERO_TIME },
  };
}

/** One entry of a GitTreeResponse. */
export function toGitEntry(urls: RepoUrls, e: { path: string; mode: string; type: string; size: number; sha: string }): GitEntry {
  const url = e.type === 'tree' ? `${urls.api}/git/trees/${e.sha}` : e.type === 'commit' ? '' : `${urls.api}/git/blobs/${e.sha}`;
  return { path: e.path, mode: e.mode, type: e.type, size: e.size, sha: e.sha, url };
}

/** A Reference for `for-each-ref` output. */
export function toReference(urls: RepoUrls, name: string, oid: string, type: string): Reference {
  return { ref: name, url: `${urls.api}/git/${pathEscapeSegments(name)}`, object: { type, sha: oid, url: `${urls.api}/git/${type}s/${oid}` } };
}

/** Gitea's AnnotatedTag (the verification is that of the tagged commit, as Gitea reports it). */
export function toAnnotatedTag(urls: RepoUrls, t: GitTag, commit: CommitRecord, verification: PayloadCommitVerification): AnnotatedTag {
  return {
    tag: t.tag,
    sha: t.sha,
    url: `${urls.api}/git/tags/${t.sha}`,
    message: t.message,
    tagger: t.tagger,
    object: { type: 'commit', url: `${urls.api}/git/commits/${commit.id}`, sha: commit.id },
    verification,
  };
}
