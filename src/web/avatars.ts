/**
 * Avatars: `/assets/img/avatar_default.png` (what `avatar_url` names for a user without an avatar
 * of their own), `/avatars/{name}` (uploaded avatars, under `[picture] AVATAR_UPLOAD_PATH`),
 * `/repo-avatars/{name}` (repositories' uploaded avatars, under `REPOSITORY_AVATAR_UPLOAD_PATH`) and
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
import { WeightedLru } from '../git/lru';
import { IDENTICON } from '../convert/user';

const SIZE = 290;
let defaultPng: Buffer | null = null;

/** An RGB image as a PNG; `colour(x, y)` gives each pixel as 0xrrggbb. */
function png(size: number, colour: (x: number, y: number) => number): Buffer {
  const row = size * 3 + 1;
  const pixels = Buffer.alloc(row * size);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const c = colour(x, y);
      pixels.set([c >> 16, (c >> 8) & 255, c & 255], y * row + 1 + x * 3);
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
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr), chunk('IDAT', zlib.deflateSync(pixels, { level: 9 })), chunk('IEND', Buffer.alloc(0)),
  ]);
}

/**
 * The default avatar: a grey head and shoulders on a light ground, drawn once as a PNG.
 * why: drawn here rather than shipped, so the repository carries no image of another project.
 */
function defaultAvatar(): Buffer {
  const c = SIZE / 2;
  defaultPng ??= png(SIZE, (x, y) => {
    const head = (x - c) ** 2 + (y - SIZE * 0.38) ** 2 < (SIZE * 0.19) ** 2;
    const body = (x - c) ** 2 / (SIZE * 0.36) ** 2 + (y - SIZE * 1.02) ** 2 / (SIZE * 0.42) ** 2 < 1;
    return head || body ? 0xa8a8a8 : 0xe8e8e8;
  });
  return defaultPng;
}

const CELLS = 5;
const CELL = 42;
const MARGIN = 21;
const identicons = new WeightedLru<Buffer>(8 * 1024 * 1024, (b) => b.length);

/**
 * An identicon for a name made of 32 hex digits: a 5x5 grid mirrored left to right, cells and
 * colour taken from the digits, on a light ground (the avatar of a user who uploaded none, as
 * Gitea gives one).
 */
function identicon(hex: string): Buffer {
  const known = identicons.get(hex);
  if (known) return known;
  const bits = BigInt(`0x${hex}`);
  const hue = Number(bits & 0x3ffn) % 360;
  const [r, g, b] = hsl(hue, 0.55, 0.5);
  const fg = (r << 16) | (g << 8) | b;
  const on = (cx: number, cy: number) => ((bits >> BigInt(10 + cy * 3 + Math.min(cx, CELLS - 1 - cx))) & 1n) === 1n;
  const size = CELLS * CELL + 2 * MARGIN;
  const img = png(size, (x, y) => {
    const cx = Math.floor((x - MARGIN) / CELL);
    const cy = Math.floor((y - MARGIN) / CELL);
    return cx >= 0 && cy >= 0 && cx < CELLS && cy < CELLS && on(cx, cy) ? fg : 0xf0f0f0;
  });
  identicons.set(hex, img);
  return img;
}

/** An HSL colour as 8-bit RGB. */
function hsl(h: number, s: number, l: number): [number, number, number] {
  const k = (n: number) => (n + h / 30) % 12;
  const a = s * Math.min(l, 1 - l);
  const f = (n: number) => Math.round(255 * (l - a * Math.max(-1, Math.min(k(n) - 3, Math.min(9 - k(n), 1)))));
  return [f(0), f(8), f(4)];
}

/** An uploaded avatar (a PNG the forge made) from `dir`; 404 for a name that is not one. */
function sendUploaded(res: Response, next: NextFunction, dir: string, name: string): void {
  if (!/^[0-9A-Za-z_-]{1,128}$/.test(name)) return next(new NotFound());
  const file = fs.createReadStream(path.join(dir, name));
  file.once('error', () => next(new NotFound()));
  file.once('open', () => {
    res.setHeader('Content-Type', 'image/png');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Cache-Control', 'public, max-age=21600');
    pipeline(file, res, () => undefined);
  });
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
    const generated = IDENTICON.exec(name);
    if (generated) {
      res.setHeader('Content-Type', 'image/png');
      res.setHeader('Cache-Control', 'public, max-age=604800, immutable');
      return res.send(identicon(generated[1]));
    }
    sendUploaded(res, next, settings().picture.avatarUploadPath, name);
  });
  r.get('/repo-avatars/:name', (req: Request, res: Response, next: NextFunction) => {
    sendUploaded(res, next, settings().picture.repositoryAvatarUploadPath, String(req.params.name));
  });
  r.get('/user/avatar/:username/:size', authenticate(), (req: Request, res: Response, next: NextFunction) => {
    lookupOwner(ctxOf(req), req.principal, String(req.params.username)).then((u) => {
      res.setHeader('Cache-Control', 'private, max-age=300');
      res.redirect(303, avatarUrl(u, settings().server.rootUrl));
    }, next);
  });
  return r;
}
