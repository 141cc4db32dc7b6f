/**
 * Dialing only checked addresses: a host name is resolved once, its addresses are checked, and the
 * address that passed is the one dialed (or handed to git), so a DNS answer that changes between the
 * check and the connection (rebinding) never reaches a forbidden address.
 */
import dns from 'node:dns';
import net from 'node:net';

/** May `hostname` be reached at `ip`? */
export type AddressRule = (hostname: string, ip: string) => boolean;

/** The first address of `hostname` the rule allows, or the error `deny` makes of the first one found. */
export async function resolveAllowed(hostname: string, rule: AddressRule, deny: (host: string, ip: string) => Error): Promise<dns.LookupAddress> {
  const host = hostname.replace(/^\[(.*)\]$/, '$1');
  if (net.isIP(host)) {
    if (!rule(host, host)) throw deny(host, host);
    return { address: host, family: net.isIP(host) };
  }
  const list = await dns.promises.lookup(host, { all: true, verbatim: true });
  const ok = list.find((a) => rule(host, a.address));
  if (!ok) throw deny(host, list[0]?.address ?? '');
  return ok;
}

/** An http(s) Agent `lookup` that answers only an allowed address (the one then dialed). */
export function checkedLookup(hostname: string, rule: AddressRule, deny: (host: string, ip: string) => Error): net.LookupFunction {
  return (_name, options, callback) => {
    resolveAllowed(hostname, rule, deny).then((ok) => {
      if ((options as dns.LookupOptions).all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, [ok]);
      (callback as (e: null, a: string, f: number) => void)(null, ok.address, ok.family);
    }, (err: Error) => (callback as (e: Error | null, a: string, f: number) => void)(err, '', 0));
  };
}
