/**
 * Helpers for Git LFS tests: raw LFS requests (batch, PUT, GET, locks) with the LFS media type,
 * object ids, where the server stores an object, and signing LFS tokens with the server's secret.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { loadSettings, useSettings } from '../../src/config';
import { signLfsToken, type LfsGrant } from '../../src/services/lfs/token';
import type { TestServer } from './server';

/** The LFS media type. */
export const LFS_TYPE = 'application/vnd.git-lfs+json';

/** A raw LFS answer. */
export interface LfsResponse {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  bytes: Buffer;
}

/** Credentials of a raw LFS request. */
export type LfsAuth = { basic: [string, string] } | { token: string } | { bearer: string } | null;

function authHeader(auth: LfsAuth): Record<string, string> {
  if (!auth) return {};
  if ('basic' in auth) return { Authorization: `Basic ${Buffer.from(`${auth.basic[0]}:${auth.basic[1]}`).toString('base64')}` };
  if ('token' in auth) return { Authorization: `token ${auth.token}` };
  return { Authorization: `Bearer ${auth.bearer}` };
}

/** sha256 hex of some bytes: the LFS object id. */
export function oidOf(buf: Buffer): string {
  return crypto.createHash('sha256').update(buf).digest('hex');
}

/** Talks LFS to one server. */
export class LfsClient {
  constructor(private readonly server: TestServer) {}

  /** `<root>/<repo>.git/info/lfs` + rest (repo is "owner/name"). */
  url(repo: string, rest: string): string {
    return `${this.server.url}${repo}.git/info/lfs${rest}`;
  }

  /** Any request; JSON bodies are sent with the LFS content type, Accept is the LFS type unless given. */
  async req(method: string, url: string, auth: LfsAuth, body?: unknown, headers: Record<string, string> = {}): Promise<LfsResponse> {
    const h: Record<string, string> = { Accept: LFS_TYPE, ...authHeader(auth), ...headers };
    let payload: string | Buffer | undefined;
    if (Buffer.isBuffer(body)) payload = body;
    else if (typeof body === 'string') { payload = body; h['Content-Type'] ??= LFS_TYPE; }
    else if (body !== undefined) { payload = JSON.stringify(body); h['Content-Type'] ??= LFS_TYPE; }
    const res = await fetch(url, { method, headers: h, body: payload, redirect: 'manual' });
    const bytes = Buffer.from(await res.arrayBuffer());
    let parsed: unknown = null;
    try { parsed = bytes.length ? JSON.parse(bytes.toString()) : null; } catch { parsed = bytes.toString(); }
    return { status: res.status, headers: res.headers, body: parsed, bytes };
  }

  /** POST objects/batch. */
  batch(repo: string, operation: string, objects: unknown[], auth: LfsAuth): Promise<LfsResponse> {
    return this.req('POST', this.url(repo, '/objects/batch'), auth, { operation, transfers: ['basic'], objects });
  }

  /** PUT objects/{oid}/{size} (Gitea's upload link). */
  put(repo: string, oid: string, size: number | string, bytes: Buffer, auth: LfsAuth): Promise<LfsResponse> {
    return this.req('PUT', this.url(repo, `/objects/${oid}/${size}`), auth, bytes, { 'Content-Type': 'application/octet-stream' });
  }

  /** GET objects/{oid}. */
  get(repo: string, oid: string, auth: LfsAuth, headers: Record<string, string> = {}): Promise<LfsResponse> {
    return this.req('GET', this.url(repo, `/objects/${oid}`), auth, undefined, headers);
  }
}

/** Where the server keeps object `oid`. */
export function storedPath(server: TestServer, oid: string): string {
  return path.join(server.dataDir, 'lfs', oid.slice(0, 2), oid.slice(2, 4), oid);
}

/** Every file under the server's LFS directory, relative to it. */
export function lfsFiles(server: TestServer): string[] {
  const root = path.join(server.dataDir, 'lfs');
  if (!fs.existsSync(root)) return [];
  return (fs.readdirSync(root, { recursive: true }) as string[])
    .filter((f) => fs.statSync(path.join(root, f)).isFile()).sort();
}

/** Sign an LFS token the way the server would, with the secret it generated in its data dir. */
export function signTokenFor(server: TestServer, grant: Omit<LfsGrant, 'exp'>, ttlSeconds?: number): string {
  const secrets = JSON.parse(fs.readFileSync(path.join(server.dataDir, 'secrets.json'), 'utf8')) as { secretKey: string };
  const s = loadSettings(null, { ...process.env, ...server.env });
  s.security.secretKey = secrets.secretKey;
  useSettings(s);
  return signLfsToken(grant, ttlSeconds).token;
}
