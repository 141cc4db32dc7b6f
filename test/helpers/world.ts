/**
 * A started forge for one test file, with an administrator, and helpers to make users with
 * tokens, call the API raw (status, headers, body) and through gitea-js.
 */
import crypto from 'node:crypto';
import { giteaApi, type Api } from 'gitea-js';
import { newServer, type TestServer, type ServerOptions } from './server';

/** A raw HTTP answer. */
export interface RawResponse {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  text: string;
}

/** How a raw request authenticates. */
export interface RawAuth {
  token?: string;
  basic?: [string, string];
  headers?: Record<string, string>;
}

/** A test user with its password, an `all`-scoped token and a gitea-js client. */
export interface TestUser {
  name: string;
  password: string;
  email: string;
  token: string;
  id: number;
  api: Api<unknown>;
}

/** A started server and its administrator. */
export class World {
  admin!: TestUser;
  constructor(public readonly server: TestServer) {}

  /** A gitea-js client, authenticated with `token` when given. */
  client(token?: string): Api<unknown> {
    return giteaApi(this.server.url.replace(/\/$/, ''), { token, customFetch: fetch });
  }

  /** Call the API (path relative to /api/v1, or absolute from the root when it starts with "//"). */
  async raw(method: string, apiPath: string, body?: unknown, auth: RawAuth = {}): Promise<RawResponse> {
    const url = apiPath.startsWith('//') ? `${this.server.url}${apiPath.slice(2)}` : `${this.server.api}${apiPath}`;
    const headers: Record<string, string> = { ...(auth.headers ?? {}) };
    if (auth.token) headers.Authorization = `token ${auth.token}`;
    if (auth.basic) headers.Authorization = `Basic ${Buffer.from(`${auth.basic[0]}:${auth.basic[1]}`).toString('base64')}`;
    let payload: string | undefined;
    if (body !== undefined) {
      payload = typeof body === 'string' ? body : JSON.stringify(body);
      headers['Content-Type'] ??= 'application/json';
    }
    const res = await fetch(url, { method, headers, body: payload, redirect: 'manual' });
    const text = await res.text();
    let parsed: unknown = text;
    try { parsed = text ? JSON.parse(text) : null; } catch { /* not JSON */ }
    return { status: res.status, headers: res.headers, body: parsed, text };
  }

  /** Create a user through the admin API and give it an `all` token (made with its password, as Gitea requires). */
  async user(name = `u${crypto.randomBytes(4).toString('hex')}`, extra: Record<string, unknown> = {}): Promise<TestUser> {
    const password = 'password-123456';
    const email = `${name.toLowerCase()}@example.com`;
    const created = await this.raw('POST', '/admin/users', { username: name, email, password, must_change_password: false, ...extra }, { token: this.admin.token });
    if (created.status !== 201) throw new Error(`creating ${name}: ${created.status} ${created.text}`);
    const tok = await this.raw('POST', `/users/${name}/tokens`, { name: 'test', scopes: ['all'] }, { basic: [name, password] });
    if (tok.status !== 201) throw new Error(`token for ${name}: ${tok.status} ${tok.text}`);
    return { name, password, email, token: tok.body.sha1, id: created.body.id, api: this.client(tok.body.sha1) };
  }

  /** Stop the server and drop its database (the temp dir is left for post-mortems). */
  async stop(): Promise<void> {
    await this.server.destroy();
  }
}

/** Start a forge and make its first administrator `root` with the CLI. */
export async function startWorld(opts: ServerOptions = {}): Promise<World> {
  const server = await newServer(opts);
  const w = new World(server);
  const password = 'root-password-1';
  const out = await server.cli(['admin', 'user', 'create', '--username', 'root', '--password', password, '--email', 'root@example.com',
    '--admin', '--must-change-password=false', '--access-token', '--access-token-scopes', 'all']);
  if (out.code !== 0) throw new Error(`admin create failed: ${out.stderr}`);
  const token = out.stdout.trim().split('\n').pop()!;
  await server.start();
  server.adminToken = token;
  w.admin = { name: 'root', password, email: 'root@example.com', token, id: 1, api: w.client(token) };
  return w;
}
