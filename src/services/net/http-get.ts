/**
 * Reading a document or a file from another server (a remote ActivityPub actor, a source forge's
 * API, a release asset) by the migration rules: http or https only, the address actually dialed
 * checked (remote-address.ts), no redirects, a time limit for the whole exchange, and a cap on
 * the bytes kept or streamed.
 */
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { pipeline, Transform, type Readable } from 'node:stream';
import { settings } from '../../config';
import { checkedLookup } from './dial';
import { migrationAddressAllowed, RemoteAddressError } from './remote-address';

/** What came back. */
export interface FetchedDocument { status: number; headers: http.IncomingHttpHeaders; body: Buffer }

/** What came back, the body still to be read. */
export interface FetchedStream { status: number; headers: http.IncomingHttpHeaders; body: Readable }

/**
 * How to read: a GET, or a POST of `body` (an LFS batch request). `agent` keeps connections open
 * between the requests of one caller (a migration's many reads of one source); each connection is
 * still dialed through the checked lookup.
 */
export interface GetOptions { headers?: Record<string, string>; maxBytes: number; timeoutMs: number; body?: Buffer; agent?: http.Agent }

/** A document larger than the cap. */
export class DocumentTooLarge extends Error {}

/**
 * GET `url` (POST with `o.body`) by the migration rules and answer the response as it starts, its body to be read by
 * the caller: cut off past `maxBytes` or `timeoutMs` after the request began. Rejects with
 * RemoteAddressError for a refused address.
 */
export function guardedResponse(url: string, o: GetOptions): Promise<FetchedStream> {
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
    const req = (u.protocol === 'https:' ? https : http).request(u, {
      method: o.body ? 'POST' : 'GET', headers: o.headers, lookup, agent: o.agent ?? false, rejectUnauthorized: !settings().migrations.skipTlsVerify,
    }, (res) => {
      let size = 0;
      const capped = new Transform({
        transform(chunk: Buffer, _enc, done) {
          size += chunk.length;
          done(size > o.maxBytes ? new DocumentTooLarge(`the answer is larger than ${o.maxBytes} bytes`) : null, chunk);
        },
      });
      pipeline(res, capped, () => clearTimeout(timer));
      resolve({ status: res.statusCode ?? 0, headers: res.headers, body: capped });
    });
    // why: the whole exchange is bounded, so a server that trickles its answer cannot hold the caller.
    const timer = setTimeout(() => req.destroy(new Error('the server did not answer in time')), o.timeoutMs);
    req.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    req.end(o.body);
  });
}

/** GET (or POST) `url` by the migration rules and read the whole (capped) body. */
export async function guardedGet(url: string, o: GetOptions): Promise<FetchedDocument> {
  const res = await guardedResponse(url, o);
  const parts: Buffer[] = [];
  for await (const chunk of res.body as AsyncIterable<Buffer>) parts.push(chunk);
  return { status: res.status, headers: res.headers, body: Buffer.concat(parts) };
}
