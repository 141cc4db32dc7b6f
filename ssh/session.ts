/**
 * One SSH session channel of an authenticated connection: the requests a session may carry and
 * what each does. Only an exec of the command grammar (ssh/command.ts) or a shell request (the
 * greeting) runs anything; pty, x11, agent forwarding and subsystems (sftp) are rejected, and an
 * `env` other than GIT_PROTOCOL makes the command fail with a message. git runs through the shared
 * service helpers, so SSH and HTTP authorize and spawn exactly alike.
 */
import crypto from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { ServerChannel, Session } from 'ssh2';
import { settings } from '../src/config';
import { systemCtx } from '../src/db';
import { HttpError } from '../src/errors';
import { authorizeGitService } from '../src/services/git-serve/git-access';
import { spawnGitService, type GitService } from '../src/services/git-serve/git-serve';
import { refreshSshIdentity, sshPrincipal, type SshIdentity } from '../src/services/keys/ssh-auth.service';
import { signLfsToken } from '../src/services/lfs/token';
import { log } from '../src/log';
import { logGitOperation, type GitOutcome, type LoggedPrincipal } from '../src/log/access';
import { writeInPackets } from './channel-writer';
import { CommandRefused, decideEnv, parseCommand, type SshCommand } from './command';

/** Callbacks the server uses to know when a connection is busy (for draining), and the client's address (for the log). */
export interface SessionHooks {
  started(): void;
  finished(): void;
  remoteHost?: string;
}

/** What the access line of a command says about who ran it, filled in as the command is authorized. */
interface Logged { principal: LoggedPrincipal; requestId: string }

function finish(channel: ServerChannel, code: number, stderr?: string): void {
  if (stderr) channel.stderr.write(stderr);
  channel.exit(code);
  channel.end();
}

/** Refuse with `<APP_NAME>: <reason>` on stderr and exit status 1. */
function fail(channel: ServerChannel, reason: string): void {
  finish(channel, 1, `${settings().appName}: ${reason.replace(/[\r\n]+/g, ' ')}\n`);
}

async function greet(channel: ServerChannel, identity: SshIdentity): Promise<GitOutcome> {
  const fresh = await refreshSshIdentity(systemCtx, identity);
  const app = settings().appName;
  const first = fresh.kind === 'deploy'
    ? `Hi there! You've successfully authenticated with the deploy key named ${fresh.keyName}, but ${app} does not provide shell access.`
    : `Hi there, ${fresh.userName}! You've successfully authenticated with the key named ${fresh.keyName}, but ${app} does not provide shell access.`;
  // why: Gitea prints these two lines on stderr and exits 0; scripts test keys this way.
  finish(channel, 0, `${first}\nIf this is unexpected, please log in with password and setup ${app} under another user.\n`);
  return { exitCode: 0 };
}

function serviceOf(cmd: Exclude<SshCommand, { kind: 'greeting' }>): GitService {
  if (cmd.kind === 'git') return cmd.service;
  // why: an LFS download needs read access to the code, an upload write access (Gitea's getAccessMode).
  return cmd.operation === 'upload' ? 'receive-pack' : 'upload-pack';
}

/** Connect git to the channel; `onEnd` hears how git ended. */
function pipeGit(channel: ServerChannel, child: ReturnType<typeof spawnGitService>, ac: AbortController, rid: string, onEnd: (o: GitOutcome) => void): void {
  const stdout = writeInPackets(child.stdout, channel);
  child.stderr.pipe(channel.stderr, { end: false });
  channel.pipe(child.stdin);
  child.stdin.on('error', () => undefined);
  // why: a client that goes away must not leave git running (it could hold a pack open for minutes).
  channel.once('close', () => { if (child.exitCode === null && child.signalCode === null) ac.abort(); });
  let ended = false;
  const end = (code: number | null, signal: NodeJS.Signals | null) => {
    if (ended) return;
    ended = true;
    onEnd({ exitCode: code, signal, aborted: ac.signal.aborted });
    // why: the exit status and EOF must follow the last output still waiting for the client's window.
    stdout.flushed(() => {
      if (code !== null) channel.exit(code);
      else channel.exit((signal ?? 'KILL').replace(/^SIG/, ''), false, 'git was stopped');
      channel.end();
    });
  };
  child.once('close', end);
  child.once('error', (err) => {
    if (child.pid !== undefined || ac.signal.aborted) return;
    log.error(`ssh: [${rid}] cannot start git: ${err.message}`);
    channel.stderr.write(`${settings().appName}: Failed to execute git command\n`);
    end(1, null);
  });
}

async function run(channel: ServerChannel, identity: SshIdentity, raw: string, gitProtocol: string | undefined, logged: Logged): Promise<GitOutcome> {
  const cmd = parseCommand(raw);
  if (cmd.kind === 'greeting') return greet(channel, identity);
  if (cmd.kind === 'lfs-authenticate' && !settings().server.lfsStartServer) throw new CommandRefused('LFS Server is not enabled');
  const principal = await sshPrincipal(systemCtx, identity, cmd.owner, cmd.repo);
  logged.principal = principal;
  const wiki = cmd.kind === 'git' && cmd.wiki === true;
  const rc = await authorizeGitService(systemCtx, principal, cmd.owner, cmd.repo, serviceOf(cmd), wiki, cmd.kind === 'lfs-authenticate');
  if (cmd.kind === 'lfs-authenticate') {
    const { token, expiresAt } = signLfsToken({
      repoId: rc.repo.id, userId: principal.user?.id ?? 0, deployKeyId: principal.deployKey?.id ?? 0, op: cmd.operation,
    });
    const href = `${settings().server.rootUrl}${encodeURIComponent(rc.owner.name)}/${encodeURIComponent(rc.repo.name)}.git/info/lfs`;
    const answer = { header: { Authorization: `Bearer ${token}` }, href, expires_at: expiresAt.toISOString().replace(/\.\d{3}Z$/, 'Z') };
    channel.write(`${JSON.stringify(answer)}\n`);
    finish(channel, 0);
    return { exitCode: 0 };
  }
  const ac = new AbortController();
  const child = spawnGitService(rc, principal, cmd.service, { transport: 'ssh', gitProtocol, signal: ac.signal, wiki });
  return new Promise((resolve) => pipeGit(channel, child, ac, logged.requestId, resolve));
}

/** The command, repository and LFS operation a command line names, for its access line (also when it is refused). */
function described(raw: string): { command: string; repo: string | null; operation?: string } {
  try {
    const c = parseCommand(raw);
    if (c.kind === 'greeting') return { command: 'shell', repo: null };
    if (c.kind === 'lfs-authenticate') return { command: 'git-lfs-authenticate', repo: `${c.owner}/${c.repo}`, operation: c.operation };
    return { command: `git-${c.service}`, repo: `${c.owner}/${c.repo}${c.wiki ? '.wiki' : ''}` };
  } catch {
    return { command: raw.trim().split(/\s+/)[0]?.slice(0, 64) || 'shell', repo: null };
  }
}

/** Serve one session channel of a connection authenticated as `identity`. */
export function handleSession(session: Session, identity: SshIdentity, hooks: SessionHooks): void {
  let gitProtocol: string | undefined;
  let refusal: string | null = null;
  session.on('env', (accept, reject, info) => {
    const d = decideEnv(info.key, info.val);
    if (d.action === 'use') {
      gitProtocol = d.gitProtocol;
      accept?.();
      return;
    }
    if (d.action === 'refuse') refusal ??= d.reason;
    reject?.();
  });
  // why: no terminal, no forwarding of any kind; these requests have no stderr, so they are simply rejected.
  session.on('pty', (_a, reject) => reject?.());
  session.on('x11', (_a, reject) => reject?.());
  session.on('auth-agent', (_a, reject) => reject?.());
  session.on('window-change', (_a, reject) => reject?.());
  session.on('signal', (_a, reject) => reject?.());
  session.on('sftp', (_a, reject) => reject?.());
  session.on('subsystem', (_a, reject) => reject?.());

  const start = (channel: ServerChannel | undefined, raw: string) => {
    if (!channel) return;
    channel.on('error', () => undefined);
    // why: a command counts as running until both sides closed its channel, so a stopping server
    // never ends a connection while output (held back by the client's window) is still on its way.
    hooks.started();
    channel.once('close', () => hooks.finished());
    // why: an SSH command has no HTTP request id; this one names it in its access line and its errors.
    const logged: Logged = {
      principal: identity.kind === 'user' ? { user: { name: identity.userName } } : { deployKey: { id: 0 } },
      requestId: crypto.randomUUID(),
    };
    const begun = { start: Date.now(), t0: performance.now() };
    const done = (outcome: GitOutcome) => logGitOperation({
      transport: 'ssh', ...described(raw), principal: logged.principal, remote: hooks.remoteHost, requestId: logged.requestId, ...begun, outcome,
    });
    if (refusal) {
      done({ refused: refusal });
      return fail(channel, refusal);
    }
    run(channel, identity, raw, gitProtocol, logged).then(done, (err: unknown) => {
      if (err instanceof HttpError && err.log) log.error(`ssh: [${logged.requestId}] ${raw}:`, err);
      if (err instanceof CommandRefused || err instanceof HttpError) {
        done({ refused: err.message });
        return fail(channel, err.message);
      }
      log.error(`ssh: [${logged.requestId}] command failed:`, err);
      done({ error: 'Internal Server Error' });
      fail(channel, 'Internal Server Error');
    });
  };
  session.on('shell', (accept) => start(accept(), ''));
  session.on('exec', (accept, _reject, info) => start(accept(), info.command));
}
