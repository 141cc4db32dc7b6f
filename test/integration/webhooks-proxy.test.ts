/**
 * Deliveries through `[webhook] PROXY_URL`: a hook whose host matches `PROXY_HOSTS` is sent to the
 * proxy as an absolute-URL request (its name never resolved here, so it must be allowed by name);
 * other hosts are dialed directly.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { apiRepo, waitFor } from '../helpers/refs';

describe('webhooks: delivery through a proxy', () => {
  let w: World;
  let alice: TestUser;
  let proxy: http.Server;
  const seen: { url: string; event: string; host: string }[] = [];

  before(async () => {
    proxy = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        seen.push({ url: req.url ?? '', event: String(req.headers['x-gitea-event']), host: String(req.headers.host) });
        res.end('proxied');
      });
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const port = (proxy.address() as AddressInfo).port;
    w = await startWorld({
      env: {
        FORGE__WEBHOOK__ALLOWED_HOST_LIST: '*.proxied.test,loopback',
        FORGE__WEBHOOK__PROXY_URL: `http://127.0.0.1:${port}`,
        FORGE__WEBHOOK__PROXY_HOSTS: '*.proxied.test:*',
      },
    });
    alice = await w.user('alice');
    await apiRepo(w, alice, 'proj');
  });
  after(async () => {
    await w.stop();
    await new Promise((resolve) => proxy.close(resolve));
  });

  it('sends a matching host\'s delivery to the proxy, naming the whole URL', async () => {
    const made = await w.raw('POST', '/repos/alice/proj/hooks', { type: 'gitea', config: { url: 'http://hooks.proxied.test:8080/in?x=1', content_type: 'json' }, events: ['push'], active: true }, { token: alice.token });
    expect(made.status, made.text).to.equal(201);
    expect((await w.raw('POST', `/repos/alice/proj/hooks/${made.body.id}/tests`, undefined, { token: alice.token })).status).to.equal(204);
    await waitFor('the proxied delivery', async () => seen.length === 1);
    expect(seen[0]).to.deep.equal({ url: 'http://hooks.proxied.test:8080/in?x=1', event: 'push', host: 'hooks.proxied.test:8080' });
    let delivered: { status: string; response: { status: number; body: string } }[] = [];
    await waitFor('the delivery recorded', async () => {
      delivered = (await w.raw('GET', `/repos/alice/proj/hooks/${made.body.id}/deliveries`, undefined, { token: alice.token })).body;
      return delivered[0]?.status === 'delivered';
    });
    expect(delivered[0].response).to.deep.include({ status: 200, body: 'proxied' });
  });

  it('dials other hosts directly', async () => {
    const direct = http.createServer((_req, res) => res.end('direct'));
    await new Promise<void>((resolve) => direct.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(direct.address() as AddressInfo).port}/`;
      const made = await w.raw('POST', '/repos/alice/proj/hooks', { type: 'gitea', config: { url, content_type: 'json' }, events: ['push'], active: true }, { token: alice.token });
      expect((await w.raw('POST', `/repos/alice/proj/hooks/${made.body.id}/tests`, undefined, { token: alice.token })).status).to.equal(204);
      let body = '';
      await waitFor('the direct delivery', async () => {
        body = (await w.raw('GET', `/repos/alice/proj/hooks/${made.body.id}/deliveries`, undefined, { token: alice.token })).body[0]?.response?.body ?? '';
        return body !== '';
      });
      expect([body, seen.length]).to.deep.equal(['direct', 1]);
    } finally {
      await new Promise((resolve) => direct.close(resolve));
    }
  });
});
