/**
 * Wiki pages and commits as Gitea's API shows them (its convert.ToWikiCommit and
 * ToWikiPageMetaData). Pure functions over git data, kept beside the service as the contents views are.
 */
import type { WikiCommit, WikiPageMetaData } from '../../api/wiki';
import type { CommitRecord, GitIdentity } from '../../git/history';

/** A git identity's date in UTC RFC 3339, as Gitea writes a wiki commit's `When.UTC()`. */
function utc(date: string): string {
  const d = new Date(date);
  return Number.isNaN(d.getTime()) ? date : d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function user(i: GitIdentity) {
  return { name: i.name, email: i.email, date: utc(i.date) };
}

/** A wiki commit. */
export function toWikiCommit(c: CommitRecord): WikiCommit {
  return { sha: c.id, author: user(c.author), commiter: user(c.committer), message: c.message };
}

/** A page's metadata: `htmlBase` is the repository's web URL, `subUrl` the page's web path. */
export function toWikiPageMetaData(title: string, subUrl: string, htmlBase: string, last: CommitRecord | null): WikiPageMetaData {
  return { title, html_url: `${htmlBase}/wiki/${subUrl}`, sub_url: subUrl, last_commit: last ? toWikiCommit(last) : null };
}
