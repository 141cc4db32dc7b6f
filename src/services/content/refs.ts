/**
 * Resolving the `ref` a content request names (a branch, a tag or a commit id, in that order, as
 * Gitea's ResolveRefCommit) to a commit of the repository.
 */
import { firstObject, objectInfo } from '../../git/objects';
import { isValidBranchName } from './paths';

/** What kind of name a ref was. */
export type RefKind = 'branch' | 'tag' | 'commit';

/** A resolved ref. */
export interface RefCommit {
  /** The ref as the caller wrote it (used in `url`/`self` links). */
  inputRef: string;
  kind: RefKind;
  /** Branch or tag name, or the commit id. */
  name: string;
  commitId: string;
}

const HEX = /^[0-9a-f]{7,64}$/;

/**
 * Resolve `ref` to a commit, or null when it names nothing. Branch and tag names are tried only when
 * well-formed, and an id only when it looks like one (`minHex` hex digits at least), so no user value
 * reaches git as anything but a plain ref name.
 */
export async function resolveRefCommit(gitDir: string, ref: string, minHex = 7): Promise<RefCommit | null> {
  const tries: { kind: RefKind; name: string; expr: string }[] = [];
  if (isValidBranchName(ref)) {
    tries.push({ kind: 'branch', name: ref, expr: `refs/heads/${ref}^{commit}` });
    tries.push({ kind: 'tag', name: ref, expr: `refs/tags/${ref}^{commit}` });
  }
  if (HEX.test(ref) && ref.length >= minHex) tries.push({ kind: 'commit', name: ref, expr: `${ref}^{commit}` });
  if (tries.length === 0) return null;
  // why: every expression is peeled to a commit, so whatever is found is one.
  const hit = await firstObject(gitDir, tries.map((t) => t.expr));
  if (!hit) return null;
  const t = tries[hit.index];
  return { inputRef: ref, kind: t.kind, name: t.kind === 'commit' ? hit.info.oid : t.name, commitId: hit.info.oid };
}

/** The commit a branch points at, or null. */
export async function branchHead(gitDir: string, branch: string): Promise<string | null> {
  if (!isValidBranchName(branch)) return null;
  const [hit] = await objectInfo(gitDir, [`refs/heads/${branch}^{commit}`]);
  return hit?.type === 'commit' ? hit.oid : null;
}

/** Go's url.PathEscape of one segment. */
export function pathEscape(seg: string): string {
  return encodeURIComponent(seg)
    .replace(/%(24|26|2B|3A|3D|40)/g, (m) => decodeURIComponent(m))
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** Gitea's PathEscapeSegments: each segment escaped, slashes kept. */
export function pathEscapeSegments(p: string): string {
  return p.split('/').map(pathEscape).join('/');
}

/** `branch/<name>`, `tag/<name>` or `commit/<id>`: how web links name the ref. */
export function refWebLinkPath(r: RefCommit): string {
  return `${r.kind}/${pathEscapeSegments(r.name)}`;
}
