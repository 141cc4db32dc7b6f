/**
 * The repository home's team pieces against the real server: the latest commit of the folder and
 * of each entry, the commit count, the languages bar, the branch and tag picker, the banner for a
 * branch one just pushed, star/watch buttons, the fork form and the lists of stargazers, watchers
 * and forks. Refusals change nothing; a private repository's pages answer 404 to outsiders.
 */
import { expect } from 'chai';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { GitTool, apiRepo } from '../helpers/refs';
import { WebClient } from '../helpers/web';

describe('repository home, stars, watches and forks in the browser', () => {
  let w: World;
  let alice: TestUser;
  let bob: TestUser;
  let a: WebClient;
  let b: WebClient;
  const repo = async (name = 'proj') => (await w.raw('GET', `/repos/alice/${name}`, undefined, { token: alice.token })).body;

  before(async () => {
    w = await startWorld();
    [alice, bob] = [await w.user('alice'), await w.user('bob')];
    const g = new GitTool(w);
    await apiRepo(w, alice, 'proj', { auto_init: false });
    const dir = await g.clone(alice, 'alice', 'proj');
    await g.commit(dir, 'main.go', 'package main\n\nfunc main() {}\n', 'Start the program');
    await g.commit(dir, 'README.md', '# Proj\n', 'Say what it is');
    await g.ok(['push', '-q', 'origin', 'HEAD:refs/heads/main'], dir);
    await g.ok(['tag', 'v1.0'], dir);
    await g.ok(['push', '-q', 'origin', 'v1.0'], dir);
    await g.ok(['checkout', '-q', '-b', 'topic'], dir);
    await g.commit(dir, 'extra.go', 'package main\n', 'Add extra');
    await g.ok(['push', '-q', 'origin', 'topic'], dir);
    await apiRepo(w, alice, 'secret', { auto_init: true, private: true });
    [a, b] = [await WebClient.signedIn(w, alice), await WebClient.signedIn(w, bob)];
  });
  after(async () => { await w?.stop(); });

  it('shows the latest commits, the commit count, the languages, the ref picker and the banner of a fresh push', async () => {
    const home = await a.get('alice/proj');
    expect(home.status).to.equal(200);
    expect(home.text).to.match(/class="latest-what"><strong>[^<]+<\/strong> <a [^>]+class="subject">Say what it is<\/a>/);
    expect(home.text).to.match(/<strong>2<\/strong> commits<\/a>/);
    // each entry with the subject of the commit that last changed it
    expect(home.text).to.match(/>main\.go<\/a><\/td>\s*<td class="last-subject"><a class="muted" href="\/alice\/proj\/commit\/[0-9a-f]{40}">Start the program<\/a>/);
    expect(home.text).to.include('<strong>Go</strong>');
    expect(home.text).to.include('href="/alice/proj/src/branch/topic"').and.include('href="/alice/proj/src/tag/v1.0"');
    // alice pushed topic a moment ago and it has no pull request: the banner offers one; bob sees none
    expect(home.text).to.include('You pushed to <strong>topic</strong>').and.include('href="/alice/proj/compare/main...topic"');
    expect((await b.get('alice/proj')).text).to.not.include('You pushed to');
    // the clone menu is on the code tab only
    expect(home.text).to.include('class="clone-http"');
    expect((await a.get('alice/proj/branches')).text).to.not.include('class="clone-http"');
  });

  it('stars and watches from the buttons; a post without the session\'s token or signed out changes nothing', async () => {
    await b.get('alice/proj');
    expect((await b.form('alice/proj/action/star', {})).status).to.equal(303);
    expect((await repo()).stars_count).to.equal(1);
    const page = await b.get('alice/proj');
    expect(page.text).to.include('action="/alice/proj/action/unstar"').and.include('You starred this repository.');
    expect((await b.form('alice/proj/action/unstar', {}, { csrf: 'forged' })).status).to.equal(403);
    expect((await repo()).stars_count).to.equal(1);
    const anon = new WebClient(w);
    const signedOut = await anon.form('alice/proj/action/unstar', {});
    expect(signedOut.status).to.equal(403);
    expect((await repo()).stars_count).to.equal(1);
    expect((await b.form('alice/proj/action/watch', {})).status).to.equal(303);
    expect((await repo()).watchers_count).to.equal(2);
    const stars = await anon.get('alice/proj/stars');
    expect(stars.text).to.include('href="/bob">bob</a>');
    const watchers = await anon.get('alice/proj/watchers');
    expect(watchers.text).to.include('href="/bob">bob</a>').and.include('href="/alice">alice</a>');
    expect((await b.form('alice/proj/action/unwatch', {})).status).to.equal(303);
    expect((await repo()).watchers_count).to.equal(1);
  });

  it('forks from the form; a taken name is refused and makes nothing', async () => {
    expect((await b.get('alice/proj/fork')).text).to.include('<option value="bob" selected>bob</option>');
    const made = await b.form('alice/proj/fork', { owner: 'bob', name: 'proj' });
    expect(made.status, made.text).to.equal(303);
    expect(made.location).to.equal('/bob/proj');
    expect((await w.raw('GET', '/repos/bob/proj', undefined, { token: bob.token })).body.fork).to.equal(true);
    const again = await b.form('alice/proj/fork', { owner: 'bob', name: 'proj' });
    expect(again.status).to.be.within(400, 499);
    expect(again.text).to.include('class="flash error"');
    expect((await w.raw('GET', '/repos/alice/proj/forks', undefined, { token: alice.token })).body).to.have.length(1);
    const forks = await new WebClient(w).get('alice/proj/forks');
    expect(forks.text).to.include('href="/bob/proj">bob/proj</a>');
    const header = await b.get('bob/proj');
    expect(header.text).to.include('forked from <a href="');
  });

  it('keeps a private repository\'s pages from outsiders', async () => {
    for (const p of ['alice/secret/stars', 'alice/secret/watchers', 'alice/secret/forks', 'alice/secret/fork', 'alice/secret/compare/main...main', 'alice/secret/activity', 'alice/secret/search?q=a', 'alice/secret/blame/branch/main/README.md']) {
      expect((await b.get(p)).status, p).to.equal(404);
    }
    await b.get('alice/proj');
    expect((await b.form('alice/secret/action/star', {})).status).to.equal(404);
    expect((await repo('secret')).stars_count).to.equal(0);
    expect((await a.get('alice/secret/stars')).status).to.equal(200);
  });
});
