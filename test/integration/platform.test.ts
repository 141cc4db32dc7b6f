/**
 * The API platform: version, error bodies, unknown paths, malformed JSON, unknown fields (ignored) and mistyped ones,
 * Swagger document and viewer, CORS and paging headers.
 */
import { expect } from 'chai';
import { startWorld, type World } from '../helpers/world';

describe('API platform', () => {
  let w: World;
  // why: a small cap and default page, so paging rules show on a short list
  before(async () => { w = await startWorld({ env: { FORGE__API__MAX_RESPONSE_ITEMS: '3', FORGE__API__DEFAULT_PAGING_NUM: '2' } }); });
  after(async () => { await w?.stop(); });

  it('answers the version as semver through gitea-js', async () => {
    const res = await w.client().version.getVersion();
    expect(res.status).to.equal(200);
    expect(res.data.version).to.match(/^\d+\.\d+\.\d+(\+[\w.-]+)?$/);
  });

  it('answers unknown /api/v1 paths with a 404 in Gitea\'s error body', async () => {
    const res = await w.raw('GET', '/no/such/thing');
    expect(res.status).to.equal(404);
    expect(res.body).to.have.keys(['message', 'url']);
    expect(res.body.url).to.equal(`${w.server.url}api/swagger`);
    expect(res.headers.get('content-type')).to.match(/application\/json/);
  });

  it('answers malformed JSON with 400 and creates nothing', async () => {
    const res = await w.raw('POST', '/admin/users', '{"username": "broken", ', { token: w.admin.token });
    expect(res.status).to.equal(400);
    expect(res.body.message).to.match(/JSON/i);
    expect(res.body.url).to.equal(`${w.server.url}api/swagger`);
    const after = await w.raw('GET', '/users/broken', undefined, { token: w.admin.token });
    expect(after.status).to.equal(404);
  });

  it('ignores unknown fields as Gitea does, so a client written for a newer Gitea still works', async () => {
    const extra = await w.raw('POST', '/admin/users', { username: 'extra1', email: 'extra1@example.com', password: 'password-1', colour: 'blue', must_change_password: false }, { token: w.admin.token });
    expect(extra.status, extra.text).to.equal(201);
    expect(extra.body.login).to.equal('extra1');
    expect(extra.body).to.not.have.property('colour');
    const edited = await w.raw('PATCH', '/admin/users/extra1', { login_name: 'extra1', full_name: 'Extra One', shiny_new_field: { a: 1 } }, { token: w.admin.token });
    expect(edited.status, edited.text).to.equal(200);
    expect(edited.body.full_name).to.equal('Extra One');
  });

  it('refuses a mistyped field with 422 and creates nothing', async () => {
    const typed = await w.raw('POST', '/admin/users', { username: 42, email: 'extra2@example.com', password: 'password-1', colour: 'blue' }, { token: w.admin.token });
    expect(typed.status).to.equal(422);
    expect(typed.body.message).to.match(/username/);
    expect(typed.body.message).to.not.match(/colour/);
    const nested = await w.raw('POST', '/admin/users', { username: 'extra3', email: 'extra3@example.com', password: 'password-1', must_change_password: 'maybe' }, { token: w.admin.token });
    expect(nested.status).to.equal(422);
    for (const name of ['42', 'extra3']) {
      expect((await w.raw('GET', `/users/${name}`, undefined, { token: w.admin.token })).status).to.equal(404);
    }
  });

  it('serves the Swagger document with this server as host, and the viewer at /swagger and /api/swagger', async () => {
    const doc = await w.raw('GET', '//swagger.v1.json');
    expect(doc.status).to.equal(200);
    expect(doc.body.swagger).to.equal('2.0');
    expect(doc.body.host).to.equal(`127.0.0.1:${w.server.httpPort}`);
    expect(doc.body.basePath).to.equal('/api/v1');
    expect(doc.body.paths).to.have.property('/version');
    expect(doc.body.paths).to.have.property('/users/{username}/tokens');
    for (const p of ['//swagger', '//api/swagger']) {
      const page = await w.raw('GET', p);
      expect(page.status).to.equal(200);
      expect(page.text).to.include(`${w.server.url}swagger.v1.json`);
      const asset = page.text.match(/src="([^"]+swagger-ui-bundle\.js)"/)![1];
      expect((await fetch(asset)).status).to.equal(200);
    }
  });

  it('exposes paging headers through CORS and sends nosniff', async () => {
    const res = await w.raw('GET', '/version');
    expect(res.headers.get('access-control-expose-headers')).to.include('X-Total-Count');
    expect(res.headers.get('access-control-expose-headers')).to.include('Link');
    expect(res.headers.get('x-content-type-options')).to.equal('nosniff');
  });

  it('pages lists with X-Total-Count and absolute first/prev/next/last links', async () => {
    for (let i = 0; i < 3; i++) {
      await w.raw('POST', `/users/root/tokens`, { name: `page-${i}`, scopes: ['read:user'] }, { basic: ['root', w.admin.password] });
    }
    const res = await w.raw('GET', '/users/root/tokens?page=2&limit=1', undefined, { basic: ['root', w.admin.password] });
    expect(res.status).to.equal(200);
    expect(res.body).to.have.length(1);
    const total = Number(res.headers.get('x-total-count'));
    expect(total).to.be.at.least(4);
    const link = res.headers.get('link')!;
    const rels = Object.fromEntries(link.split(',').map((part) => {
      const m = /<([^>]+)>; rel="(\w+)"/.exec(part)!;
      return [m[2], new URL(m[1])];
    }));
    expect(Object.keys(rels).sort()).to.deep.equal(['first', 'last', 'next', 'prev']);
    expect(rels.next.origin).to.equal(new URL(w.server.url).origin);
    expect(rels.next.pathname).to.equal('/api/v1/users/root/tokens');
    expect(rels.next.searchParams.get('page')).to.equal('3');
    expect(rels.prev.searchParams.get('page')).to.equal('1');
    expect(rels.last.searchParams.get('page')).to.equal(String(total));
  });

  it('caps limit at MAX_RESPONSE_ITEMS, defaults it to DEFAULT_PAGING_NUM and treats page 0 as the first page', async () => {
    const basic = { basic: ['root', w.admin.password] as [string, string] };
    for (let i = 0; i < 5; i++) await w.raw('POST', '/users/root/tokens', { name: `cap-${i}`, scopes: ['read:user'] }, basic);
    const names = (r: { body: { name: string }[] }) => r.body.map((t) => t.name);
    const total = Number((await w.raw('GET', '/users/root/tokens', undefined, basic)).headers.get('x-total-count'));
    expect(total).to.be.at.least(6);
    const big = await w.raw('GET', '/users/root/tokens?limit=1000&page=0', undefined, basic);
    expect(big.status).to.equal(200);
    expect(big.body).to.have.length(3);
    expect(names(big)).to.deep.equal(names(await w.raw('GET', '/users/root/tokens?limit=3&page=1', undefined, basic)));
    expect(new URL(/<([^>]+)>; rel="next"/.exec(big.headers.get('link')!)![1]).searchParams.get('limit')).to.equal('3');
    const byDefault = await w.raw('GET', '/users/root/tokens', undefined, basic);
    expect(byDefault.body).to.have.length(2);
    expect(names(byDefault)).to.deep.equal(names(big).slice(0, 2));
    const negative = await w.raw('GET', '/users/root/tokens?page=-4&limit=-1', undefined, basic);
    expect(names(negative)).to.deep.equal(names(byDefault));
    const bad = await w.raw('GET', '/users/root/tokens?limit=abc', undefined, basic);
    expect(bad.status).to.equal(422);
    expect(bad.body.message).to.match(/limit/);
  });
});
