/**
 * The addresses a migration, a pull mirror or a push mirror may reach (Gitea's IsMigrateURLAllowed,
 * made stricter): http and https only; no control characters and no leading `-` anywhere; the host's
 * resolved address must be a public one unless `[migrations] ALLOW_LOCALNETWORKS` allows private
 * and loopback ranges; `BLOCKED_DOMAINS` refuses and a non-empty `ALLOWED_DOMAINS` limits, by host
 * name or address glob. Local directories only for whoever may import them. Run again before every
 * sync and push: the answer names the address git must dial.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { settings, type MigrationsSettings } from '../../config';
import type { RemoteTarget } from '../../git/remote';
import { globRegExp, hostAllowed, parseHostList, plainAddress } from './host-matcher';
import { resolveAllowed } from './dial';
import { addressWithoutUserinfo } from '../../models/mirror.model';

/** Why an address was refused (the API words each as Gitea does). */
export type RemoteAddressProblem = 'invalid' | 'protocol' | 'local-denied' | 'local-invalid' | 'blocked';

/** A refused address; `shown` is what the message may name (never its credentials). */
export class RemoteAddressError extends Error {
  constructor(readonly problem: RemoteAddressProblem, readonly shown: string) {
    super(`${problem}: ${shown}`);
  }
}

const EXTERNAL = parseHostList('external');
const LOCAL = parseHostList('private,loopback');

interface Compiled { allowed: RegExp[]; blocked: RegExp[] }
const compiled = new WeakMap<MigrationsSettings, Compiled>();

function rules(m: MigrationsSettings): Compiled {
  let c = compiled.get(m);
  if (!c) compiled.set(m, (c = { allowed: m.allowedDomains.map(globRegExp), blocked: m.blockedDomains.map(globRegExp) }));
  return c;
}

/**
 * May a migration or mirror reach `hostname` at `ip`? why: unlike Gitea, a host named in
 * ALLOWED_DOMAINS is still refused when it resolves to a private or loopback address that
 * ALLOW_LOCALNETWORKS does not allow: the address dialed decides, not the name.
 */
export function migrationAddressAllowed(hostname: string, ip: string): boolean {
  const m = settings().migrations;
  const { allowed, blocked } = rules(m);
  const name = hostname.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  const addr = plainAddress(ip);
  if (blocked.some((g) => g.test(name) || g.test(addr))) return false;
  if (!hostAllowed(EXTERNAL, '', addr) && !(m.allowLocalnetworks && hostAllowed(LOCAL, '', addr))) return false;
  return allowed.length === 0 || allowed.some((g) => g.test(name) || g.test(addr));
}

// why: CR, LF and NUL (written or percent-encoded) split git's and curl's protocol lines.
const CONTROL = /[\0\r\n]|%0[0ad]/i;

/** Who asks, with the credentials given beside the address (they win over userinfo in it, as in Gitea). */
export interface RemoteAddressOptions { username?: string; password?: string; canImportLocal: boolean }

/** A local directory, for those who may import one. */
async function localTarget(raw: string, canImportLocal: boolean): Promise<RemoteTarget> {
  if (!canImportLocal) throw new RemoteAddressError('local-denied', raw);
  const dir = raw.startsWith('file:') ? decodeURIComponent(new URL(raw).pathname) : raw;
  const st = path.isAbsolute(dir) ? await fs.stat(dir).catch(() => null) : null;
  if (!st?.isDirectory()) throw new RemoteAddressError('local-invalid', raw);
  return { url: dir, local: true };
}

/**
 * Check `raw` and resolve its host: the target git may use (URL without userinfo, the address to
 * dial, the credentials), or RemoteAddressError.
 */
export async function checkRemoteAddress(raw: string, o: RemoteAddressOptions): Promise<RemoteTarget> {
  const text = raw.trim();
  if (text === '' || text.startsWith('-') || CONTROL.test(text)) throw new RemoteAddressError('invalid', addressWithoutUserinfo(text) || '(unparsable address)');
  if (text.startsWith('/') || /^file:/i.test(text)) return localTarget(text, o.canImportLocal);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new RemoteAddressError('invalid', '(unparsable address)');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new RemoteAddressError('protocol', url.protocol.replace(/:$/, ''));
  const shown = addressWithoutUserinfo(text);
  if (!url.hostname || url.hostname.startsWith('-')) throw new RemoteAddressError('invalid', shown);
  const username = o.username || decodeURIComponent(url.username);
  const password = o.password || decodeURIComponent(url.password);
  if (CONTROL.test(username) || CONTROL.test(password)) throw new RemoteAddressError('invalid', shown);
  url.username = '';
  url.password = '';
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const found = await resolveAllowed(host, migrationAddressAllowed, () => new RemoteAddressError('blocked', url.host))
    .catch((err: unknown) => {
      // why: a name that does not resolve is refused like a forbidden one (Gitea's rule), without telling which.
      throw err instanceof RemoteAddressError ? err : new RemoteAddressError('blocked', url.host);
    });
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  return { url: url.href, pin: { host, port, ip: found.address }, username, password };
}
