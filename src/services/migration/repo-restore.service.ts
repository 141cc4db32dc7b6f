/**
 * Restoring one repository from a `forge dump-repo` archive (`forge restore-repo`) into a new
 * repository: the archive is unpacked into a fresh directory within its caps (dump-archive.ts),
 * then every document file is parsed and checked against its schema, and the rest of what the
 * import relies on is checked too (numbers, asset files, bundles, branch and topic names), all
 * before anything is written. Then the repository is made as a migration makes one (new-repo.ts):
 * code and wiki fetched from their bundles, documents written through the Importer, and on any
 * failure nothing left. Rows are written as the first site administrator, as Gitea's restore does;
 * a person whose email is a local user's gets their rows back.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { DbContext } from '../../db';
import { Conflict, Validation } from '../../errors';
import { settings } from '../../config';
import { initBare, validBranchName } from '../../git/init';
import { fetchBundle, looksLikeBundle } from '../../git/bundle';
import { findUserByName, type UserModel } from '../../models/user.model';
import { findRepoByOwnerAndName, type RepositoryModel } from '../../models/repository.model';
import { firstSiteAdmin } from '../../models/repo-dump';
import { adjustTopicRepoCount, findOrCreateTopic } from '../../models/topic.model';
import { insertRepoTopic } from '../../models/repo-topic.model';
import { recordInitialRefs } from '../git-push/sync.service';
import { isValidTopic, MAX_TOPICS } from '../repo/topic.service';
import { checkDocuments, InvalidDocument } from './documents';
import { Importer } from './importer';
import { assertNewRepoName, makeRepoFrom } from './new-repo';
import { DOCUMENT_FILES, GIT_BUNDLE, isAssetEntry, unpackArchive, WIKI_BUNDLE, type ArchiveLimits, type DumpUnit } from './dump-archive';
import type { CommentDoc, IssueDoc, LabelDoc, MilestoneDoc, PullRequestDoc, ReleaseDoc, RepositoryDoc, ReviewDoc } from './document-types';

/** Documents imported per batch (each batch is one transaction of the Importer). */
const BATCH = 100;

/** What to restore, from where, to where. */
export interface RestoreRequest { archive: string; owner: string; name: string; units: Set<DumpUnit>; limits: ArchiveLimits; tempRoot: string }

/** The documents of a dump that a restore imports (the units not asked for are empty), and its bundles. */
export interface Dump {
  repository: RepositoryDoc; labels: LabelDoc[]; milestones: MilestoneDoc[]; issues: IssueDoc[]; pullRequests: PullRequestDoc[];
  comments: CommentDoc[]; reviews: ReviewDoc[]; releases: ReleaseDoc[]; topics: string[]; git: string | null; wiki: string | null;
}

/** What a restore made. */
export interface RestoreSummary { repo: RepositoryModel; owner: UserModel; dump: Dump }

/** Throw unless every issue and pull request number is a positive whole number used once. */
function checkNumbers(groups: [string, { number: number }[]][]): void {
  const seen = new Set<number>();
  for (const [file, docs] of groups) {
    docs.forEach((d, i) => {
      if (!Number.isSafeInteger(d.number) || d.number < 1) throw new InvalidDocument(file, `/${i}/number`, 'number: must be a positive whole number');
      if (seen.has(d.number)) throw new InvalidDocument(file, `/${i}/number`, `number: ${d.number} is used twice`);
      seen.add(d.number);
    });
  }
}

/** Throw unless each asset's download_url names an asset file of the archive, within the attachment size limit. */
async function checkAssets(dir: string, files: Set<string>, releases: ReleaseDoc[]): Promise<void> {
  const max = settings().attachment.maxSize * 1024 * 1024;
  for (const [i, r] of releases.entries()) {
    for (const [j, a] of (r.assets ?? []).entries()) {
      if (a.download_url === undefined) continue;
      const at = `/${i}/assets/${j}/download_url`;
      if (!isAssetEntry(a.download_url) || !files.has(a.download_url)) throw new InvalidDocument('releases.json', at, `download_url: ${JSON.stringify(a.download_url)} is not a file of the archive`);
      if (max > 0 && (await fsp.stat(path.join(dir, a.download_url))).size > max) throw new InvalidDocument('releases.json', at, `download_url: the file is larger than the ${max} bytes an attachment may have`);
    }
  }
}

/** The repository's topics, normalized as Gitea stores them; throws for one it would refuse. */
function topicsOf(doc: RepositoryDoc): string[] {
  const topics = (doc.topics ?? []).map((t, i) => {
    const name = t.trim().toLowerCase();
    if (!isValidTopic(name)) throw new InvalidDocument('repository.json', `/topics/${i}`, `topics: ${JSON.stringify(t)} is not a valid topic`);
    return name;
  });
  const unique = [...new Set(topics)];
  if (unique.length > MAX_TOPICS) throw new InvalidDocument('repository.json', '/topics', `topics: at most ${MAX_TOPICS}`);
  return unique;
}

/**
 * Read and check the unpacked dump in `dir` (`files` are its file names): every document file
 * against its schema, then what the import needs beyond the schemas. Throws InvalidDocument
 * (file, JSON pointer, rule) or Validation; writes nothing.
 */
export async function readDump(dir: string, files: Set<string>, units: Set<DumpUnit>): Promise<Dump> {
  if (!files.has('repository.json')) throw new Validation('the archive has no repository.json: it is not a repository dump');
  const docs = new Map<string, unknown>();
  for (const f of DOCUMENT_FILES) {
    if (!files.has(f.name)) continue;
    let value: unknown;
    try {
      value = JSON.parse(await fsp.readFile(path.join(dir, f.name), 'utf8'));
    } catch (err) {
      throw new InvalidDocument(f.name, '', `not JSON: ${(err as Error).message}`);
    }
    checkDocuments(f.kind, value, f.name, f.list);
    docs.set(f.name, value);
  }
  // why: a unit not asked for is read (and checked) but not imported, as if its file were absent.
  const wanted = <T>(name: string): T[] => {
    const unit = DOCUMENT_FILES.find((f) => f.name === name)?.unit;
    return unit && units.has(unit) ? (docs.get(name) as T[] | undefined) ?? [] : [];
  };
  const repository = docs.get('repository.json') as RepositoryDoc;
  if (!(await validBranchName(repository.default_branch))) throw new InvalidDocument('repository.json', '/default_branch', 'default_branch: not a valid branch name');
  const dump: Dump = {
    repository, labels: wanted('labels.json'), milestones: wanted('milestones.json'), issues: wanted('issues.json'), pullRequests: wanted('pull_requests.json'),
    comments: wanted('comments.json'), reviews: wanted('reviews.json'), releases: wanted('releases.json'), topics: topicsOf(repository),
    git: files.has(GIT_BUNDLE) ? path.join(dir, GIT_BUNDLE) : null, wiki: units.has('wiki') && files.has(WIKI_BUNDLE) ? path.join(dir, WIKI_BUNDLE) : null,
  };
  checkNumbers([['issues.json', dump.issues], ['pull_requests.json', dump.pullRequests]]);
  await checkAssets(dir, files, dump.releases);
  for (const [name, file] of [[GIT_BUNDLE, dump.git], [WIKI_BUNDLE, dump.wiki]]) {
    if (file && !(await looksLikeBundle(file))) throw new Validation(`${name} is not a git bundle`);
  }
  return dump;
}

/** Import `docs` in batches. */
async function inBatches<T>(docs: T[], write: (batch: T[]) => Promise<void>): Promise<void> {
  for (let i = 0; i < docs.length; i += BATCH) await write(docs.slice(i, i + BATCH));
}

/** Restore the dump `req.archive` as repository `req.owner/req.name`, which must not exist. */
export async function restoreRepo(ctx: DbContext, req: RestoreRequest): Promise<RestoreSummary> {
  assertNewRepoName(req.name);
  const owner = await findUserByName(ctx, req.owner);
  if (!owner) throw new Validation(`user does not exist [uid: 0, name: ${req.owner}]`);
  // why: a taken name is refused before the archive is read; the insert checks it again, atomically.
  if (await findRepoByOwnerAndName(ctx, owner.id, req.name)) throw new Conflict('The repository with the same name already exists.');
  const doer = await firstSiteAdmin(ctx);
  if (!doer) throw new Validation('there is no site administrator to restore as');
  const dir = await fsp.mkdtemp(path.join(req.tempRoot, 'forge-restore-repo-'));
  try {
    const dump = await readDump(dir, await unpackArchive(req.archive, dir, req.limits), req.units);
    const branch = dump.repository.default_branch;
    const repo = await makeRepoFrom(ctx, doer, owner, {
      name: req.name, description: dump.repository.description ?? '', defaultBranch: branch, isPrivate: !!dump.repository.is_private || settings().repository.forcePrivate,
      isTemplate: false, objectFormatName: 'sha1', originalUrl: dump.repository.original_url ?? '',
    }, async (made, { dir: gitDir, wikiDir }) => {
      const unbundle = (to: string, file: string, name: string) => fetchBundle(to, file).catch((err: unknown) => {
        throw new Validation(`${name} cannot be restored: ${(err as Error).message}`);
      });
      await initBare(gitDir, branch);
      if (dump.git) await unbundle(gitDir, dump.git, GIT_BUNDLE);
      if (dump.wiki) {
        await initBare(wikiDir, made.defaultWikiBranch || 'main');
        await unbundle(wikiDir, dump.wiki, WIKI_BUNDLE);
      }
      await recordInitialRefs(made.id, doer.id, branch, ctx);
      const imp = new Importer(ctx, made.id, doer, gitDir);
      await imp.importLabels(dump.labels);
      await imp.importMilestones(dump.milestones);
      await inBatches(dump.issues, (b) => imp.importIssues(b));
      await inBatches(dump.pullRequests, (b) => imp.importPullRequests(b));
      await inBatches(dump.comments, (b) => imp.importComments(b));
      await inBatches(dump.reviews, (b) => imp.importReviews(b));
      // why: download_url was checked to name a file of the unpacked archive.
      await inBatches(dump.releases, (b) => imp.importReleases(b, async (a) => (a.download_url ? fs.createReadStream(path.join(dir, a.download_url)) : null)));
      await imp.finish();
      return {
        ready: async (tx) => {
          for (const name of dump.topics) {
            const topic = await findOrCreateTopic(tx, name);
            await insertRepoTopic(tx, made.id, topic.id);
            await adjustTopicRepoCount(tx, topic.id, 1);
          }
        },
      };
    });
    return { repo, owner, dump };
  } finally {
    await fsp.rm(dir, { recursive: true, force: true });
  }
}
