/**
 * Where the forge keeps files outside git (Gitea's lfs.go, repository_archive.go, attachment.go,
 * picture.go): [lfs], [repo-archive], [attachment] and [picture]. Relative paths are resolved
 * against APP_DATA_PATH.
 */
import path from 'node:path';
import { section } from './spec';

/** [lfs]: where LFS objects live (default APP_DATA_PATH/lfs). */
export interface LfsSettings { path: string }

/** Where built archives are cached, and the cache's bound in MB (least recently served are evicted). */
export interface RepoArchiveSettings { path: string; maxSize: number; maxArchiveSize: number }

/** Uploaded files (release assets); MAX_SIZE in MiB, -1 or 0 for no limit. */
export interface AttachmentSettings { enabled: boolean; path: string; allowedTypes: string; maxSize: number; maxFiles: number }

/** [picture]: where uploaded avatars are kept (default APP_DATA_PATH/avatars; repositories' APP_DATA_PATH/repo-avatars). */
export interface PictureSettings {
  avatarUploadPath: string;
  repositoryAvatarUploadPath: string;
  /** The largest avatar file accepted (bytes), and its largest width and height (Gitea's keys and defaults). */
  avatarMaxFileSize: number; avatarMaxWidth: number; avatarMaxHeight: number;
}

/** [lfs]. */
export const lfsSection = section<LfsSettings>('lfs', { PATH: { kind: 'string', def: '' } });

/** [repo-archive]. */
export const repoArchiveSection = section<RepoArchiveSettings>('repo-archive', {
  PATH: { kind: 'string', def: '' },
  MAX_SIZE: { kind: 'int', def: '2048', min: 1, max: 1e9 },
  MAX_ARCHIVE_SIZE: { kind: 'int', def: '1024', min: 0, max: 1e9 },
});

/** [attachment]. */
export const attachmentSection = section<AttachmentSettings>('attachment', {
  ENABLED: { kind: 'bool', def: 'true' },
  PATH: { kind: 'string', def: '' },
  ALLOWED_TYPES: { kind: 'string', def: '.cpio,.csv,.doc,.docx,.gif,.gz,.jpeg,.jpg,.json,.jsonl,.log,.md,.mov,.mp4,.odf,.odg,.odp,.ods,.odt,.patch,.pdf,.png,.pptx,.svg,.tgz,.txt,.webm,.webp,.xls,.xlsx,.zip' },
  MAX_SIZE: { kind: 'int', def: '2048', min: -1, max: 1e9 },
  MAX_FILES: { kind: 'int', def: '5', min: 0, max: 1e6 },
});

/** [picture]. */
export const pictureSection = section<PictureSettings>('picture', {
  AVATAR_UPLOAD_PATH: { kind: 'string', def: '' },
  REPOSITORY_AVATAR_UPLOAD_PATH: { kind: 'string', def: '' },
  AVATAR_MAX_FILE_SIZE: { kind: 'int', def: '1048576', min: 1, max: 1e9 },
  AVATAR_MAX_WIDTH: { kind: 'int', def: '4096', min: 1, max: 65536 },
  AVATAR_MAX_HEIGHT: { kind: 'int', def: '4096', min: 1, max: 65536 },
});

/** Make the storage paths absolute, defaulting each to its directory under APP_DATA_PATH. */
export function resolveStorage(appDataPath: string, s: { lfs: LfsSettings; repoArchive: RepoArchiveSettings; attachment: AttachmentSettings; picture: PictureSettings }): void {
  if (!s.lfs.path) s.lfs.path = path.join(appDataPath, 'lfs');
  s.lfs.path = path.resolve(s.lfs.path);
  s.repoArchive.path = path.resolve(s.repoArchive.path || path.join(appDataPath, 'repo-archive'));
  s.attachment.path = path.resolve(appDataPath, s.attachment.path || 'attachments');
  s.picture.avatarUploadPath = path.resolve(appDataPath, s.picture.avatarUploadPath || 'avatars');
  s.picture.repositoryAvatarUploadPath = path.resolve(appDataPath, s.picture.repositoryAvatarUploadPath || 'repo-avatars');
}
