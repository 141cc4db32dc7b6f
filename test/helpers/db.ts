/**
 * Direct row inserts into a test server's database, for fixtures the API cannot create yet
 * (repositories). SQLite through sqlite3, PostgreSQL through pg, following the server's env.
 */
import path from 'node:path';
import sqlite3 from 'sqlite3';
import { Client } from 'pg';
import type { World } from './world';

/** Run one SQL statement with positional parameters ($1, $2 ...) against the world's database. */
export async function sql(w: World, text: string, params: unknown[] = []): Promise<Record<string, unknown>[]> {
  const env = w.server.env;
  if (env.FORGE__DATABASE__DB_TYPE === 'postgres') {
    const [host, port] = env.FORGE__DATABASE__HOST.split(':');
    const c = new Client({ host, port: Number(port), user: env.FORGE__DATABASE__USER, password: env.FORGE__DATABASE__PASSWD, database: env.FORGE__DATABASE__NAME });
    await c.connect();
    try { return (await c.query(text, params)).rows; } finally { await c.end(); }
  }
  const file = path.join(w.server.dataDir, 'forge.db');
  const dbh = new sqlite3.Database(file);
  dbh.configure('busyTimeout', 10_000);
  try {
    return await new Promise((resolve, reject) => {
      // $n may repeat: expand to one ? per occurrence, with its parameter.
      const args: unknown[] = [];
      const q = text.replace(/\$(\d+)/g, (_, n: string) => { args.push(params[Number(n) - 1]); return '?'; });
      dbh.all(q, args, (err, rows) => (err ? reject(err) : resolve(rows as Record<string, unknown>[])));
    });
  } finally {
    await new Promise<void>((r) => dbh.close(() => r()));
  }
}

/** Insert a repository row (with its code and issues units) owned by `ownerId`; returns its id. */
export async function insertRepo(w: World, ownerId: number, ownerName: string, name: string, isPrivate = false): Promise<number> {
  // why: Sequelize's SQLite dialect stores dates as 'YYYY-MM-DD HH:MM:SS.mmm +00:00' and parses only that form.
  const iso = new Date().toISOString();
  const now = w.server.env.FORGE__DATABASE__DB_TYPE === 'postgres' ? iso : `${iso.replace('T', ' ').replace('Z', '')} +00:00`;
  await sql(w, `INSERT INTO repository (owner_id, owner_name, lower_name, name, is_private, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [ownerId, ownerName, name.toLowerCase(), name, isPrivate, now, now]);
  const [row] = await sql(w, 'SELECT id FROM repository WHERE owner_id = $1 AND lower_name = $2', [ownerId, name.toLowerCase()]);
  const id = Number(row.id);
  for (const type of [1, 2]) {
    await sql(w, 'INSERT INTO repo_unit (repo_id, type, created_at, updated_at) VALUES ($1, $2, $3, $4)', [id, type, now, now]);
  }
  return id;
}
