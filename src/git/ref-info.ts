/**
 * Reading branches and tags of a bare repository with the git CLI (one `for-each-ref` for the
 * tags; commits come from src/git/history.ts). Names reach git
 * only as full ref names (`refs/heads/...`, `refs/tags/...`) or on stdin, never as options.
 */
import { gitRefused, runGit } from './run';
import { storedRef } from './ref-files';
import { parseIdentity, type GitIdentity } from './history';

/** A tag as Gitea's git.Tag describes it (a lightweight tag borrows its commit's committer and message). */
export interface GitTag {
  name: string;
  /** The tag object id (annotated) or the commit id (lightweight). */
  id: string;
  /** The id the tag points at directly. */
  object: string;
  /** The commit the tag peels to ('' when it does not peel to a commit). */
  commit: string;
  annotated: boolean;
  tagger: GitIdentity;
  message: string;
}

/** The id a full ref name points at (not peeled), or null when the ref does not exist. */
export async function refId(gitDir: string, fullRef: string): Promise<string | null> {
  // why: a loose or packed ref is a small file, read in a fraction of the time git takes to start;
  // an unusual ref (and anything that is not plainly an id) is git's to answer.
  if (/^refs\/[A-Za-z0-9_\-/]+(?:\.[A-Za-z0-9_\-/]+)*$/.test(fullRef) && !fullRef.includes('..')) {
    const stored = storedRef(gitDir, fullRef);
    if (stored !== undefined) return stored;
  }
  const r = await runGit(['show-ref', '--verify', '--hash', fullRef], { gitDir }).catch(gitRefused);
  const id = r?.stdout.toString().trim() ?? '';
  return id || null;
}

/** Full ref name -> id for every ref under `prefix` (e.g. `refs/heads/`), unpeeled. */
export async function refsUnder(gitDir: string, prefix: string): Promise<Map<string, string>> {
  const out = (await runGit(['for-each-ref', '--format=%(objectname) %(refname)', prefix], { gitDir })).stdout.toString();
  const refs = new Map<string, string>();
  for (const line of out.split('\n')) {
    const sp = line.indexOf(' ');
    if (sp > 0) refs.set(line.slice(sp + 1), line.slice(0, sp));
  }
  return refs;
}

const TAG_FIELDS = ['%(refname)', '%(objecttype)', '%(objectname)', '%(object)', '%(*objectname)', '%(creator)', '%(contents)', '%(contents:signature)'];

/**
 * Tags as Gitea lists them (`for-each-ref --sort=-*creatordate refs/tags`), optionally only the
 * one full ref name `only` (exact match).
 */
export async function listTags(gitDir: string, only?: string): Promise<GitTag[]> {
  const format = `${TAG_FIELDS.join('%00')}%00`;
  const args = ['for-each-ref', '--sort=-*creatordate', `--format=${format}`, only ?? 'refs/tags/'];
  const fields = (await runGit(args, { gitDir })).stdout.toString('utf8').split('\0');
  const tags: GitTag[] = [];
  for (let i = 0; i + TAG_FIELDS.length <= fields.length; i += TAG_FIELDS.length) {
    const [refname, type, id, target, peeled, creator, contents, signature] = fields.slice(i, i + TAG_FIELDS.length);
    const ref = refname.replace(/^\n/, '');
    if (!ref.startsWith('refs/tags/') || (only !== undefined && ref !== only)) continue;
    const annotated = type === 'tag';
    const message = signature && contents.endsWith(signature) ? contents.slice(0, contents.length - signature.length) : contents;
    tags.push({
      name: ref.slice('refs/tags/'.length), id, annotated, object: annotated ? target : id,
      commit: annotated ? peeled : type === 'commit' ? id : '', tagger: parseIdentity(creator), message,
    });
  }
  return tags;
}

/** One tag by name, or null. */
export async function readTag(gitDir: string, name: string): Promise<GitTag | null> {
  return (await listTags(gitDir, `refs/tags/${name}`))[0] ?? null;
}
