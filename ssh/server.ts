/**
 * The built-in SSH server (ssh2) every worker runs beside HTTP when [server] START_SSH_SERVER is on
 * and DISABLE_SSH is off. Public-key authentication only, as [server] SSH_USER (git); the key must
 * be a registered user key of an active user, or a deploy key. Sessions are served by
 * ssh/session.ts; TCP/stream-local forwarding and global requests (remote forwarding) are refused
 * by ssh2 itself because no handler is registered for them ("administratively prohibited").
 */
import { Server, utils, type AuthContext, type Connection, type PublicKeyAuthContext } from 'ssh2';
import { settings } from '../src/config';
import { systemCtx } from '../src/db';
import { identifySshKey, markSshKeyUsed, type SshIdentity } from '../src/services/keys/ssh-auth.service';
import { log } from '../src/log';
import { loadHostKeys, type HostKey } from './host-keys';
import { handleSession } from './session';

/** A running SSH server. */
/**
 * Ciphers offered, without chacha20-poly1305. why: OpenSSH clients prefer chacha20 when offered, and
 * ssh2 computes its Poly1305 outside OpenSSL, which made SSH clones markedly slower than HTTP;
 * AES (GCM, or CTR with an HMAC) runs in OpenSSL with AES-NI.
 */
const CIPHERS: ('aes128-gcm@openssh.com' | 'aes256-gcm@openssh.com' | 'aes128-ctr' | 'aes192-ctr' | 'aes256-ctr')[] = [
  'aes128-gcm@openssh.com', 'aes256-gcm@openssh.com', 'aes128-ctr', 'aes192-ctr', 'aes256-ctr',
];

export interface SshServerHandle {
  /** The port it listens on. */
  port: number;
  hostKeys: HostKey[];
  /** Stop accepting, let running git commands finish, close idle connections; resolves when all are gone. */
  stop(): Promise<void>;
}

const AUTH_TIMEOUT_MS = 60_000;
const MAX_AUTH_FAILURES = 20;

interface Conn { client: Connection; active: number; authed: boolean; idle?: () => void }

/**
 * How long a connection idle at the stop may still start its command. why: a clone that connected
 * just before the stop still has its key exchange, key look-up and exec ahead; on a busy machine
 * (CI's two passes on two cores) that took over 2 s, and the clone was cut off.
 */
const STOP_GRACE_MS = 10_000;

async function verifyPublicKey(ctx: PublicKeyAuthContext): Promise<SshIdentity | null> {
  const identity = await identifySshKey(systemCtx, ctx.key.data);
  if (!identity) return null;
  // Without a signature the client only asks whether the key would do (RFC 4252 7); with one it proves possession.
  if (!ctx.signature) return identity;
  if (!ctx.blob) return null;
  const parsed = utils.parseKey(ctx.key.data);
  const key = Array.isArray(parsed) ? parsed[0] : parsed;
  if (!key || key instanceof Error) return null;
  return key.verify(ctx.blob, ctx.signature, ctx.hashAlgo) === true ? identity : null;
}

function onAuthentication(ctx: AuthContext, done: (id: SshIdentity) => void, failed: () => void): void {
  const refuse = () => {
    failed();
    ctx.reject(['publickey']);
  };
  if (ctx.method !== 'publickey') {
    // why: `none` is how every client asks which methods exist; it is not an attempt to count.
    if (ctx.method !== 'none') failed();
    ctx.reject(['publickey']);
    return;
  }
  if (ctx.username !== settings().server.sshUser) return refuse();
  verifyPublicKey(ctx).then((identity) => {
    if (!identity) return refuse();
    if (!ctx.signature) return ctx.accept();
    done(identity);
    markSshKeyUsed(systemCtx, identity).catch((err: unknown) => log.error('ssh: cannot record key use:', err));
    ctx.accept();
  }, (err: unknown) => {
    log.error('ssh: key lookup failed:', err);
    refuse();
  });
}

/** Start the SSH server on [server] SSH_LISTEN_HOST:SSH_LISTEN_PORT (or the given address). */
export async function startSshServer(opts: { host?: string; port?: number } = {}): Promise<SshServerHandle> {
  const s = settings().server;
  const hostKeys = await loadHostKeys(s.sshServerHostKeys);
  const conns = new Set<Conn>();
  let stopping = false;

  const server = new Server({ hostKeys: hostKeys.map((k) => k.pem), ident: 'Forge', keepaliveInterval: 15_000, keepaliveCountMax: 4, algorithms: { cipher: CIPHERS } }, (client, info) => {
    const conn: Conn = { client, active: 0, authed: false };
    conns.add(conn);
    if (stopping) client.end();
    let identity: SshIdentity | null = null;
    let failures = 0;
    const timer = setTimeout(() => { if (!conn.authed) client.end(); }, AUTH_TIMEOUT_MS);
    timer.unref();
    // why: a connection accepted before the stop may still be shaking hands or about to start its
    // command (a clone that connected a moment ago); it gets a moment to do so before it is ended.
    let grace: NodeJS.Timeout | null = null;
    const idle = () => {
      if (!stopping || conn.active > 0 || grace) return;
      grace = setTimeout(() => { grace = null; if (conn.active === 0) client.end(); else idle(); }, STOP_GRACE_MS);
      grace.unref();
    };
    conn.idle = idle;
    client.on('authentication', (ctx) => onAuthentication(ctx, (id) => { identity = id; }, () => {
      if (++failures >= MAX_AUTH_FAILURES) client.end();
    }));
    client.on('ready', () => {
      conn.authed = true;
      clearTimeout(timer);
      idle();
    });
    client.on('session', (accept) => {
      const session = accept();
      if (!session || !identity) return;
      handleSession(session, identity, {
        started: () => { conn.active++; },
        finished: () => { conn.active--; idle(); },
        remoteHost: info.ip,
      });
    });
    client.on('error', () => undefined);
    client.on('close', () => {
      clearTimeout(timer);
      conns.delete(conn);
    });
  });

  const host = opts.host ?? s.sshListenHost;
  const port = opts.port ?? s.sshListenPort;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.removeListener('error', reject);
      resolve();
    });
  });
  server.on('error', (err: Error) => log.error('ssh: server error:', err));
  const bound = (server.address() as { port: number } | null)?.port ?? port;

  return {
    port: bound,
    hostKeys,
    stop: () => new Promise<void>((resolve) => {
      stopping = true;
      server.close(() => resolve());
      // why: connections running git finish their command first; idle ones go after a moment's grace.
      for (const c of conns) c.idle?.();
    }),
  };
}
