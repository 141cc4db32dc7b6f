/**
 * Repositories for tests: made through the repository API (test/helpers/db.ts insertRepo), with a
 * bare repository where the server looks for it, and a git CLI runner with an isolated HOME.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import type { TestServer } from './server';
import { insertRepo } from './db';

/** What a git command produced. */
export interface GitResult { code: number; stdout: string; stderr: string }

/** A scratch HOME with an identity and no credential helpers or prompts. */
export function gitHome(): string {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'forge-git-home-'));
  fs.writeFileSync(path.join(home, '.gitconfig'), '[user]\n\tname = Tester\n\temail = tester@example.com\n[init]\n\tdefaultBranch = main\n[advice]\n\tdetachedHead = false\n');
  return home;
}

/** Run the git CLI (never throws; look at `code`). */
export function git(args: string[], opts: { cwd?: string; home: string; env?: Record<string, string> }): Promise<GitResult> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: opts.home, GIT_TERMINAL_PROMPT: '0', GIT_CONFIG_NOSYSTEM: '1', LANG: 'C', ...(opts.env ?? {}),
  };
  return new Promise((resolve) => {
    execFile('git', args, { cwd: opts.cwd, env, timeout: 120_000, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0;
      resolve({ code, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

/** Where the server keeps owner/name. */
export function serverRepoDir(server: TestServer, owner: string, name: string): string {
  return path.join(server.dataDir, 'repositories', owner.toLowerCase(), `${name.toLowerCase()}.git`);
}

/** An empty repository (API-made; `git init --bare` only when the server made no directory); returns its id. */
export async function makeRepo(server: TestServer, ownerId: number, owner: string, name: string, isPrivate = false): Promise<number> {
  const id = await insertRepo(server, ownerId, owner, name, isPrivate);
  const dir = serverRepoDir(server, owner, name);
  if (fs.existsSync(dir)) return id;
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  const r = await git(['init', '--quiet', '--bare', '--initial-branch=main', dir], { home: gitHome() });
  if (r.code !== 0) throw new Error(`git init failed: ${r.stderr}`);
  return id;
}
