/**
 * Dumping one repository (`forge dump-repo`): its code and wiki as git bundles, its issues and the
 * rest as migration documents (one JSON file per kind, each document checked against its schema
 * as it is written, so a dump always passes its own restore's checks), and its release assets'
 * bytes; packed into one .tar.gz laid out as dump-archive.ts says. The code is bundled first: a
 * pull request's head read afterwards may be newer than the bundle, and a restore then leaves that
 * head out rather than point at a missing commit.
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { DbContext } from '../../db';
import { NotFound } from '../../errors';
import { repoPath } from '../../git/paths';
import { dirExists } from '../../git/init';
import { createBundle } from '../../git/bundle';
import { findUserByName } from '../../models/user.model';
import { findRepoByOwnerAndName } from '../../models/repository.model';
import { attachmentPath } from '../storage/attachment-store';
import { checkDocuments, type DocumentKind } from './documents';
import { RepoExporter } from './export';
import { assetEntry, DEFAULT_LIMITS, GIT_BUNDLE, packArchive, WIKI_BUNDLE, type DumpUnit, type PackEntry } from './dump-archive';

/** What a dump holds: documents by file name, whether code and wiki came, and what to tell about it. */
export interface DumpSummary { counts: Map<string, number>; git: boolean; wiki: boolean; warnings: string[] }

/** One list-of-documents file being written: a JSON array, one document a line. */
class ListFile {
  count = 0;
  private closed = false;
  private constructor(readonly name: string, readonly file: string, private readonly kind: DocumentKind, private readonly fh: fsp.FileHandle) {}

  static async open(dir: string, name: string, kind: DocumentKind): Promise<ListFile> {
    const file = path.join(dir, name);
    return new ListFile(name, file, kind, await fsp.open(file, 'wx', 0o600));
  }

  /** Check and append documents. */
  async add(docs: unknown[]): Promise<void> {
    if (docs.length === 0) return;
    checkDocuments(this.kind, docs, this.name, true);
    await this.fh.write(`${this.count ? ',\n' : '[\n'}${docs.map((d) => JSON.stringify(d)).join(',\n')}`);
    this.count += docs.length;
  }

  /** Finish the array and close the file (again: nothing). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.fh.write(this.count ? '\n]\n' : '[]\n');
    await this.fh.close();
  }
}

/**
 * Dump repository `ownerName/repoName` with `units` into the new .tar.gz `archive`, staging its
 * files under a fresh directory in `tempRoot` (removed afterwards). Throws NotFound for a
 * repository that does not exist.
 */
export async function dumpRepo(ctx: DbContext, ownerName: string, repoName: string, units: Set<DumpUnit>, archive: string, tempRoot: string): Promise<DumpSummary> {
  const owner = await findUserByName(ctx, ownerName);
  const repo = owner ? await findRepoByOwnerAndName(ctx, owner.id, repoName) : null;
  if (!owner || !repo) throw new NotFound(`repository ${ownerName}/${repoName} does not exist`);
  const gitDir = repoPath(owner.name, repo.name);
  const wikiDir = repoPath(owner.name, repo.name, true);
  const staging = await fsp.mkdtemp(path.join(tempRoot, 'forge-dump-repo-'));
  const summary: DumpSummary = { counts: new Map(), git: false, wiki: false, warnings: [] };
  const entries: PackEntry[] = [];
  const lists = new Map<string, ListFile>();
  try {
    const bundle = async (dir: string, name: string) => {
      const ok = await createBundle(dir, path.join(staging, name));
      if (ok) entries.push({ name, file: path.join(staging, name) });
      return ok;
    };
    summary.git = await bundle(gitDir, GIT_BUNDLE);
    summary.wiki = units.has('wiki') && (await dirExists(wikiDir)) && (await bundle(wikiDir, WIKI_BUNDLE));

    const exp = new RepoExporter(ctx, repo, gitDir);
    const repository = await exp.repository();
    checkDocuments('repository', repository, 'repository.json', false);
    await fsp.writeFile(path.join(staging, 'repository.json'), `${JSON.stringify(repository, null, 2)}\n`, { mode: 0o600 });
    entries.push({ name: 'repository.json', file: path.join(staging, 'repository.json') });

    const list = async (unit: DumpUnit, name: string, kind: DocumentKind) => {
      if (units.has(unit)) lists.set(name, await ListFile.open(staging, name, kind));
    };
    await list('labels', 'labels.json', 'label');
    await list('milestones', 'milestones.json', 'milestone');
    await list('issues', 'issues.json', 'issue');
    await list('pull_requests', 'pull_requests.json', 'pull_request');
    await list('comments', 'comments.json', 'comment');
    if (units.has('pull_requests')) await list('reviews', 'reviews.json', 'review');
    await list('releases', 'releases.json', 'release');
    const add = (name: string, docs: unknown[]) => lists.get(name)?.add(docs);

    await add('labels.json', await exp.labels());
    await add('milestones.json', await exp.milestones());
    if (units.has('issues')) {
      for await (const page of exp.issues(units.has('comments'))) {
        await add('issues.json', page.docs);
        await add('comments.json', page.comments);
      }
    }
    if (units.has('pull_requests')) {
      for await (const page of exp.pullRequests(units.has('comments'), units.has('reviews'))) {
        await add('pull_requests.json', page.docs);
        await add('comments.json', page.comments);
        await add('reviews.json', page.reviews);
      }
    }
    if (units.has('releases')) {
      const { docs, files } = await exp.releases(assetEntry);
      for (const f of files) {
        const stored = attachmentPath(f.uuid);
        if (await fsp.stat(stored).then((s) => s.isFile(), () => false)) {
          entries.push({ name: f.doc.download_url!, file: stored });
        } else {
          // why: a lost file should not cost the whole dump; its release keeps the asset's name, and a restore skips it.
          summary.warnings.push(`the file of release asset ${f.doc.id} (${f.doc.name}) is missing; it is left out`);
          delete f.doc.download_url;
        }
      }
      summary.counts.set('assets', files.length);
      await add('releases.json', docs);
    }

    for (const l of lists.values()) {
      await l.close();
      entries.push({ name: l.name, file: l.file });
      summary.counts.set(l.name, l.count);
      if ((await fsp.stat(l.file)).size > DEFAULT_LIMITS.maxDocumentBytes) {
        summary.warnings.push(`${l.name} is larger than the ${DEFAULT_LIMITS.maxDocumentBytes} bytes a restore reads from one document file`);
      }
    }
    // why: the documents first, so a reader listing the archive meets the repository before its code and assets.
    entries.sort((a, b) => Number(!a.name.endsWith('.json')) - Number(!b.name.endsWith('.json')));
    await packArchive(archive, entries);
    return summary;
  } finally {
    for (const l of lists.values()) await l.close().catch(() => undefined);
    await fsp.rm(staging, { recursive: true, force: true });
  }
}
