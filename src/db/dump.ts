/**
 * The database as SQL text, for `forge dump`: on SQLite, written here from one read transaction
 * (the schema as SQLite stores it, then every row), loadable with `sqlite3 forge.db < forge-db.sql`;
 * on PostgreSQL, by `pg_dump`, loadable with `psql`.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { once } from 'node:events';
import { QueryTypes } from 'sequelize';
import type { Settings } from '../config';
import { db } from './index';

const ROWS_PER_READ = 1000;

/** One SQLite value as an SQL literal. */
function literal(v: unknown): string {
  if (v === null || v === undefined) return 'NULL';
  if (typeof v === 'number' || typeof v === 'bigint') return String(v);
  if (Buffer.isBuffer(v)) return `X'${v.toString('hex')}'`;
  return `'${String(v).replace(/'/g, "''")}'`;
}

/** Write the SQLite database as SQL to `file`. */
async function dumpSqlite(file: string, rebuild: string[]): Promise<void> {
  const out = fs.createWriteStream(file);
  const write = async (text: string) => { if (!out.write(text)) await once(out, 'drain'); };
  // why: one transaction, so the schema and every table come from the same moment while the forge writes.
  await db().transaction(async (tx) => {
    const q = <T extends object>(sql: string, replacements: Record<string, unknown> = {}) =>
      db().query<T>(sql, { type: QueryTypes.SELECT, transaction: tx, replacements });
    await write('PRAGMA foreign_keys=OFF;\nBEGIN TRANSACTION;\n');
    const schema = await q<{ type: string; name: string; sql: string }>(
      "SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' ORDER BY CASE type WHEN 'table' THEN 0 ELSE 1 END, name");
    const tables = schema.filter((s) => s.type === 'table');
    // why: a full-text (virtual) table keeps its index in shadow tables that its CREATE makes again;
    // the dump creates the virtual table empty, leaves its shadow tables out, and the caller's
    // `rebuild` statements fill it again from the rows it indexes.
    const virtual = tables.filter((t) => /^CREATE VIRTUAL TABLE/i.test(t.sql)).map((t) => t.name);
    const shadow = (name: string) => virtual.some((v) => name.startsWith(`${v}_`));
    for (const t of tables) {
      if (shadow(t.name)) continue;
      await write(`${t.sql};\n`);
      if (virtual.includes(t.name)) continue;
      const quoted = `"${t.name.replace(/"/g, '""')}"`;
      for (let after = -9e18; ;) {
        const rows = await q<Record<string, unknown>>(`SELECT rowid AS __rowid, * FROM ${quoted} WHERE rowid > :after ORDER BY rowid LIMIT ${ROWS_PER_READ}`, { after });
        if (rows.length === 0) break;
        for (const r of rows) {
          const { __rowid, ...cols } = r;
          await write(`INSERT INTO ${quoted} (${Object.keys(cols).map((c) => `"${c.replace(/"/g, '""')}"`).join(',')}) VALUES(${Object.values(cols).map(literal).join(',')});\n`);
          after = Number(__rowid);
        }
      }
    }
    for (const i of schema.filter((s) => s.type !== 'table')) await write(`${i.sql};\n`);
    for (const sql of rebuild) await write(`${sql};\n`);
    await write('COMMIT;\n');
  });
  out.end();
  await once(out, 'finish');
}

/** Write the PostgreSQL database as SQL to `file` with pg_dump (Debian: postgresql-client). */
async function dumpPostgres(s: Settings, file: string): Promise<void> {
  const [host, port] = s.database.host.split(':');
  const child = spawn('pg_dump', ['--no-owner', '--no-privileges', '--host', host, '--port', port || '5432', '--username', s.database.user, '--file', file, s.database.name], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', PGPASSWORD: s.database.passwd, PGSSLMODE: s.database.sslMode === 'disable' ? 'disable' : 'require' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (d: Buffer) => { err += d.toString(); });
  const [code] = (await Promise.race([once(child, 'close'), once(child, 'error').then(([e]) => { throw e; })])) as [number];
  if (code !== 0) throw new Error(`pg_dump failed: ${err.trim() || `exit ${code}`}`);
}

/**
 * Write the configured database as SQL to `file`. On SQLite, `rebuild` are the statements that
 * refill the full-text tables from the rows they index, run at the end of a restore.
 */
export function dumpDatabase(s: Settings, file: string, rebuild: string[] = []): Promise<void> {
  return s.database.dbType === 'postgres' ? dumpPostgres(s, file) : dumpSqlite(file, rebuild);
}
