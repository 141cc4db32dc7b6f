/**
 * Boot steps shared by the CLI commands: load settings, make the data dir and secrets, open the
 * database and apply migrations.
 */
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { loadSettings, useSettings, configPathFromArgs, StartupError, type Settings } from './config';
import { openDatabase } from './db';
import { migrate } from './db/migrate';
import { createJwtSecret, createSigningKeyFile, jwtSecretMissing, prepareSigningKey, signingKeyFileMissing, useStoredJwtSecret } from './services/oauth2/key-file';

/** Read settings from --config/FORGE_CONFIG and the environment, and install them for this process. */
export function bootSettings(argv: string[] = process.argv): Settings {
  const s = loadSettings(configPathFromArgs(argv));
  // why: workers load the same settings as their primary, which has already printed these.
  if (!process.env.FORGE_WORKER) for (const w of s.warnings) process.stderr.write(`warning: ${w}\n`);
  assertWritableDir(s.server.appDataPath);
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
  useStoredJwtSecret(s);
  useSettings(s);
  return s;
}

/**
 * Make sure the data dir exists and can be written, or stop with one line naming the path and the
 * remedy (a Node stack trace tells an administrator neither).
 */
function assertWritableDir(dir: string): void {
  const fix = 'or set [server] APP_DATA_PATH (FORGE__SERVER__APP_DATA_PATH) to a directory it can write';
  try {
    fs.mkdirSync(dir, { recursive: true });
    const probe = path.join(dir, `.write-probe-${process.pid}`);
    fs.writeFileSync(probe, '');
    fs.rmSync(probe);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOTDIR' || code === 'EEXIST') {
      let file = dir;
      while (path.dirname(file) !== file && !(fs.existsSync(file) && !fs.statSync(file).isDirectory())) file = path.dirname(file);
      throw new StartupError(`APP_DATA_PATH ${dir} cannot be a directory: ${file} is a file; ${fix.replace(/^or /, '')}`);
    }
    if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') {
      const owner = ownerOf(dir);
      throw new StartupError(`APP_DATA_PATH ${dir} is not writable by this process (${code}, running as uid ${process.getuid?.()}): `
        + `run the forge as the owner of ${dir}${owner === null ? '' : ` (uid ${owner})`}, ${fix}`);
    }
    throw new StartupError(`APP_DATA_PATH ${dir} cannot be used: ${(err as Error).message}; ${fix.replace(/^or /, '')}`);
  }
}

/** The uid owning the nearest existing ancestor of `p`, or null. */
function ownerOf(p: string): number | null {
  for (let d = p; ; d = path.dirname(d)) {
    try {
      return fs.statSync(d).uid;
    } catch {
      if (path.dirname(d) === d) return null;
    }
  }
}

/**
 * Open the database and apply pending migrations under the migration lock; under the same lock,
 * make the OAuth2 signing key (or JWT_SECRET) that every node must share, if it is not there yet.
 */
export async function bootDatabase(s: Settings): Promise<string[]> {
  const sequelize = openDatabase(s);
  const key = prepareSigningKey(s);
  return migrate(sequelize, s, [
    { needed: () => signingKeyFileMissing(s), run: () => createSigningKeyFile(s, key) },
    { needed: () => jwtSecretMissing(s), run: () => createJwtSecret(s) },
  ]);
}
