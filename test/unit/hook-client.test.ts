/**
 * Sending deliveries to real local HTTP servers: allowed under `loopback`, refused under the default
 * (for an address literal and for a name that resolves to loopback), a redirect to a forbidden
 * address refused, a redirect to another host without the Authorization header, a slow receiver
 * cut off at the deadline, and at most 64 KB of an answer kept.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { parseHostList } from '../../src/services/net/host-matcher';
import { KEPT_RESPONSE_BYTES, send } from '../../src/services/webhook/client';

describe('webhook client', () => {
  let server: http.Server;
  let base: string;
  const seen: { url: string; method: string; auth?: string; body: string }[] = [];
  const loopback = { hosts: parseHostList('loopback'), timeoutMs: 2000, skipTlsVerify: false };
  const post = (url: string, headers: Record<string, string> = {}) => ({ method: 'POST', url, headers: { 'Content-Type': 'application/json', ...headers }, body: '{"a":1}' });

  before(async () => {
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (d) => { body += d; });
      req.on('end', () => {
        seen.push({ url: req.url ?? '', method: req.method ?? '', auth: req.headers.authorization, body });
        if (req.url === '/big') return res.end('x'.repeat(KEPT_RESPONSE_BYTES + 1000));
        if (req.url === '/slow') return void setTimeout(() => res.end('late'), 1500);
        if (req.url === '/to-metadata') return res.writeHead(302, { Location: 'http://169.254.169.254/latest' }).end();
        if (req.url === '/to-localhost') return res.writeHead(307, { Location: `http://localhost:${(server.address() as AddressInfo).port}/landed` }).end();
        res.writeHead(201, { 'X-Answer': 'yes' }).end('ok');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((r) => server.close(() => r())));

  it('delivers to an allowed address and keeps the answer', async () => {
    const r = await send(post(`${base}/hook`), loopback);
    expect([r.status, r.body, r.headers['x-answer']]).to.deep.equal([201, 'ok', 'yes']);
    expect(seen.at(-1)).to.deep.include({ url: '/hook', method: 'POST', body: '{"a":1}' });
  });

  it('refuses loopback under the default list, by address and by name', async () => {
    const d = { ...loopback, hosts: parseHostList('') };
    const before = seen.length;
    for (const url of [`${base}/x`, base.replace('127.0.0.1', 'localhost') + '/x', base.replace('127.0.0.1', '[::ffff:127.0.0.1]') + '/x']) {
      let err: Error | null = null;
      try { await send(post(url), d); } catch (e) { err = e as Error; }
      expect(err?.message, url).to.match(/^webhook can only call allowed HTTP servers \(check your webhook.ALLOWED_HOST_LIST setting\), deny '/);
    }
    expect(seen.length).to.equal(before);
  });

  it('follows redirects only to allowed addresses, and carries no credentials to another host', async () => {
    let err: Error | null = null;
    try { await send(post(`${base}/to-metadata`), loopback); } catch (e) { err = e as Error; }
    expect(err?.message).to.include("deny '169.254.169.254(169.254.169.254)'");
    const r = await send(post(`${base}/to-localhost`, { Authorization: 'Bearer secret' }), loopback);
    expect(r.status).to.equal(201);
    expect(seen.at(-1)).to.deep.include({ url: '/landed', method: 'POST', auth: undefined, body: '{"a":1}' });
  });

  it('cuts off a slow receiver at the deadline and keeps at most 64 KB of an answer', async () => {
    let err: Error | null = null;
    try { await send(post(`${base}/slow`), { ...loopback, timeoutMs: 300 }); } catch (e) { err = e as Error; }
    expect(err?.message).to.equal('timeout: the receiver did not answer in time');
    expect((await send(post(`${base}/big`), loopback)).body.length).to.equal(KEPT_RESPONSE_BYTES);
  });
});
