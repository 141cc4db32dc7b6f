/**
 * Server-side request forgery through webhooks, under the default `[webhook] ALLOWED_HOST_LIST`
 * (external): every spelling of a loopback, unspecified or link-local target is refused when a
 * hook is saved, on creation and on edit, with a clear 422 and nothing stored or changed.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { apiRepo } from '../helpers/refs';

describe('webhooks: the default host list refuses internal targets', () => {
  let w: World;
  let alice: TestUser;
  let local: http.Server;
  let port = 0;

  before(async () => {
    w = await startWorld();
    alice = await w.user('alice');
    await apiRepo(w, alice, 'proj');
    local = http.createServer((_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => local.listen(0, '127.0.0.1', resolve));
    port = (local.address() as AddressInfo).port;
  });
  after(async () => {
    await w.stop();
    await new Promise((resolve) => local.close(resolve));
  });

  const hook = (url: string) => ({ type: 'gitea', config: { url, content_type: 'json' }, events: ['push'], active: true });

  it('refuses loopback, unspecified and link-local addresses in every spelling, and a name that resolves to loopback', async () => {
    const targets = [
      `http://127.0.0.1:${port}/`, `http://[::ffff:127.0.0.1]:${port}/`, `http://0:${port}/`, `http://2130706433:${port}/`,
      'http://169.254.169.254/latest/meta-data/', `http://[::1]:${port}/`, `http://localhost:${port}/`, `http://0x7f000001:${port}/`,
    ];
    for (const url of targets) {
      const r = await w.raw('POST', '/repos/alice/proj/hooks', hook(url), { token: alice.token });
      expect(r.status, url).to.equal(422);
      expect(r.body.message, url).to.match(/^webhook can only call allowed HTTP servers \(check your webhook\.ALLOWED_HOST_LIST setting\), deny '/);
    }
    expect((await w.raw('GET', '/repos/alice/proj/hooks', undefined, { token: alice.token })).body).to.deep.equal([]);
    expect((await w.raw('POST', '/admin/hooks', hook(`http://127.0.0.1:${port}/`), { token: w.admin.token })).status).to.equal(422);
  });

  it('refuses an edit that points a hook at loopback, leaving it as it was', async () => {
    const made = await w.raw('POST', '/repos/alice/proj/hooks', hook('http://93.184.216.34/hook'), { token: alice.token });
    expect(made.status, made.text).to.equal(201);
    const r = await w.raw('PATCH', `/repos/alice/proj/hooks/${made.body.id}`, { config: { url: `http://[::ffff:7f00:1]:${port}/` } }, { token: alice.token });
    expect(r.status).to.equal(422);
    expect((await w.raw('GET', `/repos/alice/proj/hooks/${made.body.id}`, undefined, { token: alice.token })).body.config.url).to.equal('http://93.184.216.34/hook');
  });
});
