/**
 * Uploaded avatars on disk: `<[picture] AVATAR_UPLOAD_PATH>/<name>` for users and organizations,
 * `<REPOSITORY_AVATAR_UPLOAD_PATH>/<name>` for repositories, each a PNG the forge made.
 * A file is written under a temporary name and renamed into place, so a reader never sees half.
 */
import crypto from 'node:crypto';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { settings } from '../../config';
import { BadRequest } from '../../errors';

const NAME = /^[0-9A-Za-z_-]{1,128}$/;

/** Whose avatars: users' and organizations', or repositories'. */
export type AvatarKind = 'user' | 'repo';

/** The file of an avatar name (checked, so the path stays under the root). */
export function avatarPath(name: string, kind: AvatarKind = 'user'): string {
  if (!NAME.test(name)) throw new BadRequest('invalid avatar name');
  const p = settings().picture;
  return path.join(kind === 'repo' ? p.repositoryAvatarUploadPath : p.avatarUploadPath, name);
}

/** Store an avatar's bytes under `name`. */
export async function writeAvatar(name: string, data: Buffer, kind: AvatarKind = 'user'): Promise<void> {
  const file = avatarPath(name, kind);
  await fsp.mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.${crypto.randomBytes(6).toString('hex')}.tmp`;
  await fsp.writeFile(tmp, data);
  await fsp.rename(tmp, file);
}

/** Remove an avatar file; one already gone is fine. */
export async function removeAvatar(name: string, kind: AvatarKind = 'user'): Promise<void> {
  if (!NAME.test(name)) return;
  await fsp.rm(avatarPath(name, kind), { force: true });
}
