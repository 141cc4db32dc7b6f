/**
 * Boot steps shared by the CLI commands: load settings, make the data dir and secrets, open the
 * database and apply migrations.
 */
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { loadSettings, useSettings, configPathFromArgs, type Settings } from './config';
import { openDatabase } from './db';
import { migrate } from './db/migrate';

/** Read settings from --config/FORGE_CONFIG and the environment, and install them for this process. */
export function bootSettings(argv: string[] = process.argv): Settings {
  const s = loadSettings(configPathFromArgs(argv));
  fs.mkdirSync(s.server.appDataPath, { recursive: true });
  // why: every node of a cluster shares APP_DATA_PATH, so secrets generated once there are the same everywhere.
  const secretsFile = path.join(s.server.appDataPath, 'secrets.json');
  let secrets: Record<string, string> = {};
  if (fs.existsSync(secretsFile)) secrets = JSON.parse(fs.readFileSync(secretsFile, 'utf8')) as Record<string, string>;
  let changed = false;
  for (const k of ['secretKey', 'internalToken'] as const) {
    if (!s.security[k]) {
      if (!secrets[k]) {
        secrets[k] = crypto.randomBytes(32).toString('hex');
        changed = true;
      }
      s.security[k] = secrets[k];
    }
  }
  if (changed) {
    const tmp = `${secretsFile}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify(secrets), { mode: 0o600 });
    try {
      fs.linkSync(tmp, secretsFile);
    } catch {
      // another process wrote it first: use theirs
      const theirs = JSON.parse(fs.readFileSync(secretsFile, 'utf8')) as Record<string, string>;
      for (const k of ['secretKey', 'internalToken'] as const) if (theirs[k]) s.security[k] = theirs[k];
    }
    fs.rmSync(tmp, { force: true });
  }
  useSettings(s);
  return s;
}

/** Open the database and apply pending migrations under the migration lock. */
export async function bootDatabase(s: Settings): Promise<string[]> {
  const sequelize = openDatabase(s);
  return migrate(sequelize, s);
}
