/**
 * Avatars uploaded for a user, an organization (by its owners) or a repository (by its admins): PNG, JPEG, GIF
 * or WebP by their first bytes (never SVG), at most `[picture] AVATAR_MAX_FILE_SIZE` bytes and
 * `AVATAR_MAX_WIDTH` x `AVATAR_MAX_HEIGHT` pixels (checked from the header, before decoding),
 * turned upright, cropped to a square (the part the user chose, else the centre) and re-encoded
 * as a PNG of at most 512 pixels, so what is served is always an image the forge made.
 */
import crypto from 'node:crypto';
import type { Readable } from 'node:stream';
import sharp from 'sharp';
import { settings } from '../../config';
import type { DbContext } from '../../db';
import { BadRequest, TooLarge, Validation } from '../../errors';
import { findUserById, type UserModel } from '../../models/user.model';
import { findRepoById, updateRepoAvatar, type RepositoryModel } from '../../models/repository.model';
import { updateUserColumns } from '../../models/user-admin';
import { sniffType } from '../storage/attachment-store';
import { removeAvatar, writeAvatar } from '../storage/avatar-store';

/** The square an uploader chose, in the image's upright pixels. */
export interface AvatarCrop { x: number; y: number; size: number }

const ACCEPTED = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);
/** The side of a stored avatar: twice the largest size a page shows (Gitea's rendered size factor). */
const STORED_SIDE = 512;

/** A crop from a form's `crop_x`, `crop_y`, `crop_size` (all or none; integers). */
export function cropOf(fields: Record<string, string | undefined>): AvatarCrop | undefined {
  const raw = [fields.crop_x, fields.crop_y, fields.crop_size];
  if (raw.every((v) => v === undefined || v === '')) return undefined;
  const [x, y, size] = raw.map((v) => (v !== undefined && /^\d{1,6}$/.test(v) ? Number(v) : NaN));
  if ([x, y, size].some(Number.isNaN) || size < 1) throw new Validation('The chosen part of the picture is not valid.');
  return { x, y, size };
}

/** An uploaded avatar's bytes, refused (413) once past `[picture] AVATAR_MAX_FILE_SIZE`. */
export async function readAvatarUpload(data: Readable): Promise<Buffer> {
  const max = settings().picture.avatarMaxFileSize;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of data) {
    size += (chunk as Buffer).length;
    if (size > max) throw new TooLarge(`The avatar is larger than ${max} bytes.`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** The avatar as the forge stores it: upright, square, PNG, at most STORED_SIDE pixels. */
export async function squareAvatar(data: Buffer, crop?: AvatarCrop): Promise<Buffer> {
  const p = settings().picture;
  if (data.length > p.avatarMaxFileSize) throw new TooLarge(`The avatar is larger than ${p.avatarMaxFileSize} bytes.`);
  if (!ACCEPTED.has(sniffType(data.subarray(0, 512)))) throw new Validation('The avatar must be a PNG, JPEG, GIF or WebP image.');
  // why: the header's size is checked before any pixel is decoded, so a small file claiming a huge picture costs nothing.
  const img = sharp(data, { limitInputPixels: p.avatarMaxWidth * p.avatarMaxHeight, failOn: 'error', animated: false });
  let meta: sharp.Metadata;
  try {
    meta = await img.metadata();
  } catch {
    throw new Validation('The avatar is not a picture that can be read.');
  }
  const turned = (meta.orientation ?? 1) >= 5;
  const [w, h] = turned ? [meta.height ?? 0, meta.width ?? 0] : [meta.width ?? 0, meta.height ?? 0];
  if (!w || !h || w > p.avatarMaxWidth || h > p.avatarMaxHeight) throw new Validation(`The avatar must be at most ${p.avatarMaxWidth}x${p.avatarMaxHeight} pixels.`);
  const side = Math.min(w, h);
  const square = crop ?? { x: Math.floor((w - side) / 2), y: Math.floor((h - side) / 2), size: side };
  if (square.x + square.size > w || square.y + square.size > h) throw new Validation('The chosen part of the picture is not valid.');
  try {
    return await img.rotate()
      .extract({ left: square.x, top: square.y, width: square.size, height: square.size })
      .resize(STORED_SIDE, STORED_SIDE, { fit: 'fill', withoutEnlargement: true })
      .png().toBuffer();
  } catch {
    throw new Validation('The avatar is not a picture that can be read.');
  }
}

/**
 * The bytes of the API's `image` (standard base64, as Go's StdEncoding reads it); 400 for anything
 * else, so a data URL or stray characters are refused rather than read as something else.
 */
export function decodeAvatarImage(image: unknown): Buffer {
  if (typeof image !== 'string' || image.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(image)) {
    throw new BadRequest('image must be base64 encoded');
  }
  return Buffer.from(image, 'base64');
}

/** The stored file's name: the id, then a hash of the picture (a new picture, a new URL). */
function fileName(id: number, png: Buffer): string {
  return `${id}-${crypto.createHash('sha256').update(png).digest('hex').slice(0, 32)}`;
}

/** Set the owner's uploaded avatar; the previous file is removed once the row names the new one. */
export async function setAvatar(ctx: DbContext, owner: UserModel, data: Buffer, crop?: AvatarCrop): Promise<UserModel> {
  const png = await squareAvatar(data, crop);
  const name = fileName(owner.id, png);
  await writeAvatar(name, png);
  const before = owner.avatar;
  await updateUserColumns(ctx, owner.id, { avatar: name });
  if (before && before !== name) await removeAvatar(before);
  return (await findUserById(ctx, owner.id)) ?? owner;
}

/** Go back to the generated avatar. */
export async function deleteAvatar(ctx: DbContext, owner: UserModel): Promise<void> {
  if (!owner.avatar) return;
  await updateUserColumns(ctx, owner.id, { avatar: '' });
  await removeAvatar(owner.avatar);
}

/**
 * Set a repository's uploaded avatar (`avatar_url` in its JSON); the previous file is removed once
 * the row names the new one. The caller has checked that the doer administers the repository.
 */
export async function setRepoAvatar(ctx: DbContext, repo: RepositoryModel, data: Buffer, crop?: AvatarCrop): Promise<RepositoryModel> {
  const png = await squareAvatar(data, crop);
  const name = fileName(repo.id, png);
  await writeAvatar(name, png, 'repo');
  const before = repo.avatar;
  await updateRepoAvatar(ctx, repo.id, name);
  if (before && before !== name) await removeAvatar(before, 'repo');
  return (await findRepoById(ctx, repo.id)) ?? repo;
}

/** Remove a repository's uploaded avatar (it then has none, as in Gitea). */
export async function deleteRepoAvatar(ctx: DbContext, repo: RepositoryModel): Promise<void> {
  if (!repo.avatar) return;
  await updateRepoAvatar(ctx, repo.id, '');
  await removeAvatar(repo.avatar, 'repo');
}
