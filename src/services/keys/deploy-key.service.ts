/**
 * Deploy keys of a repository (repository admins only): add, list, get, delete. As in Gitea, the
 * key content lives in one public_key row of type 2 shared by every repository that adds the same
 * key; a key already registered as a user key is refused, and the key row goes with its last use.
 */
import { withTx, isUniqueViolation, type DbContext } from '../../db';
import { settings } from '../../config';
import { NotFound, Validation } from '../../errors';
import { AccessMode } from '../../models/perm';
import { PublicKeyMode, PublicKeyType, insertPublicKey, type PublicKeyModel } from '../../models/public-key.model';
import {
  deleteDeployKeyRow, findDeployKeyById, findDeployKeyByName, findDeployKeyOfRepo, findPublicKeysByIds, insertDeployKey,
  listDeployKeys, lockPublicKeyRow, type DeployKeyFilter, type DeployKeyModel,
} from '../../models/deploy-key.model';
import { assertRepoAdmin } from '../repo/repo.service';
import type { RepoContext } from '../repo/context';
import { InvalidSshKey, parseSshPublicKey, type ParsedSshKey } from './ssh-parse';
import { KEY_IN_USE } from './ssh-key.service';

/** Gitea's message for a key added twice to one repository. */
export const DEPLOY_KEY_IN_REPO = 'This key has already been added to this repository';
/** Gitea's message for a title used twice in one repository. */
export const DEPLOY_KEY_NAME_USED = 'A key with the same name already exists';

/** A deploy key with its key content. */
export interface DeployKeyView { dk: DeployKeyModel; content: string }

function parse(title: unknown, key: unknown): { name: string; parsed: ParsedSshKey } {
  if (typeof title !== 'string' || title.trim() === '') throw new Validation('[Title]: Required');
  if (typeof key !== 'string' || key.trim() === '') throw new Validation('[Key]: Required');
  const name = title.trim();
  if (name.length > 255) throw new Validation('[Title]: MaxSize');
  if (settings().server.disableSsh) throw new Validation('SSH is disabled');
  try {
    return { name, parsed: parseSshPublicKey(key, settings().sshMinimumKeySizes) };
  } catch (err) {
    if (err instanceof InvalidSshKey) throw new Validation(`Invalid key content: ${err.message}`);
    throw err;
  }
}

async function addOnce(ctx: DbContext, rc: RepoContext, name: string, parsed: ParsedSshKey, mode: AccessMode): Promise<DeployKeyView> {
  return withTx(ctx, async (tx) => {
    let pk: PublicKeyModel | null = await lockPublicKeyRow(tx, parsed.fingerprint);
    if (pk && pk.type !== PublicKeyType.Deploy) throw new Validation(KEY_IN_USE);
    if (pk && (await findDeployKeyOfRepo(tx, pk.id, rc.repo.id))) throw new Validation(DEPLOY_KEY_IN_REPO);
    if (await findDeployKeyByName(tx, rc.repo.id, name)) throw new Validation(DEPLOY_KEY_NAME_USED);
    // why: the first repository to add a key creates its shared row; its mode there is only a default.
    pk ??= await insertPublicKey(tx, {
      ownerId: 0, name, fingerprint: parsed.fingerprint, content: parsed.content, keyType: parsed.type,
      mode: mode === AccessMode.Read ? PublicKeyMode.Read : PublicKeyMode.Write, type: PublicKeyType.Deploy,
    });
    const dk = await insertDeployKey(tx, { keyId: pk.id, repoId: rc.repo.id, name, fingerprint: parsed.fingerprint, mode });
    return { dk, content: pk.content };
  });
}

/** Add a deploy key to the repository; 422 with Gitea's messages for every refusal, nothing stored then. */
export async function addDeployKey(ctx: DbContext, rc: RepoContext, title: unknown, key: unknown, readOnly: boolean): Promise<DeployKeyView> {
  assertRepoAdmin(rc);
  const { name, parsed } = parse(title, key);
  const mode = readOnly ? AccessMode.Read : AccessMode.Write;
  try {
    return await addOnce(ctx, rc, name, parsed, mode);
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
  }
  // why: a unique index refused a racing insert (the shared key row, or this repository's pair);
  // the second attempt sees the winner's rows and answers with the matching message.
  try {
    return await addOnce(ctx, rc, name, parsed, mode);
  } catch (err) {
    if (isUniqueViolation(err)) throw new Validation(DEPLOY_KEY_IN_REPO);
    throw err;
  }
}

async function withContent(ctx: DbContext, rows: DeployKeyModel[]): Promise<DeployKeyView[]> {
  const keys = new Map((await findPublicKeysByIds(ctx, [...new Set(rows.map((r) => r.keyId))])).map((k) => [k.id, k]));
  return rows.map((dk) => ({ dk, content: keys.get(dk.keyId)?.content ?? '' }));
}

/** One page of the repository's deploy keys (optionally one key id or fingerprint), with the total. */
export async function listRepoDeployKeys(
  ctx: DbContext, rc: RepoContext, f: Omit<DeployKeyFilter, 'repoId'>, limit: number, offset: number,
): Promise<{ rows: DeployKeyView[]; count: number }> {
  assertRepoAdmin(rc);
  const { rows, count } = await listDeployKeys(ctx, { ...f, repoId: rc.repo.id }, limit, offset);
  return { rows: await withContent(ctx, rows), count };
}

function missing(id: number): NotFound {
  return new NotFound(`deploy key does not exist [id: ${id}, key_id: 0, repo_id: 0]`);
}

/** A deploy key of this repository by id; 404 for a missing id or another repository's key. */
export async function getRepoDeployKey(ctx: DbContext, rc: RepoContext, id: number): Promise<DeployKeyView> {
  assertRepoAdmin(rc);
  const dk = await findDeployKeyById(ctx, id);
  if (!dk || dk.repoId !== rc.repo.id) throw missing(id);
  return (await withContent(ctx, [dk]))[0];
}

/**
 * Remove a deploy key from this repository, and its key row when no repository uses it any more.
 * 404 for a missing id or another repository's key (Gitea 1.24 answered 204 for a missing id and
 * deleted other repositories' keys for their admins; scoping by repository closes that).
 */
export async function deleteRepoDeployKey(ctx: DbContext, rc: RepoContext, id: number): Promise<void> {
  assertRepoAdmin(rc);
  await withTx(ctx, async (tx) => {
    const dk = await findDeployKeyById(tx, id);
    if (!dk || dk.repoId !== rc.repo.id) throw missing(id);
    await deleteDeployKeyRow(tx, dk);
  });
}
