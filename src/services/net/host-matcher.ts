/**
 * Which hosts a webhook may call (`[webhook] ALLOWED_HOST_LIST`, Gitea's hostmatcher): a comma list
 * of builtins (`external`, `private`, `loopback`), CIDRs and host globs (`*.example.com`,
 * `192.168.100.*`, `*`). A host is allowed when its name or the address actually dialed matches a
 * glob, or the address is in a CIDR or in a builtin's ranges. `external` is a global unicast
 * address that is not private (Go's net.IP rules, which Gitea uses).
 */
import net from 'node:net';

/** A parsed allow list. */
export interface HostMatchList { builtins: Set<string>; cidrs: net.BlockList; hasCidrs: boolean; globs: RegExp[] }

const BUILTINS = new Set(['external', 'private', 'loopback']);

/** A glob as filepath.Match reads it (`*` any run, `?` one character, `[...]` a class), matched whole, any case. */
export function globRegExp(glob: string): RegExp {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*') out += '.*';
    else if (c === '?') out += '.';
    else if (c === '[') {
      const end = glob.indexOf(']', i + 1);
      if (end < 0) { out += '\\['; continue; }
      const body = glob.slice(i + 1, end).replace(/\\/g, '\\\\');
      out += `[${body.startsWith('^') ? `^${body.slice(1)}` : body}]`;
      i = end;
    } else out += c.replace(/[.+^${}()|\\]/g, '\\$&');
  }
  return new RegExp(`^${out}$`, 'i');
}

/** Parse the setting; empty means `external`, Gitea's default. */
export function parseHostList(setting: string): HostMatchList {
  const list: HostMatchList = { builtins: new Set(), cidrs: new net.BlockList(), hasCidrs: false, globs: [] };
  const items = setting.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);
  for (const item of items.length ? items : ['external']) {
    const cidr = /^(.+)\/(\d{1,3})$/.exec(item);
    const family = cidr ? net.isIP(cidr[1]) : 0;
    if (cidr && family && Number(cidr[2]) <= (family === 4 ? 32 : 128)) {
      list.cidrs.addSubnet(cidr[1], Number(cidr[2]), family === 4 ? 'ipv4' : 'ipv6');
      list.hasCidrs = true;
    } else if (BUILTINS.has(item)) list.builtins.add(item);
    else list.globs.push(globRegExp(item));
  }
  return list;
}

/** An address as Go sees it: an IPv4-mapped IPv6 address is its IPv4 address. */
export function plainAddress(ip: string): string {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  return m ? m[1] : ip;
}

const ranges = (subnets: [string, number][]): net.BlockList => {
  const b = new net.BlockList();
  for (const [a, p] of subnets) b.addSubnet(a, p, net.isIP(a) === 4 ? 'ipv4' : 'ipv6');
  return b;
};
const PRIVATE = ranges([['10.0.0.0', 8], ['172.16.0.0', 12], ['192.168.0.0', 16], ['fc00::', 7]]);
const LOOPBACK = ranges([['127.0.0.0', 8], ['::1', 128]]);
// why: Go's IsGlobalUnicast is false for these (and for the unspecified address and broadcast).
const NOT_GLOBAL = ranges([['127.0.0.0', 8], ['::1', 128], ['169.254.0.0', 16], ['fe80::', 10], ['224.0.0.0', 4], ['ff00::', 8], ['255.255.255.255', 32], ['0.0.0.0', 32], ['::', 128]]);

function inList(b: net.BlockList, ip: string): boolean {
  return b.check(ip, net.isIP(ip) === 4 ? 'ipv4' : 'ipv6');
}

/** May a webhook call `hostname`, connecting to `ip` (the address dialed; null when only the name is known)? */
export function hostAllowed(list: HostMatchList, hostname: string, ip: string | null): boolean {
  const name = hostname.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  if (list.globs.some((g) => g.test(name))) return true;
  if (ip === null) return false;
  const addr = plainAddress(ip);
  if (!net.isIP(addr)) return false;
  if (list.globs.some((g) => g.test(addr))) return true;
  if (list.builtins.has('loopback') && inList(LOOPBACK, addr)) return true;
  if (list.builtins.has('private') && inList(PRIVATE, addr)) return true;
  if (list.builtins.has('external') && !inList(NOT_GLOBAL, addr) && !inList(PRIVATE, addr)) return true;
  return list.hasCidrs && inList(list.cidrs, addr);
}
