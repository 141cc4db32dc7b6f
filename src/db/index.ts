/**
 * The Sequelize instance, the DbContext passed to every model function, and withTx.
 */
import path from 'node:path';
import fs from 'node:fs';
import { Sequelize } from 'sequelize-typescript';
import { Transaction } from 'sequelize';
import type { Settings } from '../config';
import { noteQuery } from './query-count';

/** What every model function receives first: the transaction (if any) and who is asking. */
export interface DbContext {
  tx?: Transaction;
  /** id of the signed-in user doing the work, for audit; null for anonymous or system. */
  doerId?: number | null;
  requestId?: string;
}

/** A context with no transaction, for system work (boot, queue workers, tests). */
export const systemCtx: DbContext = { doerId: null };

let instance: Sequelize | null = null;

/** Build the Sequelize instance for the configured database and register every model in src/models. */
export function openDatabase(s: Settings): Sequelize {
  if (instance) return instance;
  const modelsDir = path.join(__dirname, '..', 'models');
  const models = [path.join(modelsDir, '*.model.js')];
  const logging = s.database.logSql ? (sql: string, ms?: number) => console.log(`[${ms} ms] ${sql}`) : false;
  const benchmark = s.database.logSql;
  if (s.database.dbType === 'sqlite3') {
    fs.mkdirSync(path.dirname(s.database.path), { recursive: true });
    instance = new Sequelize({
      dialect: 'sqlite',
      storage: s.database.path,
      logging,
      benchmark,
      models,
      modelMatch: (filename, member) => filename.replace(/\.model$/, '') === kebab(member),
      // why: sqlite allows one writer; transactions take the write lock up front so two never deadlock upgrading.
      transactionType: Transaction.TYPES.IMMEDIATE,
      retry: { max: 5, match: [/SQLITE_BUSY/] },
    });
    shareAndTuneConnections(instance);
  } else {
    const [host, port] = s.database.host.split(':');
    instance = new Sequelize({
      dialect: 'postgres',
      host,
      port: port ? Number(port) : 5432,
      database: s.database.name,
      username: s.database.user,
      password: s.database.passwd,
      logging,
      benchmark,
      models,
      modelMatch: (filename, member) => filename.replace(/\.model$/, '') === kebab(member),
      pool: { max: s.database.maxOpenConns, min: 0, idle: 10000 },
      dialectOptions: {
        // why: a request's statements are short; starting parallel workers costs more than they save
        // (a keyword search took three times as long with one), and a busy node's other cores serve other requests.
        options: '-c max_parallel_workers_per_gather=0',
        ...(s.database.sslMode === 'disable' ? {} : { ssl: { rejectUnauthorized: s.database.sslMode === 'verify-full' } }),
      },
    });
  }
  installWriteHook(instance);
  return instance;
}

type SqliteCallback = (err: Error | null, rows?: unknown) => void;
type SqliteCall = (sql: string, ...rest: unknown[]) => unknown;

interface SqliteConn {
  configure(option: 'busyTimeout', ms: number): void;
  run(sql: string, cb: (err: Error | null) => void): void;
  all: SqliteCall;
  exec: SqliteCall;
}

const TABLE_INFO = /^PRAGMA table_info\(`?(\w+)`?\)$/;
const DDL = /^\s*(?:CREATE|ALTER|DROP)\b/i;

/**
 * Remember the connection's answers to `PRAGMA table_info`, until it runs DDL.
 * why: Sequelize's SQLite dialect asks for the column types of every table before every SELECT, so
 * each read was two statements. The schema changes only by DDL, which migrations run at start-up
 * through this connection, and any DDL forgets what was remembered.
 */
function rememberTableInfo(conn: SqliteConn): void {
  const memo = new Map<string, unknown>();
  const forgetOnDdl = (call: SqliteCall): SqliteCall => (sql, ...rest) => {
    if (DDL.test(sql)) memo.clear();
    return call(sql, ...rest);
  };
  const all = forgetOnDdl(conn.all.bind(conn));
  conn.run = forgetOnDdl(conn.run.bind(conn) as SqliteCall) as SqliteConn['run'];
  conn.exec = forgetOnDdl(conn.exec.bind(conn));
  conn.all = (sql, ...rest) => {
    const table = TABLE_INFO.exec(sql)?.[1];
    const cb = rest[rest.length - 1];
    if (!table || typeof cb !== 'function') return all(sql, ...rest);
    const known = memo.get(table);
    if (known) {
      process.nextTick(() => (cb as SqliteCallback)(null, known));
      return conn;
    }
    return all(sql, ...rest.slice(0, -1), (err: Error | null, rows?: unknown) => {
      if (!err) memo.set(table, rows);
      (cb as SqliteCallback)(err, rows);
    });
  };
}

interface SqliteConnectionManager {
  connections: Record<string, SqliteConn>;
  getConnection(options?: { uuid?: string }): Promise<SqliteConn>;
  releaseConnection(conn: SqliteConn, force?: boolean): void;
}

const TX_CONNECTION = 'transactions';
/** Connections for reads outside a transaction, taken in turn. */
const READ_CONNECTIONS = ['read-1', 'read-2'];
const READ_SQL = /^\s*SELECT\b/i;

/**
 * Tune every SQLite connection as it opens, run all transactions on one long-lived connection, and
 * spread reads outside a transaction over READ_CONNECTIONS.
 * why: Sequelize's SQLite dialect opens a new connection for each transaction and closes it at the
 * end, and never runs the afterConnect hook, so connections were untuned (rollback journal, full
 * sync, 1 s busy wait) and each transaction paid for opening one. withTx runs a process's SQLite
 * transactions one at a time, so they can share a connection. A connection runs one statement at
 * a time, so every read of the process queued behind every other on the default one; in WAL mode
 * readers on other connections run side by side, on other pool threads. Writes outside a
 * transaction stay on the default connection, so they never wait for each other's lock.
 */
function shareAndTuneConnections(sequelize: Sequelize): void {
  const cm = sequelize.connectionManager as unknown as SqliteConnectionManager;
  const get = cm.getConnection.bind(cm);
  const release = cm.releaseConnection.bind(cm);
  const tuned = new WeakMap<SqliteConn, Promise<void>>();
  const kept = new Set([TX_CONNECTION, ...READ_CONNECTIONS]);
  let nextReader = 0;
  const query = sequelize.query.bind(sequelize) as (sql: unknown, options?: Record<string, unknown>) => Promise<unknown>;
  (sequelize as unknown as { query: typeof query }).query = (sql, options) => {
    const text = typeof sql === 'string' ? sql : (sql as { query?: string })?.query ?? '';
    return query(sql, !options?.transaction && READ_SQL.test(text) ? { ...options, forgeRead: true } : options);
  };
  cm.getConnection = async (options: { uuid?: string; forgeRead?: boolean } = {}) => {
    let uuid = options.uuid && options.uuid !== 'default' ? TX_CONNECTION : options.uuid;
    if (options.forgeRead) uuid = READ_CONNECTIONS[nextReader++ % READ_CONNECTIONS.length];
    const conn = await get({ ...options, uuid });
    if (!tuned.has(conn)) tuned.set(conn, sqliteTune(conn));
    await tuned.get(conn);
    return conn;
  };
  cm.releaseConnection = (conn, force) => {
    if (Object.entries(cm.connections).some(([uuid, c]) => c === conn && kept.has(uuid))) return;
    release(conn, force);
  };
}

async function sqliteTune(conn: SqliteConn): Promise<void> {
  rememberTableInfo(conn);
  conn.configure('busyTimeout', 15000);
  for (const pragma of ['PRAGMA journal_mode = WAL', 'PRAGMA synchronous = NORMAL', 'PRAGMA foreign_keys = OFF']) {
    await new Promise<void>((resolve, reject) => conn.run(pragma, (err) => (err ? reject(err) : resolve())));
  }
}

function kebab(member: string): string {
  return member.replace(/Model$/, '').replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();
}

/** The open database; throws if openDatabase was not called. */
export function db(): Sequelize {
  if (!instance) throw new Error('database is not open');
  return instance;
}

/** Close the database (graceful shutdown, tests), after the SQLite transactions already queued. */
export async function closeDatabase(): Promise<void> {
  // why: a write whose client went away stays queued for its turn; closing under it failed it midway.
  await sqliteTurn;
  if (instance) await instance.close();
  instance = null;
}

/**
 * Run fn inside one transaction. Only services call this.
 * why: a nested call reuses the outer transaction so a service can compose others atomically.
 */
export async function withTx<T>(ctx: DbContext, fn: (ctx: DbContext) => Promise<T>): Promise<T> {
  if (ctx.tx) return fn(ctx);
  const sequelize = db();
  if (sequelize.getDialect() !== 'sqlite') return sequelize.transaction(async (tx) => fn({ ...ctx, tx }));
  // why: SQLite has one writer, and every waiting BEGIN IMMEDIATE sleeps on one of libuv's four pool
  // threads; enough waiters starve the transaction holding the lock of a thread to finish on, until
  // the busy timeout fails them all. A process runs its SQLite transactions one at a time instead.
  const turn = sqliteTurn.then(() => sequelize.transaction(async (tx) => fn({ ...ctx, tx })));
  sqliteTurn = turn.then(() => undefined, () => undefined);
  return turn;
}

let sqliteTurn: Promise<void> = Promise.resolve();

/** A script waiting for its turn, and who waits for its row. */
interface WaitingScript { script: string; resolve: (row: unknown) => void; reject: (err: unknown) => void }

/** By group: the scripts that will run together in the next turn. */
const waitingScripts = new Map<string, WaitingScript[]>();

/**
 * SQLite: run `statements` (`:name` replaced by the escaped value of `replacements`) in one
 * transaction handed to the driver in one call, together with the other scripts of `group` that
 * wait for the same turn, and answer this script's row of `rowsOf(n)` (run on the same connection
 * after the commit, it gives the rows of the last n scripts in order). `tables` are the tables the
 * scripts write; their listeners hear of it after the commit. The scripts of one group share the
 * `rowsOf` and `tables` of the first. When the scripts fail together, each
 * runs alone, so a failing one rolls back only itself, and its error is rethrown to its caller.
 * why: every call to the driver is a hop to a pool thread and back (0.3–0.4 ms on a small VM)
 * while SQLite's single writer stays taken. A new issue took five; now writers that arrive
 * together share two (group commit).
 */
export function sqliteScript<T>(group: string, statements: string[], replacements: Record<string, unknown>, rowsOf: (n: number) => string, tables: string[]): Promise<T> {
  const sequelize = db();
  const script = statements.map((s) => s.replace(/:(\w+)/g, (_, name: string) => {
    if (!(name in replacements)) throw new Error(`sqliteScript: no value for :${name}`);
    return sequelize.escape(replacements[name] as string);
  })).join(';\n');
  // why: the driver hands the script to SQLite as a C string, which would end at a NUL.
  if (script.includes('\0')) throw new Error('sqliteScript: a value holds a NUL');
  return new Promise<T>((resolve, reject) => {
    const item = { script, resolve: resolve as (row: unknown) => void, reject };
    const waiting = waitingScripts.get(group);
    if (waiting) {
      waiting.push(item);
      return;
    }
    const batch = [item];
    waitingScripts.set(group, batch);
    const turn = sqliteTurn.then(() => {
      waitingScripts.delete(group);
      return runScripts(batch, rowsOf, tables);
    });
    sqliteTurn = turn.then(() => undefined, () => undefined);
  });
}

async function runScripts(batch: WaitingScript[], rowsOf: (n: number) => string, tables: string[]): Promise<void> {
  const cm = db().connectionManager as unknown as SqliteConnectionManager;
  const conn = await cm.getConnection({ uuid: TX_CONNECTION });
  const call = (method: 'exec' | 'all', sql: string) => new Promise<unknown[]>((resolve, reject) => {
    conn[method](sql, (err: Error | null, rows?: unknown[]) => (err ? reject(err) : resolve(rows ?? [])));
  });
  noteQuery();
  try {
    await call('exec', `BEGIN IMMEDIATE;\n${batch.map((b) => b.script).join(';\n')};\nCOMMIT`);
  } catch (err) {
    await call('exec', 'ROLLBACK').catch(() => undefined);
    if (batch.length === 1) batch[0].reject(err);
    else for (const one of batch) await runScripts([one], rowsOf, tables);
    return;
  }
  await Promise.all(tables.map(tableWritten));
  try {
    const rows = await call('all', rowsOf(batch.length));
    batch.forEach((b, k) => b.resolve(rows[k]));
  } catch (err) {
    batch.forEach((b) => b.reject(err));
  }
}

/** True when the error is a unique-constraint violation on either dialect. */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { name?: string; parent?: { code?: string } };
  return e?.name === 'SequelizeUniqueConstraintError' || e?.parent?.code === '23505';
}

type WriteListener = () => void | Promise<void>;
const writeListeners = new Map<string, WriteListener[]>();
const WRITE_SQL = /^\s*(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+[`"]?(\w+)[`"]?/i;

/**
 * Call `fn` after every committed write (INSERT/UPDATE/DELETE, from a model or raw SQL) to `table`.
 * The write (or its transaction's commit) resolves only once `fn` has. why: caches over a table stay
 * correct without every writer remembering to invalidate them, and one who wrote and then reads
 * through another worker is not served what the write made stale.
 */
export function onTableWrite(table: string, fn: WriteListener): void {
  const list = writeListeners.get(table) ?? [];
  list.push(fn);
  writeListeners.set(table, list);
}

/**
 * Tell this process's listeners that `table` was written by someone else (an administrator's SQL,
 * a test fixture), as a committed write through the models would.
 */
export async function tableWritten(table: string): Promise<void> {
  await Promise.all((writeListeners.get(table) ?? []).map((fn) => fn()));
}

/** The tables a transaction wrote, told to their listeners once when it commits. */
const writtenBy = new WeakMap<Transaction, Set<string>>();

function installWriteHook(sequelize: Sequelize): void {
  sequelize.addHook('beforeQuery', () => { noteQuery(); });
  sequelize.addHook('afterQuery', (options, query) => {
    const sql = (query as unknown as { sql?: string }).sql;
    const m = sql ? WRITE_SQL.exec(sql) : null;
    if (!m || !writeListeners.has(m[1])) return undefined;
    const tx = options.transaction as Transaction | undefined;
    if (!tx) return tableWritten(m[1]);
    let tables = writtenBy.get(tx);
    if (!tables) {
      const written = new Set<string>();
      writtenBy.set(tx, tables = written);
      tx.afterCommit(async () => { await Promise.all([...written].map(tableWritten)); });
    }
    tables.add(m[1]);
    return undefined;
  });
}

/** Ask the database for a trivial answer within `ms`; resolves when it answered, rejects otherwise. */
export async function pingDatabase(ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms); });
  try {
    await Promise.race([db().query('SELECT 1'), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
