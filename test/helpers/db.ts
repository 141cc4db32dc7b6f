/**
 * Direct SQL on a test server's database, for fixtures the API cannot make yet (organizations with
 * a given owner set) and for checking rows the API does not show; repositories come from the API. Works on
 * SQLite and PostgreSQL; write placeholders as $1, $2... (a placeholder may repeat).
 */
import fs from 'node:fs';
import path from 'node:path';
import sqlite3 from 'sqlite3';
import { Client } from 'pg';
import type { TestServer } from './server';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Row = Record<string, any>;

const isPg = (server: TestServer) => server.env.FORGE__DATABASE__DB_TYPE === 'postgres';

/**
 * Run one statement and return its rows. After an UPDATE or DELETE the server is told, as an
 * administrator would tell it (POST /api/internal/cache/table-written with the internal token), so
 * every worker drops what it cached from the table before this returns.
 */
export async function sql(server: TestServer, query: string, params: unknown[] = []): Promise<Row[]> {
  const rows = await runSql(server, query, params);
  const written = /^\s*(?:UPDATE|DELETE\s+FROM)\s+(\w+)/i.exec(query);
  if (written && server.proc && server.proc.exitCode === null) await tableWritten(server, written[1]);
  return rows;
}

/** Tell the server that `table` was written behind its back; resolves once every worker dropped its cache of it. */
export async function tableWritten(server: TestServer, table: string): Promise<void> {
  const { internalToken } = JSON.parse(fs.readFileSync(path.join(server.dataDir, 'secrets.json'), 'utf8')) as { internalToken: string };
  const res = await fetch(`${server.url}api/internal/cache/table-written`, {
    method: 'POST', headers: { Authorization: `Bearer ${internalToken}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ table }),
  });
  if (res.status !== 200) throw new Error(`telling the server about ${table}: ${res.status} ${await res.text()}`);
}

async function runSql(server: TestServer, query: string, params: unknown[] = []): Promise<Row[]> {
  const env = server.env;
  if (isPg(server)) {
    const [host, port] = env.FORGE__DATABASE__HOST.split(':');
    const c = new Client({ host, port: Number(port), user: env.FORGE__DATABASE__USER, password: env.FORGE__DATABASE__PASSWD, database: env.FORGE__DATABASE__NAME });
    await c.connect();
    try {
      return (await c.query(query, params)).rows;
    } finally {
      await c.end();
    }
  }
  const conn = new sqlite3.Database(path.join(server.dataDir, 'forge.db'));
  try {
    conn.configure('busyTimeout', 15000);
    const args: unknown[] = [];
    const q = query.replace(/\$(\d+)/g, (_, n: string) => { args.push(params[Number(n) - 1]); return '?'; });
    return await new Promise<Row[]>((resolve, reject) => conn.all(q, args, (err, rows) => (err ? reject(err) : resolve(rows as Row[]))));
  } finally {
    await new Promise<void>((resolve) => conn.close(() => resolve()));
  }
}

/** The number of rows a COUNT(*) AS n query answers. */
export async function count(server: TestServer, query: string, params: unknown[] = []): Promise<number> {
  return Number((await sql(server, query, params))[0].n);
}

/** A timestamp in the form the server's dialect stores. */
function now(server: TestServer): string {
  const iso = new Date().toISOString();
  // why: Sequelize's SQLite dialect stores dates as 'YYYY-MM-DD HH:MM:SS.mmm +00:00' and parses that form.
  return isPg(server) ? iso : `${iso.replace('T', ' ').replace('Z', '')} +00:00`;
}

/** Insert a row (created_at/updated_at set now) and return its id. */
export async function insert(server: TestServer, table: string, row: Record<string, unknown>): Promise<number> {
  const cols = [...Object.keys(row), 'created_at', 'updated_at'];
  const t = now(server);
  const vals = [...Object.values(row), t, t];
  const rows = await sql(server, `INSERT INTO ${table} (${cols.join(', ')}) VALUES (${cols.map((_, i) => `$${i + 1}`).join(', ')}) RETURNING id`, vals);
  return Number(rows[0].id);
}

/** An organization named `name` whose Owners team has `ownerIds`; returns the org id. */
export async function insertOrg(server: TestServer, name: string, ownerIds: number[]): Promise<number> {
  const orgId = await insert(server, 'users', { name, lower_name: name.toLowerCase(), type: 1 });
  const teamId = await insert(server, 'team', { org_id: orgId, name: 'Owners', lower_name: 'owners', authorize: 4, includes_all_repositories: true, can_create_org_repo: true });
  for (const uid of ownerIds) {
    await insert(server, 'team_user', { org_id: orgId, team_id: teamId, uid });
    await insert(server, 'org_user', { org_id: orgId, uid });
  }
  return orgId;
}

/**
 * A repository of `ownerName` (user or organization), made through the API as the site
 * administrator (POST /admin/users/{owner}/repos: row, units, counters and the bare repository);
 * returns its id. Without an administrator token (a server not started by startWorld) it falls
 * back to inserting the row with the code and issues units.
 */
export async function insertRepo(server: TestServer, ownerId: number, ownerName: string, name: string, isPrivate = false): Promise<number> {
  if (server.adminToken) {
    const res = await fetch(`${server.api}/admin/users/${encodeURIComponent(ownerName)}/repos`, {
      method: 'POST', headers: { Authorization: `token ${server.adminToken}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name, private: isPrivate }),
    });
    const body = (await res.json()) as { id?: number; message?: string };
    if (res.status !== 201 || !body.id) throw new Error(`creating repository ${ownerName}/${name}: ${res.status} ${body.message ?? ''}`);
    return body.id;
  }
  const id = await insert(server, 'repository', { owner_id: ownerId, owner_name: ownerName, name, lower_name: name.toLowerCase(), is_private: isPrivate });
  for (const type of [1, 2]) await insert(server, 'repo_unit', { repo_id: id, type });
  return id;
}
