/**
 * Avatars: `/assets/img/avatar_default.png` (what `avatar_url` names for a user without an avatar
 * of their own), `/avatars/{name}` (uploaded avatars, under `[picture] AVATAR_UPLOAD_PATH`) and
 * Gitea's `/user/avatar/{username}/{size}`, a redirect to the user's avatar.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream';
import zlib from 'node:zlib';
import express, { type Request, type Response, type NextFunction, type Router } from 'express';
import { settings } from '../config';
import { authenticate } from '../middleware/auth';
import { ctxOf } from '../middleware/context';
import { avatarUrl } from '../convert/user';
import { lookupOwner } from '../services/user/lookup';
import { NotFound } from '../errors';

const SIZE = 290;
let defaultPng: Buffer | null = null;

/**
 * The default avatar: a grey head and shoulders on a light ground, drawn once as a PNG.
 * why: drawn here rather than shipped, so the repository carries no image of another project.
 */
function defaultAvatar(): Buffer {
  if (defaultPng) return defaultPng;
  const row = SIZE * 3 + 1;
  const pixels = Buffer.alloc(row * SIZE);
  const c = SIZE / 2;
  for (let y = 0; y < SIZE; y++) {
    pixels[y * row] = 0;
    for (let x = 0; x < SIZE; x++) {
      const head = (x - c) ** 2 + (y - SIZE * 0.38) ** 2 < (SIZE * 0.19) ** 2;
      const body = (x - c) ** 2 / (SIZE * 0.36) ** 2 + (y - SIZE * 1.02) ** 2 / (SIZE * 0.42) ** 2 < 1;
      const v = head || body ? 0xa8 : 0xe8;
      pixels.fill(v, y * row + 1 + x * 3, y * row + 4 + x * 3);
    }
  }
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlib.crc32(body));
    return Buffer.concat([len, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(SIZE, 0);
  ihdr.writeUInt32BE(SIZE, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  defaultPng = Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr), chunk('IDAT', zlib.deflateSync(pixels, { level: 9 })), chunk('IEND', Buffer.alloc(0)),
  ]);
  return defaultPng;
}

/** The avatar routes. */
export function avatarsRouter(): Router {
  const r = express.Router();
  const cache = 'public, max-age=21600';
  r.get('/assets/img/avatar_default.png', (_req: Request, res: Response) => {
    res.setHeader('Content-Type', 'image/png');
    res.setHeader('Cache-Control', cache);
    res.send(defaultAvatar());
  });
  r.get('/avatars/:name', (req: Request, res: Response, next: NextFunction) => {
    const name = String(req.params.name);
    if (!/^[0-9A-Za-z_-]{1,128}$/.test(name)) return next(new NotFound());
    const file = fs.createReadStream(path.join(settings().picture.avatarUploadPath, name));
    file.once('error', () => next(new NotFound()));
    file.once('open', () => {
      res.setHeader('Content-Type', 'image/png');
      res.setHeader('X-Content-Type-Options', 'nosniff');
      res.setHeader('Cache-Control', cache);
      pipeline(file, res, () => undefined);
    });
  });
  r.get('/user/avatar/:username/:size', authenticate(), (req: Request, res: Response, next: NextFunction) => {
    lookupOwner(ctxOf(req), req.principal, String(req.params.username)).then((u) => {
      res.setHeader('Cache-Control', 'private, max-age=300');
      res.redirect(303, avatarUrl(u, settings().server.rootUrl));
    }, next);
  });
  return r;
}
