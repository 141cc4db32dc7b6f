/**
 * Uploaded avatars on disk: `<[picture] AVATAR_UPLOAD_PATH>/<name>`, each a PNG the forge made.
 * A file is written under a temporary name and renamed into place, so a reader never sees half.
 */
import crypto from 'node:crypto';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { settings } from '../../config';
import { BadRequest } from '../../errors';

const NAME = /^[0-9A-Za-z_-]{1,128}$/;

/** The file of an avatar name (checked, so the path stays under the root). */
export function avatarPath(name: string): string {
  if (!NAME.test(name)) throw new BadRequest('invalid avatar name');
  return path.join(settings().picture.avatarUploadPath, name);
}

/** Store an avatar's bytes under `name`. */
export async function writeAvatar(name: string, data: Buffer): Promise<void> {
  const file = avatarPath(name);
  await fsp.mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.${crypto.randomBytes(6).toString('hex')}.tmp`;
  await fsp.writeFile(tmp, data);
  await fsp.rename(tmp, file);
}

/** Remove an avatar file; one already gone is fine. */
export async function removeAvatar(name: string): Promise<void> {
  if (!NAME.test(name)) return;
  await fsp.rm(avatarPath(name), { force: true });
}
