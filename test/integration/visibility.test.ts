/**
 * Listings show only what the permission function lets the caller read: every GET route of the
 * swagger document is walked by anonymous, an outsider, a restricted user and a public-only token,
 * and no answer names a private organization, a private user or their repositories (a limited
 * organization only to signed-in, unrestricted callers), whatever the route.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { startWorld, type World, type TestUser } from '../helpers/world';

const SWAGGER = path.resolve(__dirname, '..', '..', 'swagger', 'swagger.json');
const PRIVATE_NAMES = ['hideorg', 'hiddenpub', 'hiddenpriv', 'hiddenfork', 'ghosty', 'ghostrepo'];
const LIMITED_NAMES = ['limitorg', 'limitpub'];

/** Every GET path of our swagger document. */
function getPaths(): string[] {
  const doc = JSON.parse(fs.readFileSync(SWAGGER, 'utf8')) as { paths: Record<string, Record<string, unknown>> };
  return Object.entries(doc.paths).filter(([, ops]) => 'get' in ops).map(([p]) => p);
}

describe('visibility of listings', () => {
  let w: World;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  let publicOnly: string;

  const ok = async (method: string, p: string, body: unknown, token: string, want = [200, 201, 204]) => {
    const r = await w.raw(method, p, body, { token });
    expect(want, `${method} ${p}: ${r.text}`).to.include(r.status);
    return r.body;
  };

  before(async () => {
    w = await startWorld();
    [alice, bob] = [await w.user('alice'), await w.user('bob')];
    carol = await w.user('carol', { restricted: true });
    const ghosty = await w.user('ghosty');
    await ok('PATCH', '/admin/users/ghosty', { login_name: 'ghosty', source_id: 0, visibility: 'private' }, w.admin.token);
    await ok('POST', '/user/repos', { name: 'ghostrepo', auto_init: true }, ghosty.token);
    await ok('POST', '/user/repos', { name: 'pub', auto_init: true }, alice.token);
    await ok('POST', '/orgs', { username: 'hideorg', visibility: 'private' }, alice.token);
    await ok('POST', '/orgs', { username: 'limitorg', visibility: 'limited' }, alice.token);
    await ok('POST', '/orgs', { username: 'openorg', visibility: 'public' }, alice.token);
    await ok('POST', '/orgs/hideorg/repos', { name: 'hiddenpub', auto_init: true }, alice.token);
    await ok('POST', '/orgs/hideorg/repos', { name: 'hiddenpriv', private: true, auto_init: true }, alice.token);
    await ok('POST', '/orgs/limitorg/repos', { name: 'limitpub', auto_init: true }, alice.token);
    await ok('POST', '/repos/alice/pub/forks', { organization: 'hideorg', name: 'hiddenfork' }, alice.token, [202]);
    // alice's public traces of them: stars, watches, a follow, a team repository of a public org
    for (const r of ['hideorg/hiddenpub', 'hideorg/hiddenpriv', 'limitorg/limitpub']) {
      await ok('PUT', `/user/starred/${r}`, undefined, alice.token);
      await ok('PUT', `/repos/${r}/subscription`, undefined, alice.token, [200]);
    }
    await ok('PUT', '/user/following/hideorg', undefined, alice.token);
    await ok('PUT', '/user/following/limitorg', undefined, alice.token);
    const tok = await w.raw('POST', '/users/alice/tokens', { name: 'pub', scopes: ['all', 'public-only'] }, { basic: ['alice', alice.password] });
    expect(tok.status, tok.text).to.equal(201);
    publicOnly = tok.body.sha1;
  });
  after(() => w.stop());

  /** Walk every GET route as `token` (null: anonymous) and list each answer that names a name the caller may not see. */
  const leaks = async (token: string | null, hidden: string[]): Promise<string[]> => {
    const found: string[] = [];
    const fills: Record<string, string>[] = [
      { owner: 'alice', username: 'alice', target: 'alice', org: 'openorg', repo: 'pub', collaborator: 'alice' },
      { owner: 'hideorg', username: 'ghosty', target: 'ghosty', org: 'hideorg', repo: 'hiddenpub', collaborator: 'alice' },
      { owner: 'limitorg', username: 'alice', target: 'alice', org: 'limitorg', repo: 'limitpub', collaborator: 'alice' },
    ];
    const other: Record<string, string> = { sha: 'main', ref: 'main', branch: 'main', tag: 'v1', filepath: 'README.md', archive: 'main.zip', basehead: 'main...main', pageName: 'Home', topic: 'x', token: '1', attachment_id: '1', diffType: 'diff', template_owner: 'alice', template_repo: 'pub' };
    for (const p of getPaths()) {
      for (const fill of fills) {
        // ids name teams, keys, releases...: the first few cover the private organizations' teams
        for (const id of p.includes('{id}') ? ['1', '2', '3', '4', '5'] : ['1']) {
          const u = `${p.replace(/\{(\w+)\}/g, (_, n: string) => (n === 'id' ? id : fill[n] ?? other[n] ?? 'x'))}${p.includes('search') ? '?q=' : ''}`;
          const r = await w.raw('GET', u, undefined, token ? { token } : {});
          expect(r.status, `${u}: ${r.text}`).to.be.below(500);
          for (const name of hidden) if (!u.includes(name) && new RegExp(`\\b${name}\\b`).test(r.text)) found.push(`${u} names ${name}`);
        }
      }
    }
    return [...new Set(found)];
  };

  it('shows anonymous callers neither private nor limited owners, nor their repositories', async () => {
    expect(await leaks(null, [...PRIVATE_NAMES, ...LIMITED_NAMES])).to.deep.equal([]);
  });

  it('shows an outsider limited organizations but nothing private', async () => {
    expect(await leaks(bob.token, PRIVATE_NAMES)).to.deep.equal([]);
    const search = await w.raw('GET', '/repos/search?q=limitpub', undefined, { token: bob.token });
    expect(search.body.data.map((r: { full_name: string }) => r.full_name)).to.deep.equal(['limitorg/limitpub']);
  });

  it('shows a restricted user nothing it was not given', async () => {
    expect(await leaks(carol.token, [...PRIVATE_NAMES, ...LIMITED_NAMES])).to.deep.equal([]);
  });

  it('shows a public-only token of a member nothing but public owners', async () => {
    expect(await leaks(publicOnly, [...PRIVATE_NAMES, ...LIMITED_NAMES])).to.deep.equal([]);
  });

  it('still shows members and site administrators what they may read', async () => {
    const names = async (token: string) => (await w.raw('GET', '/repos/search?q=hidden&limit=50', undefined, { token })).body.data.map((r: { full_name: string }) => r.full_name).sort();
    expect(await names(alice.token)).to.deep.equal(['hideorg/hiddenfork', 'hideorg/hiddenpriv', 'hideorg/hiddenpub']);
    expect(await names(w.admin.token)).to.deep.equal(['hideorg/hiddenfork', 'hideorg/hiddenpriv', 'hideorg/hiddenpub']);
    const starred = (await w.raw('GET', '/users/alice/starred', undefined, { token: alice.token })).body.map((r: { full_name: string }) => r.full_name).sort();
    expect(starred).to.deep.equal(['hideorg/hiddenpriv', 'hideorg/hiddenpub', 'limitorg/limitpub']);
  });
});
