/**
 * The Go module registry's answers (Gitea's goproxy routes): publish a module zip; `@v/list` (every
 * version, oldest upload first), `.info`, `.mod`, `.zip` and `@latest` (the newest upload, as
 * Gitea). Module paths and versions in requests are in the protocol's escaped form (`!x` for `X`);
 * a version that was never published is 404 `package does not exist`.
 */
import type { DbContext } from '../../db';
import { NotFound } from '../../errors';
import { packageSnapshot, type SnapshotVersion } from '../../models/package.model';
import type { UserModel } from '../../models/user.model';
import { GO_MOD_PROPERTY, readGoModuleZip, unescapeModule, versionInfo } from './go';
import { discardTemp, type StoredFile, type TempBlob } from './blob-store';
import { publishPackageFile } from './package.service';

/** What a read answers: a document, or a stored file. */
export type GoAnswer = { kind: 'text'; contentType: string; body: string } | { kind: 'file'; file: StoredFile };

/** Check and publish the module zip `blob` for `owner` (400 for a bad zip, 409 for a version that exists). */
export async function publishGoModule(ctx: DbContext, doer: UserModel, owner: UserModel, blob: TempBlob): Promise<void> {
  const mod = await readGoModuleZip(blob.file).catch(async (err: unknown) => { await discardTemp(blob); throw err; });
  await publishPackageFile(ctx, {
    owner, doer, type: 'go', name: mod.path, version: mod.version, semverCompatible: true, metadata: null,
    versionProps: { [GO_MOD_PROPERTY]: mod.goMod }, file: { name: `${mod.version}.zip`, isLead: true }, blob,
  });
}

/** The module's versions, oldest upload first (404 `notFound` when it has none). */
async function versionsOf(ctx: DbContext, owner: UserModel, escaped: string, notFound = ''): Promise<SnapshotVersion[]> {
  const path = unescapeModule(escaped);
  const snap = path ? await packageSnapshot(ctx, owner.id, 'go', path) : null;
  if (!snap) throw new NotFound(notFound);
  return snap.versions;
}

/** One version of a module: `latest` is the newest upload. */
async function versionOf(ctx: DbContext, owner: UserModel, escaped: string, version: string): Promise<SnapshotVersion> {
  const versions = await versionsOf(ctx, owner, escaped, 'package does not exist');
  const v = unescapeModule(version)?.toLowerCase();
  const found = v === 'latest' ? versions.reduce((a, b) => (b.id > a.id ? b : a)) : versions.find((x) => x.lowerVersion === v);
  if (!found) throw new NotFound('package does not exist');
  return found;
}

/** `@v/list`. */
export async function goList(ctx: DbContext, owner: UserModel, module: string): Promise<GoAnswer> {
  const versions = await versionsOf(ctx, owner, module);
  return { kind: 'text', contentType: 'text/plain; charset=utf-8', body: versions.map((v) => `${v.version}\n`).join('') };
}

/** `.info` and `@latest`. */
export async function goInfo(ctx: DbContext, owner: UserModel, module: string, version: string): Promise<GoAnswer> {
  const v = await versionOf(ctx, owner, module, version);
  return { kind: 'text', contentType: 'application/json; charset=utf-8', body: `${JSON.stringify(versionInfo(v.version, v.createdUnix))}\n` };
}

/** `.mod`: the go.mod as it was uploaded. */
export async function goMod(ctx: DbContext, owner: UserModel, module: string, version: string): Promise<GoAnswer> {
  const v = await versionOf(ctx, owner, module, version);
  return { kind: 'text', contentType: 'text/plain; charset=utf-8', body: v.props[GO_MOD_PROPERTY] ?? '' };
}

/** `.zip`: the module zip as it was uploaded. */
export async function goZip(ctx: DbContext, owner: UserModel, module: string, version: string): Promise<GoAnswer> {
  const v = await versionOf(ctx, owner, module, version);
  const f = v.files[0];
  if (!f) throw new NotFound('package file does not exist');
  return { kind: 'file', file: { name: f.name, sha256: f.sha256, size: f.size, createdUnix: f.createdUnix } };
}
