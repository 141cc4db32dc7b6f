/**
 * Talking to other git servers: the clone of a migration, the fetch of a pull mirror, the push of a
 * push mirror. The caller has checked the address and chosen the IP to dial (services/net); here
 * git is held to it:
 * - only http and https (or, for an allowed local import, file), never redirected;
 * - the host name resolves to the checked address only (http.curloptResolve), so a DNS answer that
 *   changes after the check is never dialed;
 * - credentials travel as an Authorization header in the child's environment (GIT_CONFIG_*), never
 *   in a URL, so nothing of them reaches argv, the repository's config, FETCH_HEAD or git's messages;
 * - fetched objects are checked (fsck) as pushed ones are; the remote is never written to config.
 */
import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { settings } from '../config';
import { runGit } from './run';
import { configureRepo, removeRepoDir } from './init';

/** Where git connects: the URL without userinfo, and the address its host must resolve to (absent for a local path). */
export interface RemoteTarget {
  url: string;
  /** `host:port:ip` for curl's resolve list. */
  pin?: { host: string; port: number; ip: string };
  username?: string;
  password?: string;
  /** A local directory (site administrators with [security] IMPORT_LOCAL_PATHS). */
  local?: boolean;
}

/** Branches and tags, the refs a mirror carries. */
export const MIRROR_REFSPECS = ['+refs/heads/*:refs/heads/*', '+refs/tags/*:refs/tags/*'];

/** The `-c` options that keep git to the one checked server. */
function safetyArgs(t: RemoteTarget): string[] {
  const c = (kv: string) => ['-c', kv];
  const args = [
    ...c('protocol.allow=never'), ...c('protocol.https.allow=always'), ...c('protocol.http.allow=always'),
    ...c(`protocol.file.allow=${t.local ? 'always' : 'never'}`),
    ...c('http.followRedirects=false'), ...c('credential.helper='), ...c('core.askPass='),
    ...c('fetch.fsckObjects=true'), ...c('transfer.fsckObjects=true'),
    // why: a server that stalls below 1 KB/s for a minute is given up on, so a sync never holds its lane for the whole timeout.
    ...c('http.lowSpeedLimit=1024'), ...c('http.lowSpeedTime=60'),
  ];
  // why: an address literal is dialed as written; a name is pinned to the address that was checked.
  if (t.pin && !net.isIP(t.pin.host.replace(/^\[(.*)\]$/, '$1'))) {
    const ip = t.pin.ip.includes(':') ? `[${t.pin.ip}]` : t.pin.ip;
    args.push(...c(`http.curloptResolve=${t.pin.host}:${t.pin.port}:${ip}`));
  }
  if (settings().migrations.skipTlsVerify) args.push(...c('http.sslVerify=false'));
  return args;
}

// why: a migration or sync is not a read of its request; it runs to its own timeout even if the client leaves.
const DETACHED = new AbortController().signal;

/** The credential header, passed as command-scoped config in the environment. */
function credentialEnv(t: RemoteTarget): Record<string, string> {
  if (!t.username && !t.password) return {};
  // why: a token alone is sent as the password of `oauth2`, as Gitea writes token clone URLs.
  const basic = Buffer.from(`${t.username || 'oauth2'}:${t.password ?? ''}`).toString('base64');
  return { GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'http.extraHeader', GIT_CONFIG_VALUE_0: `Authorization: Basic ${basic}` };
}

/**
 * Clone the branches and tags of `t` into a new bare repository at `dir` (which must not exist),
 * configured as the server's own; HEAD follows the remote's. Leaves nothing behind on failure.
 */
export async function cloneRemote(t: RemoteTarget, dir: string): Promise<void> {
  await fs.mkdir(path.dirname(dir), { recursive: true });
  try {
    await runGit([...safetyArgs(t), 'clone', '--bare', '--no-local', '--quiet', '--end-of-options', t.url, dir], {
      env: credentialEnv(t), timeoutMs: settings().gitTimeout.migrate * 1000, signal: DETACHED,
    });
    // why: the server owns configuration; the source's address stays in the database only.
    await runGit(['config', '--remove-section', 'remote.origin'], { gitDir: dir }).catch(() => undefined);
    await configureRepo(dir);
  } catch (err) {
    await removeRepoDir(dir).catch(() => undefined);
    throw err;
  }
}

/** Fetch `refspecs` of `t` into the repository at `dir`; `prune` deletes the local refs the remote no longer has. */
export async function fetchRemote(dir: string, t: RemoteTarget, refspecs: string[], prune: boolean): Promise<void> {
  await runGit([...safetyArgs(t), 'fetch', '--quiet', '--no-write-fetch-head', ...(prune ? ['--prune'] : []), '--end-of-options', t.url, ...refspecs], {
    gitDir: dir, env: credentialEnv(t), timeoutMs: settings().gitTimeout.mirror * 1000, signal: DETACHED,
  });
}

/** Force-push every branch and tag of `dir` to `t`, deleting there what is gone here (a push mirror). */
export async function pushMirrorRemote(dir: string, t: RemoteTarget): Promise<void> {
  await runGit([...safetyArgs(t), 'push', '--quiet', '--force', '--prune', '--end-of-options', t.url, ...MIRROR_REFSPECS], {
    gitDir: dir, env: credentialEnv(t), timeoutMs: settings().gitTimeout.mirror * 1000, signal: DETACHED,
  });
}

/** The wiki beside a remote repository (`x.git` -> `x.wiki.git`), at the same address with the same credentials. */
export function wikiRemoteOf(t: RemoteTarget): RemoteTarget {
  const url = new URL(t.url);
  url.pathname = `${url.pathname.replace(/\/+$/, '').replace(/\.git$/, '')}.wiki.git`;
  return { ...t, url: url.href };
}

/** Does `t` answer as a git repository (for the wiki beside a migrated repository)? */
export async function remoteExists(t: RemoteTarget): Promise<boolean> {
  return runGit([...safetyArgs(t), 'ls-remote', '--heads', '--end-of-options', t.url], {
    env: credentialEnv(t), timeoutMs: 60_000, signal: DETACHED,
  }).then(() => true, () => false);
}
