/**
 * Open nodegit repositories, kept per worker thread (opening one costs more than most reads).
 * why: libgit2 finds new packs and refs on disk by itself, so a cached handle stays correct after
 * pushes; the cache is bounded and least-recently-used handles are freed first.
 */
import NodeGit from 'nodegit';

const MAX_OPEN = 64;
const open = new Map<string, Promise<NodeGit.Repository>>();

/** The repository at `gitDir` (a bare repository path chosen by the server, never by a client). */
export function repository(gitDir: string): Promise<NodeGit.Repository> {
  const hit = open.get(gitDir);
  if (hit) {
    open.delete(gitDir);
    open.set(gitDir, hit);
    return hit;
  }
  const p = NodeGit.Repository.openBare(gitDir);
  p.catch(() => open.delete(gitDir));
  open.set(gitDir, p);
  if (open.size > MAX_OPEN) {
    const [oldest, repo] = open.entries().next().value as [string, Promise<NodeGit.Repository>];
    open.delete(oldest);
    void repo.then((r) => r.cleanup(), () => undefined);
  }
  return p;
}

/** Forget a repository (after it was deleted or moved). */
export function forget(gitDir: string): void {
  const p = open.get(gitDir);
  open.delete(gitDir);
  void p?.then((r) => r.cleanup(), () => undefined);
}
