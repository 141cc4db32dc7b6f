/**
 * Managing webhooks through the API (raw HTTP and gitea-js): repository, organization, user and
 * instance hooks with Gitea's shapes and checks; the target URL checked against the host allow list
 * (loopback allowed here) when saved; every refusal a clear 4xx with nothing stored.
 */
import { expect } from 'chai';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { apiRepo } from '../helpers/refs';

describe('webhooks: the API', () => {
  let w: World;
  let alice: TestUser;
  let bob: TestUser;
  const hooks = (p: string, method = 'GET', body?: unknown, u: TestUser = alice) => w.raw(method, p, body, { token: u.token });
  const good = { type: 'gitea', config: { url: 'http://127.0.0.1:9/hook', content_type: 'json', secret: 's3cret' }, events: ['push', 'issues'], branch_filter: 'main', authorization_header: 'Bearer x', active: true };

  before(async () => {
    w = await startWorld({ env: { FORGE__WEBHOOK__ALLOWED_HOST_LIST: 'loopback' } });
    [alice, bob] = [await w.user('alice'), await w.user('bob')];
    await apiRepo(w, alice, 'proj');
  });
  after(() => w.stop());

  it('creates, lists, gets, edits and deletes a repository hook in Gitea\'s shape', async () => {
    const made = await hooks('/repos/alice/proj/hooks', 'POST', good);
    expect(made.status, made.text).to.equal(201);
    expect(made.body).to.deep.include({ type: 'gitea', branch_filter: 'main', authorization_header: 'Bearer x', active: true });
    expect(made.body.config).to.deep.equal({ url: 'http://127.0.0.1:9/hook', content_type: 'json' });
    expect(made.body.events).to.have.members(['push', 'issues', 'issue_assign', 'issue_label', 'issue_milestone', 'issue_comment']);
    const id = made.body.id as number;
    const listed = await hooks('/repos/alice/proj/hooks');
    expect([listed.body.length, listed.headers.get('x-total-count')]).to.deep.equal([1, '1']);
    expect((await alice.api.repos.repoGetHook('alice', 'proj', id)).data.id).to.equal(id);

    const quiet = await hooks(`/repos/alice/proj/hooks/${id}`, 'PATCH', { active: false });
    expect(quiet.body).to.deep.include({ active: false, branch_filter: 'main', authorization_header: 'Bearer x' });
    expect(quiet.body.events).to.have.length(6);
    const narrowed = await hooks(`/repos/alice/proj/hooks/${id}`, 'PATCH', { events: ['create'], config: { content_type: 'form' } });
    expect([narrowed.body.events, narrowed.body.config.content_type]).to.deep.equal([['create'], 'form']);
    const outside = await hooks(`/repos/alice/proj/hooks/${id}`, 'PATCH', { config: { url: 'http://93.184.216.34/' } });
    expect(outside.status).to.equal(422);
    expect((await hooks(`/repos/alice/proj/hooks/${id}`)).body.config.url).to.equal('http://127.0.0.1:9/hook');

    expect((await hooks(`/repos/alice/proj/hooks/${id}`, 'GET', undefined, bob)).status).to.equal(403);
    expect((await hooks(`/repos/alice/proj/hooks/${id}`, 'DELETE')).status).to.equal(204);
    expect((await hooks(`/repos/alice/proj/hooks/${id}`)).status).to.equal(404);
    expect((await hooks(`/repos/alice/proj/hooks/${id}`, 'DELETE')).status).to.equal(404);
  });

  it('refuses bad hooks with a clear 4xx and stores nothing', async () => {
    const cases: [Record<string, unknown>, number, string][] = [
      [{ ...good, type: 'nope' }, 422, 'Invalid hook type: nope'],
      [{ ...good, config: { content_type: 'json' } }, 422, 'Missing config option: url'],
      [{ ...good, config: { url: 'http://127.0.0.1/' } }, 422, 'Missing config option: content_type'],
      [{ ...good, config: { url: 'http://127.0.0.1/', content_type: 'xml' } }, 422, 'Invalid content type'],
      [{ ...good, config: { url: 'ftp://127.0.0.1/', content_type: 'json' } }, 422, 'Invalid url'],
      [{ ...good, config: { url: 'not a url', content_type: 'json' } }, 422, 'Invalid url'],
      [{ ...good, config: { url: 'http://169.254.169.254/latest', content_type: 'json' } }, 422, "webhook can only call allowed HTTP servers (check your webhook.ALLOWED_HOST_LIST setting), deny '169.254.169.254'"],
      [{ ...good, events: ['push', 'bogus'] }, 422, '[Events]: unknown event "bogus"'],
      [{ ...good, config: { ...good.config, secret: 'x'.repeat(5000) } }, 422, '[Config.secret]: longer than 4096 bytes'],
      [{ ...good, type: 'slack' }, 422, 'Missing config option: channel'],
      [{ ...good, type: 'slack', config: { ...good.config, channel: '#Bad Channel' } }, 400, 'Invalid slack channel name'],
    ];
    for (const [body, status, message] of cases) {
      const r = await hooks('/repos/alice/proj/hooks', 'POST', body);
      expect([r.status, r.body.message], JSON.stringify(body).slice(0, 120)).to.deep.equal([status, message]);
    }
    expect((await hooks('/repos/alice/proj/hooks')).body).to.deep.equal([]);
  });

  it('keeps organization, user and instance hooks apart, each for its owners', async () => {
    expect((await w.raw('POST', '/orgs', { username: 'hookers' }, { token: alice.token })).status).to.equal(201);
    expect((await hooks('/orgs/hookers/hooks', 'POST', good)).status).to.equal(201);
    expect((await hooks('/orgs/hookers/hooks', 'GET', undefined, bob)).status).to.equal(403);
    expect((await hooks('/user/hooks', 'POST', good, bob)).status).to.equal(201);
    expect((await hooks('/user/hooks', 'GET', undefined, bob)).body).to.have.length(1);
    expect((await hooks('/user/hooks')).body).to.have.length(0);
    const admin = w.admin;
    const byDefault = await hooks('/admin/hooks', 'POST', good, admin);
    const system = await hooks('/admin/hooks', 'POST', { ...good, config: { ...good.config, is_system_webhook: 'true' } }, admin);
    expect([byDefault.status, system.status]).to.deep.equal([201, 201]);
    const ids = async (q: string) => ((await hooks(`/admin/hooks${q}`, 'GET', undefined, admin)).body as { id: number }[]).map((h) => h.id);
    expect(await ids('')).to.deep.equal([system.body.id]);
    expect(await ids('?type=default')).to.deep.equal([byDefault.body.id]);
    expect(await ids('?type=all')).to.deep.equal([byDefault.body.id, system.body.id]);
    expect((await hooks('/admin/hooks', 'GET', undefined, bob)).status).to.equal(403);
  });

  it('answers the git hook routes as Gitea does with git hooks disabled: 403 after the repository and admin checks', async () => {
    for (const [method, p] of [['GET', '/hooks/git'], ['GET', '/hooks/git/pre-receive'], ['PATCH', '/hooks/git/pre-receive'], ['DELETE', '/hooks/git/update']]) {
      const r = await hooks(`/repos/alice/proj${p}`, method, method === 'PATCH' ? { content: 'echo hi' } : undefined);
      expect([r.status, r.body.message], `${method} ${p}`).to.deep.equal([403, 'must be allowed to edit Git hooks']);
    }
    expect((await hooks('/repos/alice/nope/hooks/git')).status).to.equal(404);
    expect((await hooks('/repos/alice/proj/hooks/git', 'GET', undefined, bob)).body.message).to.equal('user should be an owner or a collaborator with admin write of a repository');
  });
});
