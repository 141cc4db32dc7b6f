/** Producing repository archives with git: zip and tar.gz through `git archive`, bundles through `git bundle`. */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { runGit, spawnGit, type GitChild } from './run';

/** The archive formats served. */
export type ArchiveFormat = 'zip' | 'tar.gz' | 'bundle';

// why: zip deflates each file with its own zlib stream, whose ~256 KB of state glibc's malloc gives
// back to the kernel when the stream ends (freed memory at the heap top over the 128 KB trim
// threshold) and faults in again, zeroed, for the next file: 10,000 page faults for 400 files, a
// third of git's time. Keeping up to 4 MB of freed heap makes the same archive (byte for byte) with
// 700. Other C libraries ignore the variable.
export const ARCHIVE_ENV = { GLIBC_TUNABLES: 'glibc.malloc.trim_threshold=4194304' };

/** A running archive build writing `out`; `cleanup` removes scratch files afterwards. */
export interface ArchiveProcess { child: GitChild; cleanup: () => Promise<void> }

/**
 * Start writing the archive of `commit` (a full id) to the file `out`, at background priority.
 * zip and tar.gz put every file under `prefix/`; a bundle holds the history of the commit as branch
 * `main` of a scratch repository. git dies of SIGXFSZ once the file would pass `maxBytes` (0: no
 * bound), and is killed after [git.timeout] DEFAULT.
 * why: git writes the file itself; zip output comes in many small writes that would each cost a
 * trip through the server.
 */
export async function spawnArchive(gitDir: string, commit: string, format: ArchiveFormat, prefix: string, out: string, maxBytes: number): Promise<ArchiveProcess> {
  const opts = { background: true, stdoutFile: out, maxFileBytes: maxBytes || undefined };
  if (format !== 'bundle') {
    const child = spawnGit(['archive', `--format=${format}`, `--prefix=${prefix}/`, '--end-of-options', commit], { ...opts, gitDir, env: ARCHIVE_ENV });
    return { child, cleanup: async () => undefined };
  }
  // why: `git bundle` needs a ref to name the history; a scratch repository borrowing the objects
  // (alternates) gets one, so the served repository's refs are never touched.
  const scratch = await fs.mkdtemp(path.join(os.tmpdir(), 'forge-bundle-'));
  const cleanup = () => fs.rm(scratch, { recursive: true, force: true });
  try {
    await runGit(['init', '--bare', '--quiet', scratch]);
    await fs.writeFile(path.join(scratch, 'objects', 'info', 'alternates'), `${path.join(gitDir, 'objects')}\n`);
    await runGit(['update-ref', 'refs/heads/main', commit], { gitDir: scratch });
    const child = spawnGit(['bundle', 'create', '--quiet', '-', 'refs/heads/main'], { ...opts, gitDir: scratch });
    return { child, cleanup };
  } catch (err) {
    await cleanup();
    throw err;
  }
}
