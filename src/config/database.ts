/** [database] and [redis] (Gitea's database.go): where the forge keeps its rows and shares its state. */
import path from 'node:path';
import { section } from './spec';

/** [database]: SQLite (PATH, default APP_DATA_PATH/forge.db) or PostgreSQL. */
export interface DatabaseSettings {
  dbType: 'sqlite3' | 'postgres'; path: string; host: string; name: string; user: string; passwd: string;
  sslMode: string; maxOpenConns: number; logSql: boolean;
}

/** [redis]: the connection a cluster shares locks, counters and cache invalidation over. */
export interface RedisSettings { connStr: string }

/** [database]. */
export const databaseSection = section<DatabaseSettings>('database', {
  DB_TYPE: { kind: 'string', def: 'sqlite3', oneOf: ['sqlite3', 'postgres'] },
  PATH: { kind: 'string', def: '' },
  HOST: { kind: 'string', def: '127.0.0.1:5432' },
  NAME: { kind: 'string', def: 'forge' },
  USER: { kind: 'string', def: 'forge' },
  PASSWD: { kind: 'string', def: '' },
  SSL_MODE: { kind: 'string', def: 'disable', oneOf: ['disable', 'require', 'verify-full'] },
  MAX_OPEN_CONNS: { kind: 'int', def: '10', min: 1, max: 1000 },
  LOG_SQL: { kind: 'bool', def: 'false' },
});

/** [redis]. */
export const redisSection = section<RedisSettings>('redis', { CONN_STR: { kind: 'string', def: '' } });

/** The SQLite file defaults to APP_DATA_PATH/forge.db. */
export function resolveDatabase(appDataPath: string, database: DatabaseSettings): void {
  if (!database.path) database.path = path.join(appDataPath, 'forge.db');
}
