/**
 * Packages of every owner for the site administration (Gitea's `/-/admin/packages`): versions
 * newest first, filtered by type and name, with their owner and size; and the deletion of one,
 * through the same removal as an owner's (its indexes updated, the `deleted` event sent).
 */
import type { DbContext } from '../../db';
import { NotFound } from '../../errors';
import { filesOfVersions, listVersions, versionsByIds } from '../../models/package.model';
import { findUserById, findUsersByIds, type UserModel } from '../../models/user.model';
import { removePackageVersion } from './package.service';

/** A version as the administration lists it. */
export interface AdminPackageRow { versionId: number; type: string; name: string; version: string; owner: string; size: number; created: Date }

/** One page of every owner's package versions, newest first, and how many match. */
export async function listAllPackageVersions(ctx: DbContext, f: { type?: string; q?: string }, limit: number, offset: number): Promise<{ rows: AdminPackageRow[]; count: number }> {
  const { rows, total } = await listVersions(ctx, { ownerId: null, type: f.type || undefined, q: f.q || undefined }, limit, offset);
  const owners = new Map((await findUsersByIds(ctx, [...new Set(rows.map((r) => r.pkg.ownerId))])).map((u) => [u.id, u.name]));
  const sizes = new Map<number, number>();
  for (const { file, blob } of await filesOfVersions(ctx, rows.map((r) => r.version.id))) sizes.set(file.versionId, (sizes.get(file.versionId) ?? 0) + Number(blob.size));
  return {
    count: total,
    rows: rows.map(({ pkg, version }) => ({
      versionId: version.id, type: pkg.type, name: pkg.name, version: version.version, owner: owners.get(pkg.ownerId) ?? '',
      size: sizes.get(version.id) ?? 0, created: new Date(Number(version.createdUnix) * 1000),
    })),
  };
}

/** Delete a package version of any owner (the caller is a site administrator); its name and version for the page's message. */
export async function removeAnyPackageVersion(ctx: DbContext, doer: UserModel, versionId: number): Promise<string> {
  const [row] = await versionsByIds(ctx, [versionId]);
  const owner = row ? await findUserById(ctx, row.pkg.ownerId) : null;
  if (!row || !owner) throw new NotFound('The package version does not exist.');
  await removePackageVersion(ctx, doer, owner, row.pkg, row.version);
  return `${row.pkg.name} ${row.version.version}`;
}
