/**
 * Releases and their assets as Gitea's API shows and takes them (structs.Release, Attachment,
 * CreateReleaseOption, EditReleaseOption, EditAttachmentOptions).
 */
import type { User } from './user';

/** A file attached to a release. */
export interface Attachment {
  id: number;
  name: string;
  size: number;
  download_count: number;
  created_at: string;
  uuid: string;
  browser_download_url: string;
}

/** A release. */
export interface Release {
  id: number;
  tag_name: string;
  target_commitish: string;
  name: string;
  body: string;
  url: string;
  html_url: string;
  tarball_url: string;
  zipball_url: string;
  upload_url: string;
  draft: boolean;
  prerelease: boolean;
  created_at: string;
  published_at: string;
  author: User;
  assets: Attachment[];
}

/** Body of POST /repos/{owner}/{repo}/releases. */
export interface CreateReleaseOption {
  tag_name: string;
  /** message of the annotated tag created when the tag does not exist (lightweight tag when empty) */
  tag_message?: string;
  target_commitish?: string;
  name?: string;
  body?: string;
  draft?: boolean;
  prerelease?: boolean;
}

/** Body of PATCH /repos/{owner}/{repo}/releases/{id}; omitted or empty fields keep their value. */
export interface EditReleaseOption {
  tag_name?: string;
  target_commitish?: string;
  name?: string;
  body?: string;
  draft?: boolean;
  prerelease?: boolean;
}

/** Body of PATCH .../assets/{attachment_id}. */
export interface EditAttachmentOptions {
  name?: string;
}
