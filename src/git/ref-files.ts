/**
 * A branch or tag read as git's files backend stores it: a loose file under refs/, else a line of
 * packed-refs. Each file is read once per version of it (its inode, size and modification time):
 * git renames a new ref file or a new packed-refs into place, so a new version is a new inode, and a
 * read sees the old value or the new one, never half of one.
 * why: resolving a branch asked the repository's long-running cat-file, a pipe round trip and a
 * wake-up of another process, on every contents, raw, status and branch-list request.
 */
import fs from 'node:fs';
import path from 'node:path';

const OID = /^([0-9a-f]{40}(?:[0-9a-f]{24})?)\n?$/;
const MAX_FILES = 10_000;

interface Version { ino: bigint; mtimeNs: bigint; size: bigint }
const known = new Map<string, Version & { value: unknown }>();

/**
 * What `parse` makes of the file's text, parsed again only when the file changed; undefined when
 * there is no such file. These are synchronous reads of small local files: cheaper than a hop to
 * the thread pool.
 */
function readParsed<T>(file: string, parse: (text: string) => T): { value: T } | undefined {
  const st = fs.statSync(file, { bigint: true, throwIfNoEntry: false });
  if (!st?.isFile()) return undefined;
  const kept = known.get(file);
  if (kept && kept.ino === st.ino && kept.mtimeNs === st.mtimeNs && kept.size === st.size) return { value: kept.value as T };
  const value = parse(fs.readFileSync(file, 'latin1'));
  if (known.size >= MAX_FILES) known.clear();
  // why: if the file was replaced between the stat and the read, the next stat differs and reads it again.
  known.set(file, { ino: st.ino, mtimeNs: st.mtimeNs, size: st.size, value });
  return { value };
}

function parsePacked(text: string): Map<string, string> {
  const refs = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#') || line.startsWith('^')) continue;
    const sp = line.indexOf(' ');
    refs.set(line.slice(sp + 1), line.slice(0, sp));
  }
  return refs;
}

/**
 * The object id `fullRef` (a checked `refs/heads/...` or `refs/tags/...` name) holds; null when the
 * repository certainly has no such ref; undefined when git must be asked (a symbolic ref, a
 * repository without packed-refs or in another ref format, a file that cannot be read).
 */
export function storedRef(gitDir: string, fullRef: string): string | null | undefined {
  try {
    const loose = readParsed(path.join(gitDir, fullRef), (text) => OID.exec(text)?.[1]);
    if (loose) return loose.value;
    const packed = readParsed(path.join(gitDir, 'packed-refs'), parsePacked);
    if (!packed) return undefined;
    return packed.value.get(fullRef) ?? null;
  } catch {
    return undefined;
  }
}
