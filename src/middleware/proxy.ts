/**
 * Which peers are reverse proxies (security class 24): `[security] REVERSE_PROXY_TRUSTED_PROXIES`
 * (CIDRs, default loopback) up to `REVERSE_PROXY_LIMIT` hops. Only their `X-Forwarded-*` reach
 * `req.ip`/`req.protocol` (Express's `trust proxy`), and only their `X-WEBAUTH-USER` may sign a
 * browser in.
 */
import net from 'node:net';
import type { Request } from 'express';
import { settings } from '../config';
import { ConfigError } from '../config';

let trusted: net.BlockList | null = null;

function trustedList(): net.BlockList {
  if (trusted) return trusted;
  const list = new net.BlockList();
  for (const entry of settings().security.reverseProxyTrustedProxies) {
    const [addr, bits] = entry.split('/');
    const family = net.isIP(addr);
    const prefix = bits === undefined ? (family === 4 ? 32 : 128) : Number(bits);
    if (!family || !Number.isInteger(prefix) || prefix < 0 || prefix > (family === 4 ? 32 : 128)) {
      throw new ConfigError(`[security] REVERSE_PROXY_TRUSTED_PROXIES: "${entry}" is not an address or CIDR`);
    }
    list.addSubnet(addr, prefix, family === 4 ? 'ipv4' : 'ipv6');
  }
  trusted = list;
  return list;
}

/** Is this peer address a trusted proxy? */
export function isTrustedProxy(addr: string | undefined): boolean {
  if (!addr) return false;
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(addr);
  const ip = m ? m[1] : addr;
  const family = net.isIP(ip);
  return family !== 0 && trustedList().check(ip, family === 4 ? 'ipv4' : 'ipv6');
}

/** Express's `trust proxy` function: the hops nearest the server, while they are trusted proxies. */
export function trustProxy(addr: string, hop: number): boolean {
  return hop < settings().security.reverseProxyLimit && isTrustedProxy(addr);
}

/** The user a trusted proxy vouches for (X-WEBAUTH-USER), when reverse-proxy authentication is on. */
export function proxyAuthenticatedName(req: Request): string | null {
  const s = settings();
  if (!s.service.enableReverseProxyAuthentication || !isTrustedProxy(req.socket.remoteAddress)) return null;
  const v = req.headers[s.security.reverseProxyAuthenticationUser.toLowerCase()];
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : null;
}
