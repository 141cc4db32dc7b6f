/**
 * The small blobs of a repository, the candidates for Git LFS pointer files: git filters the larger
 * ones out by size while it walks every ref, and one cat-file process reads the rest. Used to find
 * the LFS objects a migration or a pull mirror must fetch.
 */
import { runGit } from './run';

const LISTING_MAX_BYTES = 512 * 1024 * 1024;

/** The contents of the blobs of at most `maxSize` bytes reachable from any ref of `gitDir`. */
export async function smallBlobs(gitDir: string, maxSize: number): Promise<Buffer[]> {
  const walk = await runGit(['rev-list', '--objects', '--no-object-names', `--filter=blob:limit=${maxSize + 1}`, '--all'], { gitDir, maxOutputBytes: LISTING_MAX_BYTES });
  const ids = walk.stdout.toString().split('\n').filter(Boolean);
  if (ids.length === 0) return [];
  const kinds = await runGit(['cat-file', '--batch-check=%(objectname) %(objecttype) %(objectsize)'], { gitDir, input: `${ids.join('\n')}\n`, maxOutputBytes: LISTING_MAX_BYTES });
  const blobs = kinds.stdout.toString().split('\n').map((l) => l.split(' ')).filter((p) => p[1] === 'blob' && Number(p[2]) <= maxSize).map((p) => p[0]);
  if (blobs.length === 0) return [];
  const data = (await runGit(['cat-file', '--batch'], { gitDir, input: `${blobs.join('\n')}\n`, maxOutputBytes: LISTING_MAX_BYTES })).stdout;
  const out: Buffer[] = [];
  for (let at = 0; at < data.length;) {
    const nl = data.indexOf(10, at);
    const size = Number(data.subarray(at, nl).toString().split(' ')[2]);
    out.push(data.subarray(nl + 1, nl + 1 + size));
    at = nl + 1 + size + 1;
  }
  return out;
}
