/**
 * A started forge for one test file, with an administrator, and helpers to make users with
 * tokens, call the API raw (status, headers, body) and through gitea-js.
 */
import crypto from 'node:crypto';
import { giteaApi, type Api } from 'gitea-js';
import { newServer, pgAdmin, usesPostgres, type ServerTemplate, type TestServer, type ServerOptions } from './server';

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

const ROOT_PASSWORD = 'root-password-1';
const templates = new Map<boolean, Promise<ServerTemplate & { token: string }>>();

/**
 * A database in which the CLI made the administrator `root`, once per test process and kind of
 * database; each file's server starts from a copy. why: the CLI is a process start and a migration
 * run, and a pass starts a server for each of about a hundred files.
 */
function template(postgres: boolean): Promise<ServerTemplate & { token: string }> {
  let made = templates.get(postgres);
  if (!made) {
    made = (async () => {
      const server = await newServer({ postgres });
      const out = await server.cli(['admin', 'user', 'create', '--username', 'root', '--password', ROOT_PASSWORD, '--email', 'root@example.com',
        '--admin', '--must-change-password=false', '--access-token', '--access-token-scopes', 'all']);
      if (out.code !== 0) throw new Error(`admin create failed: ${out.stderr}`);
      let pgName: string | null = null;
      if (postgres) {
        // why: named after this process, so a later run drops the templates of processes that are gone.
        pgName = `forge_tpl_${process.pid}`;
        await dropTemplatesOfGoneProcesses();
        await pgAdmin(`ALTER DATABASE ${server.env.FORGE__DATABASE__NAME} RENAME TO ${pgName}`);
      }
      return { dataDir: server.dataDir, pgName, token: out.stdout.trim().split('\n').pop()! };
    })();
    templates.set(postgres, made);
  }
  return made;
}

async function dropTemplatesOfGoneProcesses(): Promise<void> {
  const names = await pgAdmin("SELECT datname FROM pg_database WHERE datname LIKE 'forge\\_tpl\\_%'");
  for (const { datname } of names as { datname: string }[]) {
    const pid = Number(datname.slice('forge_tpl_'.length));
    try {
      process.kill(pid, 0);
    } catch {
      await pgAdmin(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
    }
  }
}

/** Start a forge whose first administrator `root` the CLI made. */
export async function startWorld(opts: ServerOptions = {}): Promise<World> {
  const from = await template(usesPostgres(opts));
  const server = await newServer({ ...opts, from });
  const w = new World(server);
  await server.start();
  server.adminToken = from.token;
  w.admin = { name: 'root', password: ROOT_PASSWORD, email: 'root@example.com', token: from.token, id: 1, api: w.client(from.token) };
  return w;
}

/** Expect a Gitea error answer: the status and, when given, the message (exact, or matching). */
export function expectError(res: RawResponse, status: number, message?: string | RegExp): void {
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${res.text}`);
  if (message instanceof RegExp && !message.test(res.body?.message ?? '')) throw new Error(`message ${JSON.stringify(res.body?.message)} does not match ${message}`);
  if (typeof message === 'string' && res.body?.message !== message) throw new Error(`message ${JSON.stringify(res.body?.message)} is not ${JSON.stringify(message)}`);
}
