/**
 * `forge dump-repo` and `forge restore-repo`: one repository with its issues, pull requests,
 * reviews, releases and wiki, as one .tar.gz of migration documents (schemas/) and git bundles,
 * and back into a new repository. Each prints what it did; a refusal is one line naming what was
 * refused (the archive entry, or the document file, JSON pointer and rule), and leaves nothing.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { systemCtx } from '../db';
import { HttpError } from '../errors';
import { dumpRepo } from '../services/migration/repo-dump.service';
import { restoreRepo } from '../services/migration/repo-restore.service';
import { DEFAULT_LIMITS, parseUnits } from '../services/migration/dump-archive';
import { CliError, notifyTableWritten, parseArgs, type Flags } from './util';
import { parseByteSize } from '../config';

/** Tables a restore writes that a running server keeps in its caches. */
const CACHED_TABLES = ['repository', 'repo_unit', 'issue', 'label', 'milestone', 'pull_request', 'repo_issue_counter', 'branch'];

/** `--max-size` and the like: a size as app.ini's sizes are read (`500M` is 10^6 bytes times 500, `10GiB` 2^30 times 10). */
function parseSize(flag: string, text: string): number {
  const n = parseByteSize(text);
  if (n === null || n < 0) throw new CliError(`--${flag} ${text}: give bytes, or a size such as 500M or 10GiB`);
  return n;
}

function positive(flag: string, text: string | undefined, fallback: number, parse: (f: string, t: string) => number = (f, t) => Number(t)): number {
  if (text === undefined) return fallback;
  const n = parse(flag, text);
  if (!Number.isSafeInteger(n) || n < 1) throw new CliError(`--${flag} must be a positive whole number`);
  return n;
}

function required(f: Flags, names: string[]): void {
  for (const k of names) if (!f[k] || f[k] === 'true') throw new CliError(`missing --${k}`, true);
}

/** "2 labels, 1 milestone, ..." from counts by document file. */
function describe(counts: Map<string, number>): string {
  const words: [string, string][] = [
    ['labels.json', 'label'], ['milestones.json', 'milestone'], ['issues.json', 'issue'], ['pull_requests.json', 'pull request'],
    ['comments.json', 'comment'], ['reviews.json', 'review'], ['releases.json', 'release'], ['assets', 'release asset'],
  ];
  return words.filter(([k]) => counts.has(k)).map(([k, w]) => `${counts.get(k)} ${w}${counts.get(k) === 1 ? '' : 's'}`).join(', ') || 'no documents';
}

/** A service's refusal as the command's. */
async function refusalsAsCli<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof HttpError) throw new CliError(err.message);
    throw err;
  }
}

/** Run `forge dump-repo <args>`; the database is open. */
export async function runDumpRepo(args: string[]): Promise<void> {
  const { flags } = parseArgs(args, new Set());
  required(flags, ['owner', 'repo']);
  const file = path.resolve(flags.file ?? `forge-dump-repo-${Math.floor(Date.now() / 1000)}.tar.gz`);
  if (fs.existsSync(file)) throw new CliError(`Dump file "${file}" exists`);
  const s = await refusalsAsCli(() => dumpRepo(systemCtx, flags.owner, flags.repo, parseUnits(flags.units), file, flags.tempdir ?? os.tmpdir()));
  for (const w of s.warnings) process.stderr.write(`warning: ${w}\n`);
  const code = [s.git ? 'code (git.bundle)' : 'no code (the repository is empty)', ...(s.wiki ? ['wiki (wiki.bundle)'] : [])].join(', ');
  process.stdout.write(`Dumped ${flags.owner}/${flags.repo} into ${file}: ${code}; ${describe(s.counts)}\n`);
}

/** Run `forge restore-repo <args>`; the database is open. */
export async function runRestoreRepo(args: string[]): Promise<void> {
  const { flags } = parseArgs(args, new Set());
  required(flags, ['file', 'owner', 'repo']);
  const archive = path.resolve(flags.file);
  if (!fs.statSync(archive, { throwIfNoEntry: false })?.isFile()) throw new CliError(`Dump file "${archive}" does not exist`);
  const limits = {
    maxBytes: positive('max-size', flags['max-size'], DEFAULT_LIMITS.maxBytes, parseSize),
    maxEntries: positive('max-entries', flags['max-entries'], DEFAULT_LIMITS.maxEntries),
    maxDocumentBytes: DEFAULT_LIMITS.maxDocumentBytes,
  };
  try {
    const { repo, owner, dump } = await refusalsAsCli(() => restoreRepo(systemCtx, {
      archive, owner: flags.owner, name: flags.repo, units: parseUnits(flags.units), limits, tempRoot: flags.tempdir ?? os.tmpdir(),
    }));
    const counts = new Map<string, number>([
      ['labels.json', dump.labels.length], ['milestones.json', dump.milestones.length], ['issues.json', dump.issues.length],
      ['pull_requests.json', dump.pullRequests.length], ['comments.json', dump.comments.length], ['reviews.json', dump.reviews.length],
      ['releases.json', dump.releases.length], ['assets', dump.releases.reduce((n, r) => n + (r.assets ?? []).filter((a) => a.download_url).length, 0)],
    ]);
    const code = [dump.git ? 'code from git.bundle' : 'no code (the dump has none)', ...(dump.wiki ? ['wiki from wiki.bundle'] : [])].join(', ');
    process.stdout.write(`Restored ${owner.name}/${repo.name} from ${archive}: ${code}; ${describe(counts)}\n`);
  } finally {
    // why: a running server may have cached the name as free, or the half-made row of a restore that failed.
    for (const t of CACHED_TABLES) await notifyTableWritten(t);
  }
}
