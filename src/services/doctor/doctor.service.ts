/**
 * `forge doctor check`: what can drift between the database and the storage after crashes, manual
 * changes or restores, found by walking both; with `fix`, repaired where a repair is safe (hooks
 * rewritten, quarantine leftovers removed, ref tables synced from git, missing storage dirs made).
 * Rows without a repository directory, directories without a row and missing LFS objects are
 * reported only: deleting either side could lose data.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { settings } from '../../config';
import { systemCtx } from '../../db';
import { repoPath } from '../../git/paths';
import { dirExists } from '../../git/init';
import { alteredHooks, installHooks } from '../../git/hooks';
import { findStaleQuarantines } from '../../git/quarantine';
import { listRepoLocationsAfter, repoRowExists, type RepoLocation } from '../../models/repository.model';
import { listLfsLinksAfter } from '../../models/lfs-meta-object.model';
import { storedSize } from '../lfs/content-store';
import { refDrift, syncRepoRefs } from '../git-push/sync.service';

/** How a check reports: an info line, or a problem (fixed or not). */
export interface DoctorLog { info(msg: string): void; problem(msg: string, fixed: boolean): void }

/** One check: Gitea's name and title, and whether it runs without `--run`. */
export interface DoctorCheck { name: string; title: string; isDefault: boolean; run(fix: boolean, log: DoctorLog): Promise<void> }

// why: a push runs for hours at most; a quarantine nobody wrote to for an hour belongs to a dead receive-pack.
const QUARANTINE_AGE_MS = 3600_000;

/** Every repository row with its location, in id order. */
async function* repositories(): AsyncGenerator<RepoLocation> {
  for (let after = 0; ;) {
    const page = await listRepoLocationsAfter(systemCtx, after, 200);
    if (page.length === 0) return;
    yield* page;
    after = page[page.length - 1].id;
  }
}

const paths: DoctorCheck = {
  name: 'paths', title: 'Check paths and basic configuration', isDefault: true,
  async run(fix, log) {
    const s = settings();
    const dirs: [string, string][] = [['APP_DATA_PATH', s.server.appDataPath], ['[repository] ROOT', s.repository.root], ['[lfs] PATH', s.lfs.path],
      ['[attachment] PATH', s.attachment.path], ['[repo-archive] PATH', s.repoArchive.path]];
    for (const [key, dir] of dirs) {
      const stat = await fs.stat(dir).catch(() => null);
      if (stat && !stat.isDirectory()) log.problem(`${key} ${dir} is not a directory`, false);
      else if (!stat) {
        // why: the storage dirs are made on first use; only the data dir must be there from the start.
        if (key !== 'APP_DATA_PATH') continue;
        if (fix) await fs.mkdir(dir, { recursive: true });
        log.problem(`${key} ${dir} does not exist`, fix);
      } else {
        const probe = path.join(dir, `.doctor-${process.pid}`);
        const writable = await fs.writeFile(probe, '').then(() => fs.rm(probe)).then(() => true, () => false);
        if (!writable) log.problem(`${key} ${dir} is not writable by this user (run as the owner of ${dir})`, false);
      }
    }
    log.info(`data in ${s.server.appDataPath}, database ${s.database.dbType === 'postgres' ? `postgres ${s.database.host}/${s.database.name}` : s.database.path}`);
  },
};

const repoDirs: DoctorCheck = {
  name: 'storage-repositories', title: 'Check that every repository has its directory, and every directory its repository', isDefault: true,
  async run(_fix, log) {
    let rows = 0;
    for await (const r of repositories()) {
      rows++;
      if (!(await dirExists(repoPath(r.ownerName, r.name)))) log.problem(`repository ${r.ownerName}/${r.name} (id ${r.id}) has no directory ${repoPath(r.ownerName, r.name)}`, false);
    }
    const root = settings().repository.root;
    for (const owner of await fs.readdir(root).catch(() => [] as string[])) {
      for (const entry of await fs.readdir(path.join(root, owner)).catch(() => [] as string[])) {
        const m = /^(.+?)(\.wiki)?\.git$/.exec(entry);
        if (m && (await repoRowExists(systemCtx, owner, m[1]))) continue;
        // why: a repository directory of its own (not a wiki) is what /admin/unadopted lists when its owner exists.
        const hint = m && !m[2] ? ' (adopt or delete it at /admin/repos/unadopted)' : '';
        log.problem(`directory ${path.join(root, owner, entry)} belongs to no repository${hint}`, false);
      }
    }
    log.info(`${rows} repositories`);
  },
};

const hooks: DoctorCheck = {
  name: 'hooks', title: 'Check that the server\'s git hooks are in place and unaltered', isDefault: true,
  async run(fix, log) {
    for await (const r of repositories()) {
      const dir = repoPath(r.ownerName, r.name);
      if (!(await dirExists(dir))) continue;
      const bad = await alteredHooks(dir);
      if (bad.length === 0) continue;
      if (fix) await installHooks(dir);
      log.problem(`${r.ownerName}/${r.name}: hooks missing or altered: ${bad.join(', ')}`, fix);
    }
  },
};

const quarantine: DoctorCheck = {
  name: 'quarantine', title: 'Check for quarantine directories left by interrupted pushes', isDefault: true,
  async run(fix, log) {
    for (const dir of await findStaleQuarantines(settings().repository.root, QUARANTINE_AGE_MS)) {
      if (fix) await fs.rm(dir, { recursive: true, force: true });
      log.problem(`left by an interrupted push: ${dir}`, fix);
    }
  },
};

const lfs: DoctorCheck = {
  name: 'storage-lfs', title: 'Check that every LFS object a repository links to is stored', isDefault: true,
  async run(_fix, log) {
    let links = 0;
    for (let after = 0; ;) {
      const page = await listLfsLinksAfter(systemCtx, after, 500);
      if (page.length === 0) break;
      for (const l of page) {
        links++;
        const size = await storedSize(l.oid);
        if (size === null) log.problem(`LFS object ${l.oid} (repository id ${l.repositoryId}) is missing from ${settings().lfs.path}`, false);
        else if (size !== l.size) log.problem(`LFS object ${l.oid} has ${size} bytes, ${l.size} expected`, false);
      }
      after = page[page.length - 1].id;
    }
    log.info(`${links} LFS links`);
  },
};

const heads: DoctorCheck = {
  name: 'synchronize-repo-heads', title: 'Check that the branch and tag tables match git\'s refs', isDefault: true,
  async run(fix, log) {
    for await (const r of repositories()) {
      const drift = await refDrift(r.id);
      if (drift.length === 0) continue;
      if (fix) await syncRepoRefs(r.id);
      log.problem(`${r.ownerName}/${r.name}: ${drift.length} ref${drift.length === 1 ? '' : 's'} out of step with git (${drift.slice(0, 3).map((c) => c.refName).join(', ')}${drift.length > 3 ? ', ...' : ''})`, fix);
    }
  },
};

/** Every check, in the order they run. */
export const DOCTOR_CHECKS: DoctorCheck[] = [paths, repoDirs, hooks, quarantine, lfs, heads];
