/**
 * Fetching the Git LFS objects of a migrated or mirrored repository from its source, as Gitea's
 * StoreMissingLfsObjectsInRepository does: every pointer reachable from a ref whose object the
 * repository does not have yet is asked for through the source's LFS batch API (basic transfer),
 * downloaded by the migration network rules, checked against its oid and size, stored and linked.
 * An object the source no longer has is skipped; any other failure fails the migration or sync.
 *
 * The endpoint is `lfs_endpoint` when given, else the clone address with `/info/lfs`. Credentials
 * go to that endpoint only; a download address gets just the headers the batch answer gave for it.
 */
import { systemCtx, withTx } from '../../db';
import { settings } from '../../config';
import { smallBlobs } from '../../git/lfs-scan';
import type { RemoteTarget } from '../../git/remote';
import { findLfsMetas, linkLfsMeta } from '../../models/lfs-meta-object.model';
import { LFS_POINTER_MAX, parseLfsPointer } from '../content/lfs-pointer';
import { storedSize, storeObject } from '../lfs/content-store';
import { LFS_MEDIA_TYPE } from '../lfs/objects.service';
import { guardedGet, guardedResponse } from '../net/http-get';

/** Objects asked for in one batch request (Gitea's default [server] LFS_MAX_BATCH_SIZE is bigger; sources may cap it lower). */
const BATCH = 100;
const BATCH_ANSWER_BYTES = 8 * 1024 * 1024;

/** The LFS endpoint of a clone address (Gitea's DetermineEndpoint): `x.git/info/lfs`, adding `.git` when it is missing. */
export function lfsEndpointOf(cloneUrl: string): string {
  const u = new URL(cloneUrl);
  const p = u.pathname.replace(/\/+$/, '');
  u.pathname = `${p.endsWith('.git') ? p : `${p}.git`}/info/lfs`;
  u.search = '';
  return u.href;
}

interface BatchObject { oid: string; size: number; actions?: { download?: { href: string; header?: Record<string, string> } }; error?: { code: number; message: string } }

/** Ask the endpoint where to download `objects`. */
async function batch(endpoint: string, auth: Record<string, string>, objects: { oid: string; size: number }[]): Promise<BatchObject[]> {
  const body = Buffer.from(JSON.stringify({ operation: 'download', transfers: ['basic'], objects }));
  const res = await guardedGet(`${endpoint.replace(/\/+$/, '')}/objects/batch`, {
    body, maxBytes: BATCH_ANSWER_BYTES, timeoutMs: 60_000,
    headers: { ...auth, Accept: LFS_MEDIA_TYPE, 'Content-Type': LFS_MEDIA_TYPE, 'Content-Length': String(body.length) },
  });
  if (res.status !== 200) throw new Error(`the LFS server answered ${res.status} to the batch request`);
  const answer = JSON.parse(res.body.toString('utf8')) as { objects?: BatchObject[] };
  return Array.isArray(answer.objects) ? answer.objects : [];
}

/** Download one object and store it (checked against its oid and size). */
async function download(o: BatchObject): Promise<void> {
  const action = o.actions!.download!;
  const res = await guardedResponse(action.href, { headers: action.header ?? {}, maxBytes: o.size, timeoutMs: settings().gitTimeout.migrate * 1000 });
  if (res.status !== 200) {
    res.body.resume();
    throw new Error(`the LFS server answered ${res.status} for object ${o.oid}`);
  }
  await storeObject(o.oid, o.size, res.body);
}

/**
 * Fetch into repository `repoId` (at `gitDir`) the LFS objects its pointers name and it lacks;
 * answers how many were linked.
 */
export async function fetchLfsObjects(repoId: number, gitDir: string, source: RemoteTarget, endpoint: string): Promise<number> {
  const pointers = new Map<string, number>();
  for (const blob of await smallBlobs(gitDir, LFS_POINTER_MAX)) {
    const p = parseLfsPointer(blob);
    if (p && (settings().server.lfsMaxFileSize <= 0 || p.size <= settings().server.lfsMaxFileSize)) pointers.set(p.oid, p.size);
  }
  const linked = await findLfsMetas(systemCtx, repoId, [...pointers.keys()]);
  const wanted = [...pointers].filter(([oid]) => !linked.has(oid)).map(([oid, size]) => ({ oid, size }));
  const auth: Record<string, string> = source.username || source.password
    ? { Authorization: `Basic ${Buffer.from(`${source.username || 'oauth2'}:${source.password ?? ''}`).toString('base64')}` } : {};
  let count = 0;
  for (let i = 0; i < wanted.length; i += BATCH) {
    const chunk = wanted.slice(i, i + BATCH);
    // why: an object another repository already brought is linked, not downloaded again.
    const have = new Set<string>();
    for (const o of chunk) if ((await storedSize(o.oid)) === o.size) have.add(o.oid);
    const missing = chunk.filter((o) => !have.has(o.oid));
    const answers = missing.length ? await batch(endpoint || lfsEndpointOf(source.url), auth, missing) : [];
    for (const a of answers) {
      const asked = missing.find((o) => o.oid === a.oid && o.size === a.size);
      if (!asked || a.error || !a.actions?.download?.href) continue;
      await download(a);
      have.add(a.oid);
    }
    await withTx(systemCtx, async (tx) => {
      for (const o of chunk) if (have.has(o.oid)) await linkLfsMeta(tx, repoId, o.oid, o.size);
    });
    count += have.size;
  }
  return count;
}
