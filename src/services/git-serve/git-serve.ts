/**
 * Starting a git service (upload-pack, receive-pack, upload-archive) for an authorized caller. HTTP
 * and SSH both come through here, so the server-owned hooks always learn who pushes to which
 * repository and how to reach this node's internal API.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { settings } from '../../config';
import { missingRepo, spawnGit, type GitChild } from '../../git/run';
import { repoPath } from '../../git/paths';
import type { Principal } from '../auth/principal';
import { recordPush } from './hook.service';
import type { RepoContext } from '../repo/context';
import { LEAN_NODE_FLAGS } from '../../git/launcher';

/** The git services a client may run. */
export type GitService = 'upload-pack' | 'receive-pack' | 'upload-archive';

/** How the client reached us (recorded with the push). */
export type GitTransport = 'http' | 'ssh';

/** The compiled hook program (src/hook.ts) the repository hooks exec. */
const HOOK_SCRIPT = path.resolve(__dirname, '../../hook.js');

/**
 * The environment git hands to the repository hooks. why: the hook scripts in the repositories are
 * static and contain no paths or secrets; a push that does not come through the server has none of
 * these variables and the hooks refuse it (fail closed).
 */
export function hookEnv(rc: RepoContext, p: Principal, transport: GitTransport, wiki = false): Record<string, string> {
  const s = settings();
  return {
    FORGE_HOOK_NODE: process.execPath,
    // why: the hooks run under git's data limit (src/git/launcher.ts, LEAN_NODE_FLAGS).
    ...(LEAN_NODE_FLAGS.length ? { NODE_OPTIONS: LEAN_NODE_FLAGS.join(' ') } : {}),
    FORGE_HOOK_SCRIPT: HOOK_SCRIPT,
    FORGE_INTERNAL_URL: s.server.localRootUrl || `http://127.0.0.1:${s.server.httpPort}/`,
    FORGE_INTERNAL_TOKEN: s.security.internalToken,
    FORGE_REPO_ID: String(rc.repo.id),
    FORGE_PUSHER_ID: String(p.user?.id ?? 0),
    FORGE_DEPLOY_KEY_ID: String(p.deployKey?.id ?? 0),
    FORGE_ACTIONS_TASK_ID: String(p.actionsTask?.id ?? 0),
    FORGE_PUSH_TRANSPORT: transport,
    // why: a wiki push reaches the same repository id; the hooks must know it is not the code repository.
    FORGE_REPO_KIND: wiki ? 'wiki' : 'code',
  };
}

/** Options of one service run. */
export interface ServeOptions {
  transport: GitTransport;
  /** The client's protocol request (Git-Protocol header or GIT_PROTOCOL env); validated by the git helper. */
  gitProtocol?: string;
  /** Aborts (kills git) when the client goes away. */
  signal?: AbortSignal;
  /** Extra flags before the repository argument, e.g. --stateless-rpc. */
  flags?: string[];
  /** Serve the repository's wiki (`<repo>.wiki.git`) instead of its code. */
  wiki?: boolean;
}

/**
 * Spawn `git <service> [flags] <repo dir>` for an already authorized caller; throws RepoUnavailable
 * when the repository's directory is gone (the database knows it, the storage does not).
 */
export function spawnGitService(rc: RepoContext, p: Principal, service: GitService, opts: ServeOptions): GitChild {
  const dir = repoPath(rc.owner.name, rc.repo.name, opts.wiki);
  if (!fs.existsSync(dir)) throw missingRepo(dir);
  const env = service === 'receive-pack' ? hookEnv(rc, p, opts.transport, opts.wiki) : {};
  // why: the repository is the positional directory argument (git resolves `.` against cwd, not --git-dir).
  // why: a clone of a large repository over a slow link may take hours; git dies with its client (signal), not on a clock.
  // why: git itself refuses a pack beyond [repository] MAX_PUSH_SIZE while receiving it, before it is stored.
  const maxPush = settings().repository.maxPushSize;
  const config = service === 'receive-pack' && maxPush > 0 ? ['-c', `receive.maxInputSize=${maxPush * 1024 * 1024}`] : [];
  // why: the AGit flow. Pushes to refs/for/* go to the proc-receive hook, which opens or updates a pull request instead of a ref; push options carry its topic, title and description.
  if (service === 'receive-pack' && !opts.wiki) config.push('-c', 'receive.procReceiveRefs=refs/for', '-c', 'receive.advertisePushOptions=true');
  // why: post-receive writes the refs git updated to this file; the push is recorded from it once
  // git exits and before the client hears the end, so a finished push is always in the outbox. A
  // wiki push records nothing (its only state is its git refs).
  const pushes = service === 'receive-pack' && !opts.wiki && !opts.flags?.includes('--advertise-refs');
  const pushFile = pushes ? path.join(os.tmpdir(), `forge-push-${crypto.randomUUID()}`) : null;
  if (pushFile) env.FORGE_PUSH_FILE = pushFile;
  const child = spawnGit([...config, service, ...(opts.flags ?? []), dir], { cwd: dir, signal: opts.signal, gitProtocol: opts.gitProtocol, env, timeoutMs: 24 * 3600_000 });
  if (pushFile) {
    const pusher = { repoId: rc.repo.id, pusherId: p.user?.id ?? 0, transport: opts.transport };
    child.afterExit = () => recordPush(pushFile, pusher).catch((err: Error) => {
      console.error(`recording a push to ${rc.owner.name}/${rc.repo.name} failed (the reconciler will find it): ${err.message}`);
    });
  }
  return child;
}
