/** release and attachment rows -> API Release and Attachment. */
import type { Attachment, Release } from '../api/release';
import type { ReleaseModel } from '../models/release.model';
import type { AttachmentModel } from '../models/attachment.model';
import type { UserModel } from '../models/user.model';
import { toUser } from './user';
import { isoTime } from './time';
import { escapeSegments, type RepoUrls } from './refs';

/** An attachment; `browser_download_url` is the web download route `/attachments/{uuid}`. */
export function toAttachment(a: AttachmentModel, rootUrl: string): Attachment {
  return {
    id: a.id,
    name: a.name,
    size: Number(a.size),
    download_count: a.downloadCount,
    created_at: isoTime(a.createdAt),
    uuid: a.uuid,
    browser_download_url: `${rootUrl}attachments/${a.uuid}`,
  };
}

/** A release with its publisher (shown as to an anonymous viewer, as Gitea does) and assets. */
export function toRelease(r: ReleaseModel, repo: RepoUrls, publisher: UserModel, assets: AttachmentModel[], rootUrl: string): Release {
  const api = `${repo.api}/releases/${r.id}`;
  const tag = escapeSegments(r.tagName);
  return {
    id: r.id,
    tag_name: r.tagName,
    target_commitish: r.target,
    name: r.title,
    body: r.note,
    url: api,
    html_url: `${repo.html}/releases/tag/${tag}`,
    tarball_url: `${repo.html}/archive/${tag}.tar.gz`,
    zipball_url: `${repo.html}/archive/${tag}.zip`,
    upload_url: `${api}/assets`,
    draft: r.isDraft,
    prerelease: r.isPrerelease,
    created_at: isoTime(r.createdAt),
    // why: Gitea 1.24 reports the creation (publication) time here, for drafts too.
    published_at: isoTime(r.createdAt),
    author: toUser(publisher, null, rootUrl),
    assets: assets.map((a) => toAttachment(a, rootUrl)),
  };
}
