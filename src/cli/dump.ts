/**
 * `forge dump [--file PATH] [--tempdir DIR] [--skip-repository] [--skip-lfs-data]
 * [--skip-attachment-data]`: one `.tar.gz` holding what a restore needs:
 *
 *   forge-db.sql   the database as SQL (SQLite: loadable with sqlite3; PostgreSQL: pg_dump's, for psql)
 *   app.ini        the configuration file, when one is used
 *   data/          APP_DATA_PATH: secrets.json, SSH host keys, avatars, and (at their default
 *                  places) repositories/, lfs/ and attachments/; not the archive cache or the SQLite file
 *   repos/, lfs/, attachments/   those stores when they are configured outside APP_DATA_PATH
 *
 * docs/operations.md (backups) tells how to restore it. git, LFS and attachment files are copied as they
 * are; stop the forge for a copy that no push can change while it is taken.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { settings } from '../config';
import { dumpDatabase } from '../db/dump';
import { fullTextRebuildSql } from '../models/issue-search';
import { CliError, parseArgs } from './util';

/** Is `p` inside `dir` (or `dir` itself)? */
function inside(p: string, dir: string): boolean {
  const rel = path.relative(dir, p);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** Run `forge dump <args>`; the database is open. */
export async function runDump(args: string[]): Promise<void> {
  const { flags } = parseArgs(args, new Set(['skip-repository', 'skip-lfs-data', 'skip-attachment-data']));
  const s = settings();
  const type = flags.type ?? 'tar.gz';
  if (type !== 'tar.gz') throw new CliError(`--type ${type} is not supported: forge dump writes tar.gz`);
  const file = path.resolve(flags.file ?? `forge-dump-${Math.floor(Date.now() / 1000)}.tar.gz`);
  if (fs.existsSync(file)) throw new CliError(`Dump file "${file}" exists`);
  const staging = fs.mkdtempSync(path.join(flags.tempdir ?? os.tmpdir(), 'forge-dump-'));
  try {
    await dumpDatabase(s, path.join(staging, 'forge-db.sql'), fullTextRebuildSql());
    const top = ['forge-db.sql'];
    if (s.configPath) {
      fs.copyFileSync(s.configPath, path.join(staging, 'app.ini'));
      top.push('app.ini');
    }
    const data = s.server.appDataPath;
    const stores: [string, string, boolean][] = [
      ['repos', s.repository.root, flags['skip-repository'] === 'true'],
      ['lfs', s.lfs.path, flags['skip-lfs-data'] === 'true'],
      ['attachments', s.attachment.path, flags['skip-attachment-data'] === 'true'],
    ];
    // why: tar names members relative to APP_DATA_PATH; excluded paths are given the same way.
    const rel = (p: string) => `./${path.relative(data, p)}`;
    const exclude = [s.repoArchive.path, file, staging];
    if (s.database.dbType === 'sqlite3') exclude.push(s.database.path, `${s.database.path}-wal`, `${s.database.path}-shm`, `${s.database.path}.lock`);
    for (const [, dir, skip] of stores) if (skip) exclude.push(dir);
    const tarArgs = ['--create', '--gzip', '--file', file, '--ignore-failed-read', '--warning=no-file-changed'];
    for (const p of exclude) if (inside(p, data)) tarArgs.push(`--exclude=${rel(p)}`);
    // why: each part gets its place in the archive: data/ for APP_DATA_PATH, a fixed name for a store kept elsewhere.
    tarArgs.push('--transform', 's,^\\./,data/,');
    const outside: string[] = [];
    for (const [name, dir, skip] of stores) {
      if (skip || inside(dir, data) || !fs.existsSync(dir)) continue;
      tarArgs.push('--transform', `s,^${path.basename(dir).replace(/[^\w-]/g, '\\$&')}\\(/\\|$\\),${name}\\1,`);
      outside.push('-C', path.dirname(dir), path.basename(dir));
    }
    tarArgs.push('-C', staging, ...top, '-C', data, '.', ...outside);
    const tar = spawn('tar', tarArgs, { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    tar.stderr.on('data', (d: Buffer) => { err += d.toString(); });
    const [code] = (await once(tar, 'close')) as [number];
    // why: tar exits 1 when a file changed while it was read (a push during the dump); the archive is still whole.
    if (code !== 0 && code !== 1) throw new CliError(`tar failed: ${err.trim() || `exit ${code}`}`);
    fs.chmodSync(file, 0o600);
    process.stderr.write(`Finish dumping in file ${file}\n`);
  } catch (err) {
    fs.rmSync(file, { force: true });
    throw err;
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}
