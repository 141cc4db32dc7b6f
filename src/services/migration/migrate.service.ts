/**
 * Migrating a repository from another server (POST /repos/migrate), as Gitea's API does it: checks
 * in Gitea's order and words, then a row marked "being migrated" (status 1, what a reader sees while
 * it runs), the clone, its LFS objects and wiki when asked, the mirror when asked, and the row marked ready. A
 * migration that fails leaves nothing: no directory, no row, no count (Gitea leaves a broken row).
 */
import type { DbContext } from '../../db';
import { Forbidden, HttpError, Validation } from '../../errors';
import { settings, formatGoDuration } from '../../config';
import { cloneRemote, fetchRemote, remoteExists, wikiRemoteOf, type RemoteTarget } from '../../git/remote';
import { headBranch } from '../../git/refs';
import type { RepositoryModel } from '../../models/repository.model';
import { findUserById, findUserByName, UserType, type UserModel } from '../../models/user.model';
import { orgMembership } from '../../models/access';
import { insertMirror } from '../../models/mirror.model';
import { nowUnix } from '../../models/issue.model';
import type { MigrateRepoOptions } from '../../api/mirror';
import { recordInitialRefs } from '../git-push/sync.service';
import { assertRepoName, mirrorIntervalSeconds } from '../repo/rules';
import { checkRemoteAddress, RemoteAddressError } from '../net/remote-address';
import { failureText, sealCredentials } from '../mirror/credentials';
import { fetchLfsObjects } from '../mirror/lfs-fetch';
import { GiteaSource, readAhead } from './gitea-source';
import { Importer } from './importer';
import { makeRepoFrom } from './new-repo';

/** Gitea's service types, as stored in original_service_type. */
const SERVICE_TYPES: Record<string, number> = { git: 1, gitea: 3 };

/** The owner of the new repository: repo_owner, else uid, else the caller (422 when named but unknown). */
async function ownerOf(ctx: DbContext, doer: UserModel, o: MigrateRepoOptions): Promise<UserModel> {
  if (o.repo_owner) {
    const u = await findUserByName(ctx, o.repo_owner);
    if (!u) throw new Validation(`user does not exist [uid: 0, name: ${o.repo_owner}]`);
    return u;
  }
  if (o.uid) {
    const u = await findUserById(ctx, o.uid);
    if (!u) throw new Validation(`user does not exist [uid: ${o.uid}, name: ]`);
    return u;
  }
  return doer;
}

/** Gitea's words for a refused address: every refusal is a 422 that names no credential. */
function refusal(err: unknown, cloneAddr: string): never {
  if (!(err instanceof RemoteAddressError)) throw err;
  const shown = err.shown;
  switch (err.problem) {
    case 'protocol': throw new Validation(`migration/cloning from '${shown}' is not allowed: the provided url protocol is not allowed`);
    case 'local-denied': throw new Validation('You are not allowed to import local repositories.');
    case 'local-invalid': throw new Validation('Invalid local path, it does not exist or not a directory.');
    case 'blocked': throw new Validation('You can not import from disallowed hosts.');
    default: throw new Validation(`migration/cloning from '${shown || cloneAddr.replace(/\/\/[^/@]*@/, '//')}' is not allowed: the provided url is invalid`);
  }
}

/** Every check before anything is made, in Gitea's order; returns the owner, the source and the mirror interval. */
async function validate(ctx: DbContext, doer: UserModel, o: MigrateRepoOptions): Promise<{ owner: UserModel; source: RemoteTarget; intervalS: number }> {
  if (!o.clone_addr?.trim()) throw new Validation('[CloneAddr]: Required');
  if (!o.repo_name) throw new Validation('[RepoName]: Required');
  if (!/^[\w.-]+$/.test(o.repo_name)) throw new Validation('[RepoName]: AlphaDashDot');
  if (o.repo_name.length > 100) throw new Validation('[RepoName]: MaxSize');
  if ((o.description ?? '').length > 2048) throw new Validation('[Description]: MaxSize');
  assertRepoName(o.repo_name);
  const owner = await ownerOf(ctx, doer, o);
  if (!doer.isAdmin) {
    if (owner.type !== UserType.Organization && owner.id !== doer.id) throw new Forbidden('Given user is not an organization.');
    if (owner.type === UserType.Organization && (await orgMembership(ctx, owner.id, doer.id)) !== 'owner') throw new Forbidden('Given user is not owner of organization.');
  }
  const source = await checkRemoteAddress(o.clone_addr, {
    username: o.auth_username ?? '', password: o.auth_password || o.auth_token || '',
    canImportLocal: settings().security.importLocalPaths && doer.isAdmin,
  }).catch((err: unknown) => refusal(err, o.clone_addr));
  // why: as Gitea, an LFS endpoint given apart from the clone address is held to the same rules.
  if (o.lfs && o.lfs_endpoint) await checkRemoteAddress(o.lfs_endpoint, { canImportLocal: false }).catch((err: unknown) => refusal(err, o.lfs_endpoint!));
  if (o.mirror && settings().mirror.disableNewPull) throw new Forbidden('the site administrator has disabled the creation of new pull mirrors');
  if (settings().repository.disableMigrations) throw new Forbidden('the site administrator has disabled migrations');
  const service = (o.service ?? 'git').toLowerCase();
  if (!(service in SERVICE_TYPES)) throw new Validation(`migrations from ${service} are not supported; use service git (code only) or gitea`);
  if (o.mirror && source.local) throw new Validation('a pull mirror needs an http(s) source');
  // why: Gitea reads the interval after the clone and answers 500; here a bad one is refused before anything is made.
  const intervalS = o.mirror ? mirrorIntervalSeconds(o.mirror_interval) : 0;
  return { owner, source, intervalS };
}

/** A clone failure in Gitea's words (422), its text free of credentials. */
function cloneFailure(err: unknown, source: RemoteTarget): HttpError {
  const text = failureText(err, { username: source.username ?? '', password: source.password ?? '' });
  // why: the status is matched as git prints it; a bare 401 also matched a port such as 44019.
  if (/Authentication failed|could not read Username|Bad credentials|returned error: 401\b/i.test(text)) return new Validation(`Authentication failed: ${text}.`);
  return new Validation(`Migration failed: ${text}.`);
}

/**
 * Read the issues and the rest that `o` asks for from a Gitea-compatible source's API and write
 * them into the new repository (comments only with their issues or pull requests, as Gitea).
 */
async function importMetadata(ctx: DbContext, doer: UserModel, repoId: number, dir: string, source: RemoteTarget, o: MigrateRepoOptions): Promise<void> {
  const api = new GiteaSource(source.url, { username: source.username, password: o.auth_token ? undefined : source.password, token: o.auth_token });
  try {
    const imp = new Importer(ctx, repoId, doer, dir);
    await api.repository();
    if (o.labels) for await (const page of api.labels()) await imp.importLabels(page);
    if (o.milestones) for await (const page of api.milestones()) await imp.importMilestones(page);
    if (o.pull_requests) await fetchRemote(dir, source, ['+refs/pull/*/head:refs/pull/*/head'], false).catch(() => undefined);
    // why: a page's comments (and a pull request page's reviews) are read while the page before is written.
    const withComments = async function* <T extends { number: number }>(pages: AsyncIterable<T[]>, reviews: boolean) {
      for await (const page of pages) {
        const numbers = page.map((p) => p.number);
        yield { page, comments: await api.commentsOf(numbers), reviews: reviews ? await api.reviewsOf(numbers) : [] };
      }
    };
    if (o.issues) {
      for await (const { page, comments } of readAhead(withComments(api.issues(), false))) {
        await imp.importIssues(page);
        await imp.importComments(comments);
      }
    }
    if (o.pull_requests) {
      for await (const { page, comments, reviews } of readAhead(withComments(api.pullRequests(), true))) {
        await imp.importPullRequests(page);
        await imp.importComments(comments);
        await imp.importReviews(reviews);
      }
    }
    if (o.releases) for await (const page of api.releases()) await imp.importReleases(page, (a) => api.asset(a));
    await imp.finish();
  } finally {
    api.close();
  }
}

/** Migrate a repository for `doer` (POST /repos/migrate); returns the new repository, once it is ready, and its owner. */
export async function migrateRepo(ctx: DbContext, doer: UserModel, o: MigrateRepoOptions): Promise<{ repo: RepositoryModel; owner: UserModel }> {
  const { owner, source, intervalS } = await validate(ctx, doer, o);
  const service = (o.service ?? 'git').toLowerCase();
  const repo = await makeRepoFrom(ctx, doer, owner, {
    name: o.repo_name, description: o.description ?? '', defaultBranch: 'main',
    isPrivate: !!o.private || settings().repository.forcePrivate, isTemplate: false, objectFormatName: 'sha1',
    isMirror: !!o.mirror, mirrorInterval: o.mirror ? formatGoDuration(intervalS) : '',
    // why: the address as given minus any userinfo; credentials live sealed on the mirror row only.
    originalUrl: source.local ? '' : source.url, originalServiceType: SERVICE_TYPES[service],
  }, async (made, { dir, wikiDir }) => {
    await cloneRemote(source, dir).catch((err: unknown) => { throw cloneFailure(err, source); });
    // why: as Gitea, a wiki that is not there (or not readable) is skipped, not a failure.
    if (o.wiki && !source.local && (await remoteExists(wikiRemoteOf(source)))) await cloneRemote(wikiRemoteOf(source), wikiDir).catch(() => undefined);
    if (o.lfs && settings().server.lfsStartServer && !source.local) {
      await fetchLfsObjects(made.id, dir, source, o.lfs_endpoint ?? '').catch((err: unknown) => { throw cloneFailure(err, source); });
    }
    await recordInitialRefs(made.id, doer.id, (await headBranch(dir)) ?? 'main', ctx);
    if (service === 'gitea' && !o.mirror) await importMetadata(ctx, doer, made.id, dir, source, o);
    if (!o.mirror) return {};
    const now = nowUnix();
    return {
      mirrorUpdatedUnix: now,
      ready: (tx) => insertMirror(tx, {
        repoId: made.id, remoteAddress: source.url, credentials: sealCredentials({ username: source.username ?? '', password: source.password ?? '' }),
        lfsEnabled: !!o.lfs, lfsEndpoint: o.lfs_endpoint ?? '', nextUpdateUnix: intervalS > 0 ? now + intervalS : 0,
      }).then(() => undefined),
    };
  });
  return { repo, owner };
}
