/**
 * How far each of several commits is ahead of and behind one base commit (the branches page's
 * counts), by libgit2's graph walk in the worker thread: one task for a page of branches instead
 * of a git process per branch.
 */
import NodeGit from 'nodegit';
import { repository } from '../repo-cache';

/** `[ahead, behind]` of each commit in `heads` against `base` (full commit ids), in order; null for one that cannot be read. */
export async function aheadBehind(arg: { gitDir: string; base: string; heads: string[] }): Promise<([number, number] | null)[]> {
  const repo = await repository(arg.gitDir);
  const base = NodeGit.Oid.fromString(arg.base);
  const out: ([number, number] | null)[] = [];
  for (const head of arg.heads) {
    try {
      const r = (await NodeGit.Graph.aheadBehind(repo, NodeGit.Oid.fromString(head), base)) as unknown as { ahead: number; behind: number };
      out.push([r.ahead, r.behind]);
    } catch {
      out.push(null);
    }
  }
  return out;
}
