/**
 * The commit each merge style leaves the base branch at, built in the base repository's object
 * database (merge-tree, commit-tree; never a worktree), as git itself would make it:
 * - merge: a merge commit of base and head;
 * - squash: one commit on the base with the merged tree;
 * - rebase: the head's commits replayed on the base (authors kept, the merger as committer;
 *   commits that become empty are dropped, merge commits are not replayed), then a fast-forward;
 * - rebase-merge: that rebase, then a merge commit on the base;
 * - fast-forward-only: the head itself, when the base is its ancestor.
 */
import { HttpError } from '../../errors';
import { readCommits, type GitIdentity } from '../../git/history';
import { commitsToReplay, isAncestor, pickOnto, treeOf, tryMerge } from '../../git/merge';
import { checkNewObjects, commitTree, signsCommits, withQuarantine, type CommitPerson } from '../../git/tree-edit';
import { commitText, identLine, writeLooseObject } from '../../git/loose';

/** The styles that make commits (manually-merged makes none). */
export type GitMergeStyle = 'merge' | 'rebase' | 'rebase-merge' | 'squash' | 'fast-forward-only';

/** What a merge needs: the repository, both tips, the message and the people. */
export interface MergeInput {
  dir: string; base: string; head: string; message: string;
  /** The merger: committer of everything, author of merge commits. */
  doer: CommitPerson;
  /** The author of a squash commit. */
  squashAuthor: CommitPerson;
}

/** 409 for a merge git cannot make, naming the paths in conflict. */
function conflict(style: string, files: string[]): HttpError {
  return new HttpError(409, `${style} failed: the branches conflict in ${files.slice(0, 10).join(', ')}`);
}

/** A commit's author as a CommitPerson with its own time zone. */
function personOf(i: GitIdentity): CommitPerson {
  const zone = /([+-])(\d\d):(\d\d)$/.exec(i.date);
  return { name: i.name, email: i.email, date: new Date(i.date), offset: zone ? `${zone[1]}${zone[2]}${zone[3]}` : '+0000' };
}

/**
 * The head's commits replayed on the base, with the tree of the result; the head itself when the
 * base is already its ancestor. New objects go to `objects` (a quarantine); `check` runs git's
 * object checks once for the whole series.
 */
async function rebased(inp: MergeInput, style: string, objects: Record<string, string>, check: boolean): Promise<{ tip: string; tree: string }> {
  const { dir, base, head } = inp;
  if (await isAncestor(dir, base, head)) return { tip: head, tree: await treeOf(dir, head) };
  const commits = await readCommits(dir, await commitsToReplay(dir, base, head));
  let onto = base;
  let ontoTree = await treeOf(dir, base);
  for (const c of commits) {
    const picked = await pickOnto(dir, ontoTree, c.id, c.parents[0], objects);
    if (picked.conflicts.length) throw conflict(style, picked.conflicts);
    // why: as git rebase, a commit whose change the base already has is dropped.
    if (picked.tree === ontoTree) continue;
    // why: without a signature to make, the commit is written by the server itself (no git process per commit).
    onto = signsCommits()
      ? await commitTree(dir, picked.tree, [onto], c.message, personOf(c.author), inp.doer, objects, false)
      : await writeLooseObject(objects.GIT_OBJECT_DIRECTORY, 'commit', commitText(picked.tree, [onto], identLine(personOf(c.author)), identLine(inp.doer), c.message));
    ontoTree = picked.tree;
  }
  if (check && onto !== base) await checkNewObjects(dir, onto, [base], objects, true);
  return { tip: onto, tree: ontoTree };
}

/**
 * The commit the base branch moves to; 409 when git cannot merge the two. Everything is written
 * into a quarantine first and enters the repository once git's object checks passed.
 */
export async function mergedTip(style: GitMergeStyle, inp: MergeInput): Promise<string> {
  const { dir, base, head, message, doer } = inp;
  if (style === 'fast-forward-only') {
    if (!(await isAncestor(dir, base, head))) throw new HttpError(409, 'fast-forward-only merge is not possible: the base branch has commits the head branch does not');
    return head;
  }
  return withQuarantine(dir, async (objects) => {
    if (style === 'rebase') return (await rebased(inp, style, objects, true)).tip;
    if (style === 'rebase-merge') {
      const r = await rebased(inp, style, objects, false);
      return commitTree(dir, r.tree, [base, r.tip], message, doer, doer, objects, 'merged');
    }
    const trial = await tryMerge(dir, base, head, objects);
    if (trial.conflicts.length) throw conflict(style, trial.conflicts);
    if (style === 'merge') return commitTree(dir, trial.tree, [base, head], message, doer, doer, objects, 'merged');
    return commitTree(dir, trial.tree, [base], message, inp.squashAuthor, doer, objects, 'merged');
  });
}

/**
 * Bring the head up to date with the base (`/pulls/{index}/update`): `merge` makes a merge commit
 * of the base into the head (head first, as git merge run on the head branch), `rebase` replays
 * the head on the base. Returns the head's new commit.
 */
export async function updatedHead(style: 'merge' | 'rebase', inp: MergeInput): Promise<string> {
  if (style === 'rebase') return mergedTip('rebase', inp);
  const { dir, base, head, message, doer } = inp;
  return withQuarantine(dir, async (objects) => {
    const trial = await tryMerge(dir, head, base, objects);
    if (trial.conflicts.length) throw new HttpError(409, 'merge failed because of conflict');
    return commitTree(dir, trial.tree, [head, base], message, doer, doer, objects, 'merged');
  });
}

/** The author of a squash commit: the poster as one of the pull request's commits names them, else the poster's own identity. */
export async function squashAuthorOf(dir: string, base: string, head: string, posterEmails: string[], poster: CommitPerson): Promise<CommitPerson> {
  const emails = new Set(posterEmails.map((e) => e.toLowerCase()));
  const commits = await readCommits(dir, await commitsToReplay(dir, base, head));
  const own = commits.find((c) => emails.has(c.author.email.toLowerCase()));
  return own ? { ...personOf(own.author), date: poster.date, offset: poster.offset } : poster;
}
