/**
 * Direct SQL on a test server's database, for fixtures the API cannot make yet (organizations,
 * repositories, follows, keys) and for checking rows the API does not show. Works on SQLite and
 * PostgreSQL; write placeholders as $1, $2...
 */
import path from 'node:path';
import sqlite3 from 'sqlite3';
import { Client } from 'pg';
import type { TestServer } from './server';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Row = Record<string, any>;

/** Run one statement and return its rows (booleans as true/false, counts as numbers are up to the caller). */
export async function sql(server: TestServer, query: string, params: unknown[] = []): Promise<Row[]> {
  const env = server.env;
  if (env.FORGE__DATABASE__DB_TYPE === 'postgres') {
    const [host, port] = env.FORGE__DATABASE__HOST.split(':');
    const c = new Client({ host, port: Number(port), user: env.FORGE__DATABASE__USER, password: env.FORGE__DATABASE__PASSWD, database: env.FORGE__DATABASE__NAME });
    await c.connect();
    try {
      return (await c.query(query, params)).rows;
    } finally {
      await c.end();
    }
  }
  const file = path.join(server.dataDir, 'forge.db');
  const conn = new sqlite3.Database(file);
  try {
    conn.configure('busyTimeout', 15000);
    return await new Promise<Row[]>((resolve, reject) => {
      conn.all(query.replace(/\$(\d+)/g, '?$1'), params, (err, rows) => (err ? reject(err) : resolve(rows as Row[])));
    });
  } finally {
    await new Promise<void>((resolve) => conn.close(() => resolve()));
  }
}

/** The number of rows a COUNT(*) AS n query answers. */
export async function count(server: TestServer, query: string, params: unknown[] = []): Promise<number> {
  const rows = await sql(server, query, params);
  return Number(rows[0].n);
}

/** Insert a row and return its id. */
export async function insert(server: TestServer, table: string, row: Record<string, unknown>): Promise<number> {
  const cols = Object.keys(row);
  const vals = cols.map((_, i) => `$${i + 1}`);
  const rows = await sql(server,
    `INSERT INTO ${table} (${cols.join(', ')}, created_at, updated_at) VALUES (${vals.join(', ')}, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP) RETURNING id`,
    Object.values(row));
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

/** A repository row owned by `ownerId`; returns its id. */
export async function insertRepo(server: TestServer, ownerId: number, ownerName: string, name: string): Promise<number> {
  return insert(server, 'repository', { owner_id: ownerId, owner_name: ownerName, name, lower_name: name.toLowerCase() });
}
