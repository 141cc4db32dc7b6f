/**
 * Sending one delivery: the address actually dialed is checked against the host allow list (a
 * name is resolved once, checked, and that very address is dialed, so DNS rebinding cannot slip
 * in), redirects are followed only to allowed addresses (at most 10), the whole exchange is bounded
 * by `[webhook] DELIVER_TIMEOUT`, and at most 64 KB of the response body is kept. Hosts matching
 * `[webhook] PROXY_HOSTS` go through `PROXY_URL` (an HTTP proxy: plain requests for http, a CONNECT
 * tunnel for https); as Gitea, their name must then be allowed by the list, and the proxy itself is
 * always dialed.
 */
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import tls from 'node:tls';
import { hostAllowed, type HostMatchList } from '../net/host-matcher';
import { checkedLookup } from '../net/dial';

/** The most response body kept, in bytes. */
export const KEPT_RESPONSE_BYTES = 64 * 1024;
const MAX_REDIRECTS = 10;

/** What came back. */
export interface DeliveryResponse { status: number; headers: Record<string, string>; body: string }

/** The proxy of `[webhook] PROXY_URL` and the hosts (`host` or `host:port` globs) that use it. */
export interface ProxyRule { url: URL; hosts: RegExp[] }

/** How to send. */
export interface SendOptions { hosts: HostMatchList; timeoutMs: number; skipTlsVerify: boolean; proxy?: ProxyRule | null }

const httpAgent = new http.Agent({ keepAlive: true, maxSockets: 256 });
const httpsAgent = new https.Agent({ keepAlive: true, maxSockets: 256 });

/** A delivery refused before or while connecting; its message is what the history shows. */
export class DeliveryError extends Error {}

const deny = (host: string, ip: string) => new DeliveryError(`webhook can only call allowed HTTP servers (check your webhook.ALLOWED_HOST_LIST setting), deny '${host}(${ip})'`);

/** Open a CONNECT tunnel through `proxy` to `host:port`. */
function tunnel(proxy: URL, host: string, port: string, deadline: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: proxy.hostname, port: proxy.port || 80, method: 'CONNECT', path: `${host}:${port}`, headers: { Host: `${host}:${port}` } });
    const timer = setTimeout(() => req.destroy(new DeliveryError('timeout: the proxy did not answer in time')), Math.max(1, deadline - Date.now()));
    req.once('connect', (res, socket) => {
      clearTimeout(timer);
      if (res.statusCode === 200) resolve(socket);
      else {
        socket.destroy();
        reject(new DeliveryError(`proxy refused the tunnel: ${res.statusCode}`));
      }
    });
    req.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    req.end();
  });
}

/** Does `url` go through the proxy? Its name must then be allowed, as no address of it is dialed here. */
function viaProxy(url: URL, o: SendOptions): URL | null {
  if (!o.proxy || !o.proxy.hosts.some((g) => g.test(url.host))) return null;
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!hostAllowed(o.hosts, host, net.isIP(host) ? host : null)) throw new DeliveryError(`webhook can only call allowed HTTP servers (check your webhook.ALLOWED_HOST_LIST setting), deny '${url.host}'`);
  return o.proxy.url;
}

/** The options of the request for `url`: dialed directly (its address checked), through a tunnel, or to the proxy naming the whole URL. */
function requestOptions(url: URL, method: string, headers: Record<string, string>, o: SendOptions, proxy: URL | null, socket: net.Socket | null): https.RequestOptions {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const secure = url.protocol === 'https:';
  if (socket) return { method, headers, createConnection: () => tls.connect({ socket, servername: net.isIP(host) ? undefined : host, rejectUnauthorized: !o.skipTlsVerify }) };
  if (proxy) return { method, headers: { ...headers, Host: url.host }, host: proxy.hostname, port: proxy.port || 80, path: url.href, agent: false };
  return { method, headers, agent: secure ? httpsAgent : httpAgent, lookup: checkedLookup(host, (name, ip) => hostAllowed(o.hosts, name, ip), deny), rejectUnauthorized: !o.skipTlsVerify };
}

async function once(url: URL, method: string, headers: Record<string, string>, body: string | null, o: SendOptions, deadline: number): Promise<{ res: http.IncomingMessage; text: string }> {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const proxy = viaProxy(url, o);
  if (!proxy && net.isIP(host) && !hostAllowed(o.hosts, host, host)) throw deny(host, host);
  const secure = url.protocol === 'https:';
  const socket = proxy && secure ? await tunnel(proxy, url.hostname, url.port || '443', deadline) : null;
  const sized = body === null ? headers : { ...headers, 'Content-Length': String(Buffer.byteLength(body)) };
  const opts = requestOptions(url, method, sized, o, proxy, socket);
  return new Promise((resolve, reject) => {
    const onResponse = (res: http.IncomingMessage) => {
      const parts: Buffer[] = [];
      let kept = 0;
      res.on('data', (d: Buffer) => {
        if (kept < KEPT_RESPONSE_BYTES) parts.push(d.subarray(0, KEPT_RESPONSE_BYTES - kept));
        kept += d.length;
      });
      res.once('end', () => {
        clearTimeout(timer);
        resolve({ res, text: Buffer.concat(parts).toString('utf8') });
      });
      res.once('error', reject);
    };
    // why: a plain request through the proxy goes to the proxy's address; the others to the URL's.
    const req = proxy && !socket ? http.request(opts, onResponse) : (secure ? https : http).request(url, opts, onResponse);
    // why: the whole exchange is bounded, not each pause of it (a receiver that trickles its answer is cut off too).
    const timer = setTimeout(() => req.destroy(new DeliveryError('timeout: the receiver did not answer in time')), Math.max(1, deadline - Date.now()));
    req.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    req.end(body ?? undefined);
  });
}

/** Send a request; resolves with the final response (after allowed redirects), rejects with what went wrong. */
export async function send(r: { method: string; url: string; headers: Record<string, string>; body: string }, o: SendOptions): Promise<DeliveryResponse> {
  const deadline = Date.now() + o.timeoutMs;
  let url = new URL(r.url);
  let method = r.method;
  let body: string | null = r.body;
  let headers = r.headers;
  for (let hop = 0; ; hop++) {
    const { res, text } = await once(url, method, headers, body, o, deadline);
    const status = res.statusCode ?? 0;
    const location = res.headers.location;
    if (![301, 302, 303, 307, 308].includes(status) || !location || hop >= MAX_REDIRECTS) {
      const headers = Object.fromEntries(Object.entries(res.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : String(v ?? '')]));
      return { status, headers, body: text };
    }
    const next = new URL(location, url);
    // why: as Go's client, credentials are not carried to another host.
    if (next.host !== url.host) headers = Object.fromEntries(Object.entries(headers).filter(([k]) => k.toLowerCase() !== 'authorization'));
    url = next;
    // why: as browsers and Go's client, a 303 (and a 301/302 after a POST) continues as a GET without a body.
    if (status === 303 || ((status === 301 || status === 302) && method === 'POST')) {
      method = 'GET';
      body = null;
      headers = Object.fromEntries(Object.entries(headers).filter(([k]) => k.toLowerCase() !== 'content-type'));
    }
  }
}
