/**
 * Reading branches, tags and commit objects of a bare repository with the git CLI: one
 * `cat-file --batch` for any number of commits, one `for-each-ref` for the tags. Names reach git
 * only as full ref names (`refs/heads/...`, `refs/tags/...`) or on stdin, never as options.
 */
import { runGit } from './run';

/** A person line of a commit or tag (`Name <email> <unix> <+hhmm>`). */
export interface GitSignature { name: string; email: string; unix: number; when: string }

/** A parsed commit object. */
export interface GitCommit {
  id: string;
  author: GitSignature;
  committer: GitSignature;
  /** The whole message, as Gitea's Commit.Message(). */
  message: string;
  /** The armored signature (gpgsig header), or '' when unsigned. */
  signature: string;
  /** The signed payload: the object without its signature header. */
  payload: string;
}

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
  tagger: GitSignature;
  message: string;
}

const OFFSET = /^([+-])(\d{2})(\d{2})$/;

/** RFC 3339 time in the signature's own offset, as Go prints a parsed git time (`Z` for +0000). */
export function formatGitTime(unix: number, offset: string): string {
  const m = OFFSET.exec(offset);
  const minutes = m ? (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3])) : 0;
  const local = new Date((unix + minutes * 60) * 1000).toISOString().replace(/\.\d{3}Z$/, '');
  if (minutes === 0) return `${local}Z`;
  return `${local}${m![1]}${m![2]}:${m![3]}`;
}

/** Parse `Name <email> 1700000000 +0100`; unparsable lines give an empty signature at the epoch. */
export function parseSignature(line: string): GitSignature {
  const m = /^(.*?) ?<([^>]*)> (-?\d+) ([+-]\d{4})$/.exec(line.trim());
  if (!m) return { name: line.trim(), email: '', unix: 0, when: formatGitTime(0, '+0000') };
  const unix = Number(m[3]);
  return { name: m[1], email: m[2], unix, when: formatGitTime(unix, m[4]) };
}

/** Parse the raw text of a commit object. */
export function parseCommit(id: string, raw: string): GitCommit {
  const split = raw.indexOf('\n\n');
  const head = split < 0 ? raw : raw.slice(0, split);
  const message = split < 0 ? '' : raw.slice(split + 2);
  let author = parseSignature('');
  let committer = author;
  let signature = '';
  const kept: string[] = [];
  const lines = head.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line.startsWith('gpgsig ') || line.startsWith('gpgsig-sha256 ')) {
      const sig = [line.slice(line.indexOf(' ') + 1)];
      while (i + 1 < lines.length && lines[i + 1].startsWith(' ')) sig.push(lines[++i].slice(1));
      signature = `${sig.join('\n')}\n`;
      continue;
    }
    kept.push(line);
    if (line.startsWith('author ')) author = parseSignature(line.slice(7));
    else if (line.startsWith('committer ')) committer = parseSignature(line.slice(10));
  }
  const payload = `${kept.join('\n')}\n\n${message}`;
  return { id, author, committer, message, signature, payload };
}

/** Parse `git cat-file --batch` output into id -> object text (missing objects are left out). */
function parseBatch(out: Buffer): Map<string, { type: string; text: string }> {
  const objects = new Map<string, { type: string; text: string }>();
  let pos = 0;
  while (pos < out.length) {
    const nl = out.indexOf(0x0a, pos);
    if (nl < 0) break;
    const [id, type, size] = out.subarray(pos, nl).toString('utf8').split(' ');
    pos = nl + 1;
    if (type === 'missing' || type === 'ambiguous' || size === undefined) continue;
    const n = Number(size);
    objects.set(id, { type, text: out.subarray(pos, pos + n).toString('utf8') });
    pos += n + 1;
  }
  return objects;
}

/** The commits among `ids` (other object types and unknown ids are left out). */
export async function readCommits(gitDir: string, ids: string[]): Promise<Map<string, GitCommit>> {
  const result = new Map<string, GitCommit>();
  const unique = [...new Set(ids)].filter((id) => /^[0-9a-f]{40,64}$/.test(id));
  if (unique.length === 0) return result;
  const { stdout } = await runGit(['cat-file', '--batch'], { gitDir, input: `${unique.join('\n')}\n` });
  for (const [id, o] of parseBatch(stdout)) if (o.type === 'commit') result.set(id, parseCommit(id, o.text));
  return result;
}

/** The id a full ref name points at (not peeled), or null when the ref does not exist. */
export async function refId(gitDir: string, fullRef: string): Promise<string | null> {
  const r = await runGit(['show-ref', '--verify', '--hash', fullRef], { gitDir }).catch(() => null);
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
      commit: annotated ? peeled : type === 'commit' ? id : '', tagger: parseSignature(creator), message,
    });
  }
  return tags;
}

/** One tag by name, or null. */
export async function readTag(gitDir: string, name: string): Promise<GitTag | null> {
  return (await listTags(gitDir, `refs/tags/${name}`))[0] ?? null;
}
