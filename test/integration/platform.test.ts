/**
 * The API platform: version, error bodies, unknown paths, malformed JSON, swagger, authentication forms.
 */
import { expect } from 'chai';
import { startWorld, type World } from '../helpers/world';

describe('API platform', () => {
  let w: World;
  before(async () => { w = await startWorld(); });
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
  });
});

describe('users and tokens bootstrap', () => {
  let w: World;
  before(async () => { w = await startWorld(); });
  after(async () => { await w?.stop(); });

  it('makes users with tokens through the admin API', async () => {
    const u = await w.user('alice');
    const me = await u.api.user.userGetCurrent();
    expect(me.data.login).to.equal('alice');
  });
});
