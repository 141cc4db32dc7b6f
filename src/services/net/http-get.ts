/**
 * Reading a document from another server (a remote ActivityPub actor, a source forge's API) by the
 * migration rules: http or https only, the address actually dialed checked (remote-address.ts),
 * no redirects, a time limit for the whole exchange and a cap on the bytes kept.
 */
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { settings } from '../../config';
import { checkedLookup } from './dial';
import { migrationAddressAllowed, RemoteAddressError } from './remote-address';

/** What came back. */
export interface FetchedDocument { status: number; headers: http.IncomingHttpHeaders; body: Buffer }

/** How to read. */
export interface GetOptions { headers?: Record<string, string>; maxBytes: number; timeoutMs: number }

/** A document larger than the cap. */
export class DocumentTooLarge extends Error {}

/** GET `url` by the migration rules; rejects with RemoteAddressError for a refused address, DocumentTooLarge past the cap. */
export function guardedGet(url: string, o: GetOptions): Promise<FetchedDocument> {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return Promise.reject(new RemoteAddressError('invalid', '(unparsable address)'));
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return Promise.reject(new RemoteAddressError('protocol', u.protocol.replace(/:$/, '')));
  const host = u.hostname.replace(/^\[(.*)\]$/, '$1');
  // why: an address literal is dialed without a lookup, so it is checked here.
  if (net.isIP(host) && !migrationAddressAllowed(host, host)) return Promise.reject(new RemoteAddressError('blocked', u.host));
  const lookup = checkedLookup(host, migrationAddressAllowed, () => new RemoteAddressError('blocked', u.host));
  return new Promise((resolve, reject) => {
    const req = (u.protocol === 'https:' ? https : http).get(u, {
      headers: o.headers, lookup, agent: false, rejectUnauthorized: !settings().migrations.skipTlsVerify,
    }, (res) => {
      const parts: Buffer[] = [];
      let size = 0;
      res.on('data', (d: Buffer) => {
        size += d.length;
        if (size > o.maxBytes) req.destroy(new DocumentTooLarge(`the document is larger than ${o.maxBytes} bytes`));
        else parts.push(d);
      });
      res.once('end', () => {
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(parts) });
      });
      res.once('error', reject);
    });
    // why: the whole exchange is bounded, so a server that trickles its answer cannot hold the caller.
    const timer = setTimeout(() => req.destroy(new Error('the server did not answer in time')), o.timeoutMs);
    req.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}
