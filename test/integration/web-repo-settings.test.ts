/**
 * Repository settings pages against the real server through their forms: options and units (a
 * disabled unit's tab and page disappear, projects included), collaborators, webhooks with their
 * delivery history, a test delivery and redelivery to a real receiver, branch protection rules,
 * and deletion with its confirmation. Only repository administrators get the pages; a writer, a
 * reader and a forged form are refused and nothing changes.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { apiRepo, waitFor } from '../helpers/refs';
import { WebClient } from '../helpers/web';

describe('repository settings pages', () => {
  let w: World;
  let alice: TestUser;
  let bob: TestUser;
  let a: WebClient;
  let b: WebClient;
  let receiver: http.Server;
  let hookUrl = '';
  const got: { event: string; delivery: string }[] = [];
  const api = (method: string, p: string, body?: unknown, u: TestUser = alice) => w.raw(method, `/repos/alice/proj${p}`, body, { token: u.token });

  before(async () => {
    receiver = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        got.push({ event: String(req.headers['x-gitea-event']), delivery: String(req.headers['x-gitea-delivery']) });
        res.writeHead(200).end('received');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    w = await startWorld({ env: { FORGE__WEBHOOK__ALLOWED_HOST_LIST: 'loopback' } });
    [alice, bob] = [await w.user('alice'), await w.user('bob')];
    await apiRepo(w, alice, 'proj');
    a = await WebClient.signedIn(w, alice);
    b = await WebClient.signedIn(w, bob);
  });
  after(async () => {
    await w?.stop();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  });

  it('saves options and units; a disabled unit loses its tab and page, projects included', async () => {
    const page = await a.get('alice/proj/settings');
    expect(page.status).to.equal(200);
    expect(page.text).to.include('name="has_projects" checked');
    expect((await a.get('alice/proj')).text).to.include('href="/alice/proj/projects"');
    expect((await a.get('alice/proj/projects')).status).to.equal(200);
    const saved = await a.form('alice/proj/settings', { description: 'A <b>project</b>', website: '', has_issues: 'on', has_pull_requests: 'on', has_wiki: 'on', has_releases: 'on', 'merge-merge': 'on', 'merge-squash': 'on', default_merge_style: 'squash' });
    expect(saved.location).to.equal('/alice/proj/settings');
    const repo = (await api('GET', '')).body;
    expect(repo).to.include({ description: 'A <b>project</b>', has_projects: false, has_actions: false, allow_merge_commits: true, allow_squash_merge: true, allow_rebase: false, default_merge_style: 'squash' });
    const home = await a.get('alice/proj');
    expect(home.text).not.to.include('href="/alice/proj/projects"');
    expect(home.text).to.include('A &lt;b&gt;project&lt;/b&gt;');
    expect((await a.get('alice/proj/projects')).status).to.equal(404);
    await a.form('alice/proj/settings', { description: 'A <b>project</b>', has_pull_requests: 'on', has_wiki: 'on', has_releases: 'on', has_projects: 'on', 'merge-merge': 'on' });
    const again = await a.get('alice/proj');
    expect(again.text).to.include('href="/alice/proj/projects"');
    expect(again.text).not.to.include('href="/alice/proj/issues"');
    await a.form('alice/proj/settings', { description: 'back', has_issues: 'on', has_pull_requests: 'on', has_wiki: 'on', has_releases: 'on', has_projects: 'on', 'merge-merge': 'on' });
    expect((await api('GET', '')).body.has_issues).to.equal(true);
  });

  it('adds, changes and removes a collaborator; refuses an unknown user', async () => {
    await a.get('alice/proj/settings/collaboration');
    expect((await a.form('alice/proj/settings/collaboration', { name: 'bob', permission: 'write' })).location).to.equal('/alice/proj/settings/collaboration');
    expect((await api('GET', '/collaborators/bob/permission')).body.permission).to.equal('write');
    const page = await a.get('alice/proj/settings/collaboration');
    expect(page.text).to.match(/<option value="write" selected>Write<\/option>/);
    await a.form('alice/proj/settings/collaboration', { name: 'bob', permission: 'read' });
    expect((await api('GET', '/collaborators/bob/permission')).body.permission).to.equal('read');
    await a.form('alice/proj/settings/collaboration', { name: 'nobody', permission: 'write' });
    expect((await a.get('alice/proj/settings/collaboration')).text).to.include('user does not exist [name: nobody]');
    await a.form('alice/proj/settings/collaboration', { name: 'bob', permission: 'owner' });
    expect((await a.get('alice/proj/settings/collaboration')).text).to.include('permission must be one of read, write, admin');
    expect((await api('GET', '/collaborators/bob/permission')).body.permission).to.equal('read');
    await a.form('alice/proj/settings/collaboration/delete', { name: 'bob' });
    expect((await api('GET', '/collaborators/bob')).status).to.equal(404);
  });

  it('refuses every settings page and form to a writer and a reader, and nothing changes', async () => {
    await api('PUT', '/collaborators/bob', { permission: 'write' });
    for (const p of ['settings', 'settings/collaboration', 'settings/hooks', 'settings/hooks/new', 'settings/branches', 'settings/branches/edit']) {
      expect((await b.get(`alice/proj/${p}`)).status, p).to.equal(404);
    }
    expect((await b.get('alice/proj')).text).not.to.include('href="/alice/proj/settings"');
    await b.get('alice/proj');
    expect((await b.form('alice/proj/settings', { description: 'mine now' })).status).to.equal(404);
    expect((await b.form('alice/proj/settings/collaboration', { name: 'bob', permission: 'admin' })).status).to.equal(404);
    expect((await b.form('alice/proj/settings/hooks/new', { url: hookUrl, content_type: 'json', events: 'all', active: 'on' })).status).to.equal(404);
    expect((await b.form('alice/proj/settings/delete', { confirm: 'proj' })).status).to.equal(404);
    expect((await api('GET', '')).body.description).to.equal('back');
    expect((await api('GET', '/collaborators/bob/permission')).body.permission).to.equal('write');
    expect((await api('GET', '/hooks')).body).to.have.length(0);
    await api('DELETE', '/collaborators/bob');
  });

  it('adds a webhook, sends a test delivery, shows it in the history and redelivers it', async () => {
    await a.get('alice/proj/settings/hooks/new');
    await a.form('alice/proj/settings/hooks/new', { url: 'not a url', content_type: 'json', events: 'all', active: 'on' });
    expect((await a.get('alice/proj/settings/hooks')).text).to.match(/class="flash error"/);
    await a.form('alice/proj/settings/hooks/new', { url: hookUrl, content_type: 'json', events: 'choose', active: 'on' });
    expect((await a.get('alice/proj/settings/hooks')).text).to.include('Choose at least one event.');
    expect((await api('GET', '/hooks')).body).to.have.length(0);
    await a.form('alice/proj/settings/hooks/new', { url: hookUrl, content_type: 'json', secret: 's3cret', events: 'choose', 'event-push': 'on', 'event-issues': 'on', active: 'on' });
    const [hook] = (await api('GET', '/hooks')).body;
    expect(hook.config.url).to.equal(hookUrl);
    expect(hook.events).to.include.members(['issues', 'push']).and.not.include('pull_request');
    const edit = await a.get(`alice/proj/settings/hooks/${hook.id}`);
    expect(edit.text).to.include('name="event-push" checked').and.include('No deliveries yet.');
    await a.form(`alice/proj/settings/hooks/${hook.id}/test`, {});
    await waitFor('the test delivery', async () => got.length === 1);
    let page = '';
    await waitFor('the delivery in the history', async () => /class="badge state-open">delivered</.test(page = (await a.get(`alice/proj/settings/hooks/${hook.id}`)).text));
    const uuid = /id="delivery-([0-9a-f-]{36})"/.exec(page)![1];
    expect(got[0]).to.deep.equal({ event: 'push', delivery: uuid });
    expect(page).to.include('received').and.include('X-Gitea-Event: push');
    await a.form(`alice/proj/settings/hooks/${hook.id}/replay/${uuid}`, {});
    await waitFor('the redelivery', async () => got.length === 2);
    expect(got[1].delivery).not.to.equal(uuid);
    await a.form(`alice/proj/settings/hooks/${hook.id}/replay/00000000-0000-0000-0000-000000000000`, {});
    expect((await a.get(`alice/proj/settings/hooks/${hook.id}`)).text).to.include('hook task does not exist');
    await a.form(`alice/proj/settings/hooks/${hook.id}`, { url: hookUrl, content_type: 'form', events: 'all' });
    const changed = (await api('GET', `/hooks/${hook.id}`)).body;
    expect(changed).to.include({ active: false });
    expect(changed.config.content_type).to.equal('form');
    await a.form(`alice/proj/settings/hooks/${hook.id}/delete`, {});
    expect((await api('GET', '/hooks')).body).to.have.length(0);
  });

  it('adds, edits and deletes a branch protection rule; refuses a duplicate', async () => {
    await a.get('alice/proj/settings/branches/edit');
    await a.form('alice/proj/settings/branches/edit', { rule_name: 'main', enable_push: 'on', enable_push_whitelist: 'on', push_whitelist_usernames: 'alice', required_approvals: '2', protected_file_patterns: '*.lock' });
    const rule = (await api('GET', '/branch_protections/main')).body;
    expect(rule).to.include({ enable_push_whitelist: true, required_approvals: 2, protected_file_patterns: '*.lock' });
    expect(rule.push_whitelist_usernames).to.deep.equal(['alice']);
    await a.form('alice/proj/settings/branches/edit', { rule_name: 'main', enable_push: 'on' });
    expect((await a.get('alice/proj/settings/branches')).text).to.match(/class="flash error"/);
    const form = await a.get('alice/proj/settings/branches/edit?rule=main');
    expect(form.text).to.include('name="enable_push_whitelist" checked').and.include('value="alice"');
    await a.form('alice/proj/settings/branches/edit', { existing: 'main', required_approvals: '1' });
    expect((await api('GET', '/branch_protections/main')).body).to.include({ enable_push: false, required_approvals: 1 });
    expect((await a.get('alice/proj/branches')).text).to.include('>protected</span>');
    await a.form('alice/proj/settings/branches/delete', { rule_name: 'main' });
    expect((await api('GET', '/branch_protections')).body).to.have.length(0);
  });

  it('names every option in words and changes the default branch', async () => {
    expect((await api('POST', '/branches', { new_branch_name: 'develop', old_branch_name: 'main' })).status).to.equal(201);
    const page = await a.get('alice/proj/settings');
    expect(page.text).to.include('> Pull requests</label>').and.include('Rebase then create merge commit').and.not.include('>rebase-merge<').and.not.include('has_pull_requests</label>');
    await a.form('alice/proj/settings', { description: 'x', default_branch: 'develop', has_issues: 'on', has_pull_requests: 'on', 'merge-merge': 'on', default_merge_style: 'merge' });
    expect((await api('GET', '')).body.default_branch).to.equal('develop');
    await a.form('alice/proj/settings', { description: 'x', default_branch: 'main', has_issues: 'on', has_pull_requests: 'on', 'merge-merge': 'on', default_merge_style: 'merge' });
    expect((await api('GET', '')).body.default_branch).to.equal('main');
  });

  it('archives, makes private, renames and transfers from the danger zone, each only with the name typed', async () => {
    await a.get('alice/proj/settings');
    await a.form('alice/proj/settings/archive', { confirm: 'nope' });
    expect((await api('GET', '')).body.archived).to.equal(false);
    await a.form('alice/proj/settings/archive', { confirm: 'proj' });
    expect((await api('GET', '')).body.archived).to.equal(true);
    expect((await a.get('alice/proj/settings')).text).to.include('Unarchive repository');
    await a.form('alice/proj/settings/archive', { confirm: 'proj' });
    expect((await api('GET', '')).body.archived).to.equal(false);
    await a.form('alice/proj/settings/visibility', { confirm: 'proj' });
    expect((await api('GET', '')).body.private).to.equal(true);
    expect((await b.get('alice/proj')).status).to.equal(404);
    await a.form('alice/proj/settings/visibility', { confirm: 'proj' });
    expect((await api('GET', '')).body.private).to.equal(false);
    // a writer is refused and nothing changes
    expect((await b.form('alice/proj/settings/archive', { confirm: 'proj' })).status).to.equal(404);
    expect((await api('GET', '')).body.archived).to.equal(false);
    // rename, and back
    const renamed = await a.form('alice/proj/settings/rename', { confirm: 'proj', name: 'proj2' });
    expect(renamed.location).to.equal('/alice/proj2/settings');
    expect((await w.raw('GET', '/repos/alice/proj2', undefined, { token: alice.token })).status).to.equal(200);
    await a.get('alice/proj2/settings');
    await a.form('alice/proj2/settings/rename', { confirm: 'proj2', name: 'proj' });
    expect((await api('GET', '')).status).to.equal(200);
    // a transfer to bob waits for him; cancelling it leaves the repository with alice
    await a.get('alice/proj/settings');
    await a.form('alice/proj/settings/transfer', { confirm: 'proj', new_owner: 'bob' });
    expect((await a.get('alice/proj/settings')).text).to.include('Transfer pending').and.include('to bob');
    await a.form('alice/proj/settings/transfer/cancel', {});
    expect((await a.get('alice/proj/settings')).text).to.not.include('Transfer pending');
    expect((await api('GET', '')).body.owner.login).to.equal('alice');
  });

  it('adds and removes deploy keys; a bad key is refused and adds nothing', async () => {
    const { execFileSync } = await import('node:child_process');
    const fs = await import('node:fs');
    const os = await import('node:os');
    const path = await import('node:path');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dk-'));
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', path.join(dir, 'k')]);
    const pub = fs.readFileSync(path.join(dir, 'k.pub'), 'utf8');
    await a.get('alice/proj/settings/keys');
    await a.form('alice/proj/settings/keys', { title: 'ci', content: 'not a key', read_only: 'on' });
    expect((await a.get('alice/proj/settings/keys')).text).to.include('class="flash error"');
    expect((await api('GET', '/keys')).body).to.have.length(0);
    await a.form('alice/proj/settings/keys', { title: 'ci', content: pub, read_only: 'on' });
    const keys = (await api('GET', '/keys')).body as { id: number; title: string; read_only: boolean }[];
    expect(keys.map((k) => [k.title, k.read_only])).to.deep.equal([['ci', true]]);
    const page = await a.get('alice/proj/settings/keys');
    expect(page.text).to.include('<strong>ci</strong>').and.include('Read-only');
    expect((await b.get('alice/proj/settings/keys')).status).to.equal(404);
    expect((await b.form('alice/proj/settings/keys/delete', { id: String(keys[0].id) })).status).to.equal(404);
    expect((await api('GET', '/keys')).body).to.have.length(1);
    await a.form('alice/proj/settings/keys/delete', { id: String(keys[0].id) });
    expect((await api('GET', '/keys')).body).to.have.length(0);
  });

  it('deletes the repository only with its name typed, and never from a forged form', async () => {
    await a.get('alice/proj/settings');
    await a.form('alice/proj/settings/delete', { confirm: 'wrong' });
    expect((await api('GET', '')).status).to.equal(200);
    expect((await a.form('alice/proj/settings/delete', { confirm: 'proj' }, { csrf: null })).status).to.equal(403);
    expect((await a.form('alice/proj/settings/delete', { confirm: 'proj' }, { origin: 'https://evil.example' })).status).to.equal(403);
    expect((await api('GET', '')).status).to.equal(200);
    expect((await a.form('alice/proj/settings/delete', { confirm: 'proj' })).location).to.equal('/');
    expect((await api('GET', '')).status).to.equal(404);
  });
});
