/**
 * Runs pending umzug migrations once, under a lock that is safe when several processes or
 * machines start together: a PostgreSQL advisory lock, or an exclusive lock file beside the SQLite database.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { QueryTypes } from 'sequelize';
import type { Sequelize } from 'sequelize-typescript';
import type { Settings } from '../config';

// why: an arbitrary constant shared by every node; only migrations take this advisory lock.
const PG_MIGRATION_LOCK = 728_310_001;

const MIGRATIONS = path.join(__dirname, '..', '..', 'migrations');
const TABLE = 'forge_migrations';

async function umzugFor(sequelize: Sequelize) {
  // why: loaded only when a migration is pending: umzug and what it brings cost a quarter of a second per process start.
  const { Umzug, SequelizeStorage } = await import('umzug');
  return new Umzug({
    migrations: {
      glob: ['*.js', { cwd: MIGRATIONS, ignore: ['types.js'] }],
      resolve: ({ name, path: file, context }) => {
        const m = require(file as string);
        return { name: name.replace(/\.js$/, ''), up: async () => m.up({ context }), down: async () => m.down({ context }) };
      },
    },
    context: sequelize.getQueryInterface(),
    storage: new SequelizeStorage({ sequelize, tableName: TABLE }),
    logger: undefined,
  });
}

async function withPgLock<T>(s: Settings, fn: () => Promise<T>): Promise<T> {
  const [host, port] = s.database.host.split(':');
  const client = new Client({ host, port: port ? Number(port) : 5432, database: s.database.name, user: s.database.user, password: s.database.passwd });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [PG_MIGRATION_LOCK]);
    try {
      return await fn();
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [PG_MIGRATION_LOCK]);
    }
  } finally {
    await client.end();
  }
}

async function withFileLock<T>(lockPath: string, fn: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      const fd = fs.openSync(lockPath, 'wx');
      fs.writeSync(fd, String(process.pid));
      fs.closeSync(fd);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = Number(fs.readFileSync(lockPath, 'utf8') || '0');
      if (holder && !pidAlive(holder)) {
        fs.rmSync(lockPath, { force: true });
        continue;
      }
      if (Date.now() > deadline) throw new Error(`migration lock ${lockPath} is held by process ${holder}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  try {
    return await fn();
  } finally {
    fs.rmSync(lockPath, { force: true });
  }
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether every migration file is recorded as applied (false when the table is not there yet). */
async function upToDate(sequelize: Sequelize): Promise<boolean> {
  const files = fs.readdirSync(MIGRATIONS).filter((f) => f.endsWith('.js') && f !== 'types.js').map((f) => f.slice(0, -3));
  try {
    const rows = await sequelize.query<{ name: string }>(`SELECT name FROM ${TABLE}`, { type: QueryTypes.SELECT });
    const applied = new Set(rows.map((r) => r.name));
    return files.every((f) => applied.has(f));
  } catch {
    return false;
  }
}

/** Work done once for the whole cluster at start, under the migration lock, when `needed` says so. */
export interface BootStep { needed(): boolean; run(): Promise<void> }

/**
 * Apply every pending migration, and run the boot steps that are needed, under the lock; returns
 * the names applied. why: a step such as making the OAuth2 signing key must happen once for every
 * node sharing the data dir, and the migration lock is already what nodes starting together take.
 */
export async function migrate(sequelize: Sequelize, s: Settings, steps: BootStep[] = []): Promise<string[]> {
  if (!steps.some((st) => st.needed()) && await upToDate(sequelize)) return [];
  const run = async () => {
    const names = (await upToDate(sequelize)) ? [] : (await (await umzugFor(sequelize)).up()).map((m) => m.name);
    for (const st of steps) if (st.needed()) await st.run();
    return names;
  };
  if (s.database.dbType === 'postgres') return withPgLock(s, run);
  return withFileLock(`${s.database.path}.migrate.lock`, run);
}
