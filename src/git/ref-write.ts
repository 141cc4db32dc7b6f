/**
 * Server-side ref writes in the object database: annotated tag objects made with `git mktag`, and
 * ref moves through one `git update-ref --stdin` transaction with the expected old values, so a
 * concurrent change makes the whole write fail instead of being overwritten.
 */
import { runGit, GitError } from './run';
import { ZERO_ID } from './refs';

/** One ref change: `old` is the expected current id (ZERO_ID: must not exist), `new` ZERO_ID deletes. */
export interface RefMove { ref: string; old: string; new: string }

/** A ref transaction failed because a ref was not at its expected value (or a name conflict). */
export class RefConflict extends Error {}

// why: only these say that another value or name is in the way; anything else (a directory that
// cannot be written, a full disk) is a failure of the storage and must not read "already exists".
const CONFLICT = /reference already exists|is at [0-9a-f]+ but expected|exists; cannot create|unable to resolve reference '[^']*'$|\.lock': File exists/m;

/** Run an update-ref; a refusal because of the refs' values or names becomes RefConflict, any other failure passes. */
export async function updateRefs(gitDir: string, args: string[], input?: string): Promise<void> {
  try {
    await runGit(['update-ref', ...args], { gitDir, input });
  } catch (err) {
    if (err instanceof GitError && CONFLICT.test(err.stderr)) throw new RefConflict(err.stderr.trim().split('\n')[0] ?? 'ref update failed');
    throw err;
  }
}

/** Apply all moves atomically or none; throws RefConflict when a ref is not at its old value or a name is in the way. */
export async function moveRefs(gitDir: string, moves: RefMove[]): Promise<void> {
  const lines = ['start'];
  for (const m of moves) {
    if (/[\s\0]/.test(m.ref) || !m.ref.startsWith('refs/')) throw new RefConflict(`invalid ref name ${JSON.stringify(m.ref)}`);
    lines.push(m.new === ZERO_ID ? `delete ${m.ref} ${m.old}` : `update ${m.ref} ${m.new} ${m.old}`);
  }
  lines.push('prepare', 'commit');
  await updateRefs(gitDir, ['--stdin'], `${lines.join('\n')}\n`);
}

/**
 * Set `ref` to what `srcRef` is in another repository on this storage, bringing its objects along
 * (a fork's branch into its parent as `refs/pull/<n>/head`). Fetching runs no hooks.
 */
export async function fetchRef(gitDir: string, fromDir: string, srcRef: string, ref: string): Promise<void> {
  await runGit(['fetch', '--quiet', '--no-tags', '--no-write-fetch-head', '--end-of-options', fromDir, `+${srcRef}:${ref}`], { gitDir });
}

/** Who makes a tag object. */
export interface Tagger { name: string; email: string }

const clean = (s: string) => s.replace(/[<>\0\r\n]/g, '').trim();

/** Clean up a message as `git tag -m` does for whitespace (trailing blanks, blank-line runs, final newline). */
export async function cleanMessage(message: string): Promise<string> {
  return (await runGit(['stripspace'], { input: message })).stdout.toString('utf8');
}

/** Write an annotated tag object for `commitId` named `name`; returns the tag object's id. */
export async function writeTagObject(gitDir: string, commitId: string, name: string, tagger: Tagger, message: string): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const body = await cleanMessage(message);
  const text = `object ${commitId}\ntype commit\ntag ${name}\ntagger ${clean(tagger.name) || 'unknown'} <${clean(tagger.email)}> ${now} +0000\n\n${body}`;
  return (await runGit(['mktag'], { gitDir, input: text })).stdout.toString().trim();
}

/** Is `name` a valid full ref name for git (`git check-ref-format`)? */
export async function validRefFormat(fullRef: string): Promise<boolean> {
  return runGit(['check-ref-format', fullRef]).then(() => true, () => false);
}
