/**
 * A branch or tag read as git's files backend stores it: a loose file under refs/, else a line of
 * packed-refs (parsed once per version of the file). git renames a new ref file or a new packed-refs
 * into place, so a read sees the old value or the new one, never half of one.
 * why: resolving a branch asked the repository's long-running cat-file, a pipe round trip and a
 * wake-up of another process, on every contents, raw, status and branch-list request.
 */
import fs from 'node:fs';
import path from 'node:path';

const OID = /^([0-9a-f]{40}(?:[0-9a-f]{24})?)\n?$/;
const MAX_REPOS = 1000;

interface Packed { ino: bigint; mtimeNs: bigint; size: bigint; refs: Map<string, string> }
const packedByDir = new Map<string, Packed>();

/** The refs of packed-refs, or null when the repository has none. */
function packedRefs(gitDir: string): Map<string, string> | null {
  const file = path.join(gitDir, 'packed-refs');
  const st = fs.statSync(file, { bigint: true, throwIfNoEntry: false });
  if (!st) return null;
  const known = packedByDir.get(gitDir);
  if (known && known.ino === st.ino && known.mtimeNs === st.mtimeNs && known.size === st.size) return known.refs;
  const refs = new Map<string, string>();
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (line === '' || line.startsWith('#') || line.startsWith('^')) continue;
    const sp = line.indexOf(' ');
    refs.set(line.slice(sp + 1), line.slice(0, sp));
  }
  if (packedByDir.size >= MAX_REPOS) packedByDir.clear();
  // why: if the file was replaced between the stat and the read, the next stat differs and reads it again.
  packedByDir.set(gitDir, { ino: st.ino, mtimeNs: st.mtimeNs, size: st.size, refs });
  return refs;
}

/**
 * The object id `fullRef` (a checked `refs/heads/...` or `refs/tags/...` name) holds; null when the
 * repository certainly has no such ref; undefined when git must be asked (a symbolic ref, a
 * repository without packed-refs or in another ref format, a file that cannot be read).
 * These are synchronous reads of small local files: cheaper than a hop to the thread pool.
 */
export function storedRef(gitDir: string, fullRef: string): string | null | undefined {
  try {
    const loose = path.join(gitDir, fullRef);
    const st = fs.statSync(loose, { throwIfNoEntry: false });
    if (st?.isFile()) return OID.exec(fs.readFileSync(loose, 'latin1'))?.[1];
    const packed = packedRefs(gitDir);
    if (!packed) return undefined;
    return packed.get(fullRef) ?? null;
  } catch {
    return undefined;
  }
}
