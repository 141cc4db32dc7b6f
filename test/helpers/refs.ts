/**
 * Helpers for branch, tag and release tests: repositories made through the API, a working clone
 * to push from with the real git CLI, and reading refs straight from the server's bare repository.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { startWorld, type World, type TestUser } from './world';
import { git, gitHome, serverRepoDir, type GitResult } from './repo-fixture';
import { count } from './db';

/** A git CLI bound to one scratch HOME, with helpers for a world's repositories. */
export class GitTool {
  readonly home = gitHome();
  readonly tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'forge-refs-'));
  private n = 0;
  constructor(private readonly w: World) {}

  /** Run git; `cwd` optional. */
  run(args: string[], cwd?: string): Promise<GitResult> {
    return git(args, { cwd, home: this.home });
  }

  /** Run git and expect success. */
  async ok(args: string[], cwd?: string): Promise<string> {
    const r = await this.run(args, cwd);
    expect(r.code, `git ${args.join(' ')}: ${r.stderr}`).to.equal(0);
    return r.stdout.trim();
  }

  /** The clone URL of owner/repo with `u`'s token. */
  url(u: TestUser, owner: string, repo: string): string {
    return `http://${u.name}:${u.token}@${new URL(this.w.server.url).host}/${owner}/${repo}.git`;
  }

  /** A fresh clone of owner/repo as `u`. */
  async clone(u: TestUser, owner: string, repo: string): Promise<string> {
    const d = path.join(this.tmp, `c${++this.n}`);
    await this.ok(['clone', '-q', this.url(u, owner, repo), d]);
    return d;
  }

  /** Commit a file in a working copy; returns the commit id. */
  async commit(cwd: string, file: string, content: string, message = `change ${file}`): Promise<string> {
    fs.writeFileSync(path.join(cwd, file), content);
    await this.ok(['add', file], cwd);
    await this.ok(['commit', '-q', '-m', message], cwd);
    return this.ok(['rev-parse', 'HEAD'], cwd);
  }

  /** The id a ref has in the server's bare repository, or null. */
  async serverRef(owner: string, repo: string, ref: string): Promise<string | null> {
    const r = await this.run(['--git-dir', serverRepoDir(this.w.server, owner, repo), 'rev-parse', '--verify', '--quiet', ref]);
    return r.code === 0 ? r.stdout.trim() : null;
  }

  /** Every ref of the server's bare repository: "id ref" lines. */
  async serverRefs(owner: string, repo: string): Promise<string> {
    return (await this.run(['--git-dir', serverRepoDir(this.w.server, owner, repo), 'for-each-ref', '--format=%(objectname) %(refname)'])).stdout;
  }

  /** The "id ref" lines of the server's refs under `prefix` (e.g. refs/tags/), sorted. */
  async serverRefsUnder(owner: string, repo: string, prefix: string): Promise<string> {
    return (await this.serverRefs(owner, repo)).split('\n').filter((l) => l.includes(` ${prefix}`)).sort().join('\n');
  }

  /** git run inside the server's bare repository. */
  bare(owner: string, repo: string, args: string[]): Promise<string> {
    return this.ok(['--git-dir', serverRepoDir(this.w.server, owner, repo), ...args]);
  }
}

/** Create a repository for `u` through the API (auto_init makes `main` with a first commit). */
export async function apiRepo(w: World, u: TestUser, name: string, opts: Record<string, unknown> = { auto_init: true }): Promise<number> {
  const r = await w.raw('POST', '/user/repos', { name, ...opts }, { token: u.token });
  expect(r.status, r.text).to.equal(201);
  return r.body.id as number;
}

/** Wait until `fn` is true (pushes are processed asynchronously). */
export async function waitFor(what: string, fn: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await fn())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Wait until the outbox holds no pending or leased work. why: what a push queued (the ref sync,
 * then the pull request jobs and checks) runs after the push answers; a test reading its outcome
 * waits for it first.
 */
export function outboxSettled(w: World): Promise<void> {
  return waitFor('the outbox to settle', async () => (await count(w.server, "SELECT COUNT(*) AS n FROM outbox WHERE status IN ('pending', 'leased')")) === 0);
}

/** The world the ref tests share: users alice, bob and carol, alice/proj (auto-initialized) with carol as a writer. */
export interface RefsWorld { w: World; alice: TestUser; bob: TestUser; carol: TestUser; g: GitTool; main: string }

/** Start a forge and set up the RefsWorld. */
export async function startRefsWorld(): Promise<RefsWorld> {
  const w = await startWorld();
  const [alice, bob, carol] = [await w.user('alice'), await w.user('bob'), await w.user('carol')];
  const g = new GitTool(w);
  await apiRepo(w, alice, 'proj');
  const c = await w.raw('PUT', '/repos/alice/proj/collaborators/carol', { permission: 'write' }, { token: alice.token });
  expect(c.status, c.text).to.equal(204);
  return { w, alice, bob, carol, g, main: (await g.serverRef('alice', 'proj', 'refs/heads/main'))! };
}
