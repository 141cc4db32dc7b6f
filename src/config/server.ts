/** [server] (Gitea's server.go and ssh.go): addresses, ports, the data dir, the SSH and LFS servers. */
import path from 'node:path';
import { section } from './spec';

/** [server]. */
export interface ServerSettings {
  rootUrl: string; httpAddr: string; httpPort: number; sshPort: number; sshListenPort: number;
  disableSsh: boolean; startSshServer: boolean; appDataPath: string; lfsStartServer: boolean;
  lfsMaxFileSize: number;
  /** Where the hooks of a push reach the internal API; by default the worker's own loopback listener. */
  localRootUrl: string;
  sshDomain: string; sshListenHost: string; sshUser: string;
  /** Host key files, relative to APP_DATA_PATH unless absolute; generated on first start when missing. */
  sshServerHostKeys: string[];
  /** Objects one LFS batch request may name (0 = no limit); more is a 413. */
  lfsMaxBatchSize: number;
  /** Seconds a stopping worker lets running clones, pushes and requests finish. */
  gracefulHammerTime: number;
}

/** [server]. */
export const serverSection = section<ServerSettings>('server', {
  ROOT_URL: { kind: 'url', def: '' },
  HTTP_ADDR: { kind: 'string', def: '0.0.0.0' },
  HTTP_PORT: { kind: 'int', def: '3000', min: 0, max: 65535 },
  SSH_PORT: { kind: 'int', def: '2222', min: 0, max: 65535 },
  SSH_LISTEN_PORT: { kind: 'int', def: '', min: 0, max: 65535 },
  DISABLE_SSH: { kind: 'bool', def: 'false' },
  START_SSH_SERVER: { kind: 'bool', def: 'true' },
  APP_DATA_PATH: { kind: 'string', def: 'data' },
  LFS_START_SERVER: { kind: 'bool', def: 'true' },
  LFS_MAX_FILE_SIZE: { kind: 'int', def: '0', min: 0, max: 1e15 },
  LOCAL_ROOT_URL: { kind: 'url', def: '' },
  SSH_DOMAIN: { kind: 'string', def: '' },
  SSH_LISTEN_HOST: { kind: 'string', def: '0.0.0.0' },
  SSH_USER: { kind: 'string', def: 'git' },
  SSH_SERVER_HOST_KEYS: { kind: 'list', def: 'ssh/forge.ed25519,ssh/forge.rsa', keepCase: true },
  LFS_MAX_BATCH_SIZE: { kind: 'int', def: '1000', min: 0, max: 1e7 },
  GRACEFUL_HAMMER_TIME: { kind: 'duration', def: '60s', min: 0, max: 86400 },
});

/**
 * Work out what [server] leaves to the forge: the absolute data dir (every other path is resolved
 * against it, so this runs first), the SSH listen port, ROOT_URL from the address, the SSH domain
 * from ROOT_URL, and the host key paths.
 */
export function resolveServer(server: ServerSettings): void {
  server.appDataPath = path.resolve(server.appDataPath);
  if (server.sshListenPort === undefined) server.sshListenPort = server.sshPort;
  if (!server.rootUrl) {
    const host = server.httpAddr === '0.0.0.0' || server.httpAddr === '' ? 'localhost' : server.httpAddr;
    server.rootUrl = `http://${host}:${server.httpPort}/`;
  }
  if (!server.rootUrl.endsWith('/')) server.rootUrl += '/';
  // why: empty means "this worker's private loopback listener" (src/server.ts sets it at start).
  if (server.localRootUrl && !server.localRootUrl.endsWith('/')) server.localRootUrl += '/';
  if (!server.sshDomain) server.sshDomain = new URL(server.rootUrl).hostname;
  server.sshServerHostKeys = server.sshServerHostKeys.map((k) => path.resolve(server.appDataPath, k));
}
