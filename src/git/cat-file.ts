/**
 * Reading objects by id through a long-running `git cat-file --batch-command --buffer` per
 * repository (./batch).
 */
import fs from 'node:fs/promises';
import { statSync } from 'node:fs';
import path from 'node:path';
import { BatchCommand } from './batch';
import { WeightedLru } from './lru';
import { storedRef } from './ref-files';
import { missingRepo, runGit } from './run';

/**
 * Ask git once more, in a process of its own, about names the long-running reader called missing.
 * why: an unreadable pack makes git answer "missing" and report the damage on stderr, and the two
 * pipes of a long-running process arrive in no fixed order; a process of its own is read to its
 * end, so a damaged repository fails here (RepoUnavailable) instead of passing for a 404.
 */
async function confirmMissing(gitDir: string, names: string[]): Promise<void> {
  await runGit(['cat-file', '--batch-check'], { gitDir, input: `${names.join('\n')}\n` });
}

/** A git object as cat-file prints it. */
export interface GitObject { type: string; data: Buffer }

// why: with --batch, git flushes after every object, so fifty commits came as fifty small pipe
// writes, each a wake-up of the reader; buffered, with a flush per request, they come in a few.
const catFile = new BatchCommand(['cat-file', '--batch-command', '--buffer']);

/** A parser for `<id> <type> <size>\n<data>\n` and `<id> missing\n` records, one per requested id. */
function objectsParser(ids: string[]) {
  const got = new Map<string, GitObject>();
  let index = 0;
  return (buf: Buffer): { used: number; result?: Map<string, GitObject> } | null => {
    let used = 0;
    while (index < ids.length) {
      const nl = buf.indexOf(10, used);
      if (nl < 0) break;
      const parts = buf.subarray(used, nl).toString().split(' ');
      if (parts[1] === 'missing' || parts[1] === 'ambiguous') {
        used = nl + 1;
      } else {
        const size = Number(parts[2]);
        if (buf.length < nl + 1 + size + 1) break;
        got.set(ids[index], { type: parts[1], data: Buffer.from(buf.subarray(nl + 1, nl + 1 + size)) });
        used = nl + 1 + size + 1;
      }
      index++;
    }
    if (index === ids.length) return { used, result: got };
    return used > 0 ? { used } : null;
  };
}

/** Start the repository's cat-file process ahead of the readObjects call that will follow. */
export function prepareObjectReads(gitDir: string): void {
  catFile.prepare(gitDir);
}

/**
 * Read objects by full id from the repository at `gitDir`; missing ids are absent from the map.
 * Ids must be full hexadecimal object ids (they are written to git's stdin one per line).
 */
export async function readObjects(gitDir: string, ids: string[]): Promise<Map<string, GitObject>> {
  if (ids.some((id) => !/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(id))) throw new Error('readObjects takes full object ids');
  if (ids.length === 0) return new Map();
  const got = await catFile.run(gitDir, { input: `${ids.map((id) => `contents ${id}`).join('\n')}\nflush\n`, parse: objectsParser(ids) });
  if (got.size < ids.length) await confirmMissing(gitDir, ids.filter((id) => !got.has(id)));
  return got;
}

/**
 * Read objects by full id in a cat-file of its own, run with `env`: the object directories of a
 * push still in quarantine, which the long-running reader of the repository cannot see.
 */
export async function readQuarantinedObjects(gitDir: string, ids: string[], env: Record<string, string>): Promise<Map<string, GitObject>> {
  if (ids.some((id) => !/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(id))) throw new Error('readQuarantinedObjects takes full object ids');
  if (ids.length === 0) return new Map();
  const { stdout } = await runGit(['cat-file', '--batch'], { gitDir, env, input: `${ids.join('\n')}\n` });
  return objectsParser(ids)(stdout)?.result ?? new Map();
}

/**
 * The full id of the commit `rev` names (branch, tag, full or abbreviated id, or any other revision
 * git understands; tags are peeled), or null when it names none. `rev` must have passed
 * assertSafeGitArg (no leading '-', no line breaks), since it is written to git as one line.
 * why: asked of the same long-running cat-file that reads the objects, so a repository's first
 * request starts one process for both.
 */
export async function resolveCommit(gitDir: string, rev: string): Promise<string | null> {
  if (rev === '' || rev.startsWith('-') || /[\0\r\n]/.test(rev)) throw new Error('resolveCommit takes a checked revision');
  const names = [`${rev}^{commit}`];
  const infos = await askInfo(gitDir, names);
  await confirmAbsent(gitDir, names, infos, 1);
  return infos[0]?.oid ?? null;
}

/** What `info <name>` tells of an object: its id, type and size. */
export interface ObjectInfo { oid: string; type: string; size: number }

/** A parser for one `<id> <type> <size>` or `<name> missing|ambiguous` line per name. */
function infoParser(count: number) {
  const got: (ObjectInfo | null)[] = [];
  return (buf: Buffer): { used: number; result?: (ObjectInfo | null)[] } | null => {
    let used = 0;
    while (got.length < count) {
      const nl = buf.indexOf(10, used);
      if (nl < 0) break;
      const m = /^([0-9a-f]{40}(?:[0-9a-f]{24})?) (\S+) (\d+)$/.exec(buf.subarray(used, nl).toString());
      got.push(m ? { oid: m[1], type: m[2], size: Number(m[3]) } : null);
      used = nl + 1;
    }
    if (got.length === count) return { used, result: got };
    return used > 0 ? { used } : null;
  };
}

/**
 * Does the full ref name exist (loose, or in packed-refs)? why: a branch or tag that does not exist
 * is an everyday answer (a ref is tried as a branch, then as a tag), not a sign of damage, and
 * needs no process of its own to confirm it.
 */
async function refExists(gitDir: string, fullRef: string): Promise<boolean> {
  if (await fs.stat(path.join(gitDir, fullRef)).then((st) => st.isFile(), () => false)) return true;
  const packed = await fs.readFile(path.join(gitDir, 'packed-refs'), 'utf8').catch(() => '');
  return packed.includes(` ${fullRef}\n`);
}

const REF_EXPR = /^(refs\/(?:heads|tags)\/[^\0\n\r^:~]+)\^\{commit\}$/;

const PEELED = /^([0-9a-f]{40}(?:[0-9a-f]{24})?)\^\{commit\}$/;

// why: the commit an object id peels to in a repository never changes once the object is there (CI
// systems ask about the same commit again and again); a missing answer is never kept, since a push
// may bring the object.
const peeled = new WeightedLru<ObjectInfo>(50_000, () => 1);

/**
 * The key of what is kept about object `id` of the repository at `gitDir`: its path and its
 * directory's inode and birth time (the change time where the file system keeps no birth time).
 * why: a repository deleted and created again under the same name (to purge a pushed secret, say)
 * is a new directory, often with the inode number of the old one; nothing known of the old
 * repository may answer for it.
 */
function peelKey(gitDir: string, id: string): string {
  const st = statSync(gitDir, { bigint: true, throwIfNoEntry: false });
  return `${gitDir}\0${st ? `${st.ino}:${st.birthtimeNs || st.ctimeNs}` : ''}\0${id}`;
}

/**
 * What the ref files and the kept peels answer for a name without git: its info, null when it
 * certainly names nothing, or the name to ask git instead (a branch or tag becomes its object id).
 */
function localInfo(gitDir: string, name: string): { info: ObjectInfo | null } | { ask: string } {
  const ref = REF_EXPR.exec(name);
  const oid = ref ? storedRef(gitDir, ref[1]) : undefined;
  if (oid === null) return { info: null };
  const ask = oid === undefined ? name : `${oid}^{commit}`;
  const id = PEELED.exec(ask)?.[1];
  const known = id ? peeled.get(peelKey(gitDir, id)) : undefined;
  return known ? { info: known } : { ask };
}

/**
 * What the repository answers for each name, before any "missing" is confirmed. A branch or tag is
 * read from the ref files and peeled from what is known of its object; the rest is asked of the
 * long-running cat-file in one round trip.
 */
async function askInfo(gitDir: string, names: string[]): Promise<(ObjectInfo | null)[]> {
  if (names.some((n) => n === '' || /[\n\r\0]/.test(n))) throw new Error('empty object name or one with a line break');
  const out: (ObjectInfo | null)[] = new Array<ObjectInfo | null>(names.length).fill(null);
  const asked: { i: number; name: string }[] = [];
  names.forEach((n, i) => {
    const local = localInfo(gitDir, n);
    if ('info' in local) out[i] = local.info;
    else asked.push({ i, name: local.ask });
  });
  if (asked.length === 0) return out;
  const infos = await catFile.run(gitDir, { input: `${asked.map((a) => `info ${a.name}`).join('\n')}\nflush\n`, parse: infoParser(asked.length) });
  asked.forEach((a, k) => {
    const info = infos[k];
    out[a.i] = info;
    const id = PEELED.exec(a.name)?.[1];
    if (info && id) peeled.set(peelKey(gitDir, id), info);
  });
  return out;
}

/**
 * Confirm the first `upTo` names that were answered missing, except branches and tags that do not
 * exist (a process of its own makes damage an error instead of a 404).
 */
async function confirmAbsent(gitDir: string, names: string[], infos: (ObjectInfo | null)[], upTo: number): Promise<void> {
  // why: a long-running reader started before the repository's directory went away answers
  // "missing" for everything; the repository's absence is the answer then, not a 404.
  if (infos.slice(0, upTo).some((i) => !i) && !(await fs.stat(gitDir).then((st) => st.isDirectory(), () => false))) throw missingRepo(gitDir);
  const doubtful: string[] = [];
  for (let i = 0; i < upTo; i++) {
    if (infos[i]) continue;
    const ref = REF_EXPR.exec(names[i]);
    if (!ref || (await refExists(gitDir, ref[1]))) doubtful.push(names[i]);
  }
  if (doubtful.length > 0) await confirmMissing(gitDir, doubtful);
}

/**
 * Id, type and size of each object name (any name git's `cat-file` takes: ids, `rev^{commit}`,
 * `rev:path`), null for names that name nothing. Names travel on stdin, one per line.
 * why: asked of the repository's long-running cat-file, so a content or raw request starts no
 * process; a name called missing is confirmed by a process of its own (damage surfaces as an
 * error there) unless it is a branch or tag that does not exist.
 */
export async function objectInfo(gitDir: string, names: string[]): Promise<(ObjectInfo | null)[]> {
  if (names.length === 0) return [];
  const infos = await askInfo(gitDir, names);
  await confirmAbsent(gitDir, names, infos, names.length);
  return infos;
}

/**
 * Like objectInfo, but a name answered missing is taken at its word. For names whose absence is the
 * everyday answer (words of a comment that look like commit ids), where a process per missing name
 * to tell damage from absence would cost more than the question.
 */
export function peekObjects(gitDir: string, names: string[]): Promise<(ObjectInfo | null)[]> {
  return names.length ? askInfo(gitDir, names) : Promise.resolve([]);
}

/**
 * The first of `names`, in order of preference, that names an object, with its position; null when
 * none does. Only the names before it are confirmed missing.
 * why: a ref is tried as a branch, then as a tag; when the branch exists, whether the tag does is
 * no question, and asking the file system about it cost more than the rest of the request.
 */
export async function firstObject(gitDir: string, names: string[]): Promise<{ index: number; info: ObjectInfo } | null> {
  if (names.length === 0) return null;
  // why: a branch found in the ref files, with only certainly absent names before it, needs no git at all.
  for (let i = 0; i < names.length && !/[\n\r\0]/.test(names[i]); i++) {
    const local = localInfo(gitDir, names[i]);
    if (!('info' in local)) break;
    if (local.info) return { index: i, info: local.info };
  }
  const infos = await askInfo(gitDir, names);
  const index = infos.findIndex((i) => i !== null);
  await confirmAbsent(gitDir, names, infos, index < 0 ? names.length : index);
  return index < 0 ? null : { index, info: infos[index]! };
}
