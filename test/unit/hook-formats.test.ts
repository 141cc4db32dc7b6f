/**
 * The chat formats' request bodies, against what Gitea 1.24's services/webhook code sends for the
 * same payloads: realistic events (a push of two commits, an issue opened, a comment, a merged pull
 * request, a release, an approving review) for every type, Go's JSON bytes (indent, `<>&` escaped,
 * the Matrix transaction id of Gitea's own test), and the quirks Gitea has.
 */
import crypto from 'node:crypto';
import { expect } from 'chai';
import { formatRequest, type FormattedRequest } from '../../src/services/webhook/formats';

const ROOT = 'http://forge.test/';
const R = `${ROOT}alice/widgets`;
const user = (id: number, login: string, fullName: string) => ({
  id, login, login_name: '', source_id: 0, full_name: fullName, email: `${login}@noreply.forge.test`, avatar_url: `${ROOT}avatars/${login[0]}${id}`,
  html_url: `${ROOT}${login}`, language: '', is_admin: false, last_login: '0001-01-01T00:00:00Z', created: '2025-01-01T00:00:00Z', restricted: false,
  active: true, prohibit_login: false, location: '', website: '', description: '', visibility: 'public', followers_count: 0, following_count: 0,
  starred_repos_count: 0, username: login,
});
const alice = user(1, 'alice', 'Alice Liddell');
const bob = user(2, 'bob', 'Bob Builder');
const repo = {
  id: 7, owner: alice, name: 'widgets', full_name: 'alice/widgets', description: 'Widgets and gadgets', empty: false, private: false, fork: false,
  template: false, mirror: false, size: 120, language: 'Go', languages_url: `${ROOT}api/v1/repos/alice/widgets/languages`, html_url: R,
  url: `${ROOT}api/v1/repos/alice/widgets`, link: '', ssh_url: 'git@forge.test:alice/widgets.git', clone_url: `${R}.git`, original_url: '', website: '',
  stars_count: 0, forks_count: 0, watchers_count: 1, open_issues_count: 1, open_pr_counter: 1, release_counter: 1, default_branch: 'main',
  archived: false, created_at: '2025-01-02T03:04:05Z', updated_at: '2025-03-04T10:20:30Z', permissions: { admin: true, push: true, pull: true },
};

const C1 = '5e4d3c2b1a0918273645546372819a0b1c2d3e4f';
const C2 = '9c3f1e2d4b5a69788796a5b4c3d2e1f0a9b8c7d6';
const BEFORE = '0d1e2f3a4b5c6d7e8f90a1b2c3d4e5f6a7b8c9d0';
const CMP = `${R}/compare/${BEFORE}...${C2}`;
const commit = (id: string, message: string, who: typeof alice, timestamp: string) => ({
  id, message, url: `${R}/commit/${id}`, author: { name: who.full_name, email: `${who.login}@example.com`, username: who.login },
  committer: { name: who.full_name, email: `${who.login}@example.com`, username: who.login }, timestamp, verification: null,
  added: null, removed: null, modified: null,
});
const newest = commit(C2, 'Fix <Widget> & gadget rendering\n\nLong description line.\n', alice, '2025-03-04T10:20:30+01:00');
const older = commit(C1, 'Add widget factory\n', bob, '2025-03-04T09:00:00.500+01:00');
const push = {
  ref: 'refs/heads/main', before: BEFORE, after: C2, compare_url: CMP, commits: [newest, older], total_commits: 2, head_commit: newest,
  repository: repo, pusher: alice, sender: alice,
};

const ISSUE_BODY = 'Steps:\r\n1. open\r\n2. crash';
const issue = {
  id: 42, url: `${ROOT}api/v1/repos/alice/widgets/issues/5`, html_url: `${R}/issues/5`, number: 5, user: alice, original_author: '', original_author_id: 0,
  title: 'Crash when <empty> input', body: ISSUE_BODY, ref: '', assets: [], labels: [], milestone: null, assignee: bob, assignees: [bob],
  state: 'open', is_locked: false, comments: 0, created_at: '2025-03-04T11:00:00Z', updated_at: '2025-03-04T11:00:00Z', closed_at: null,
  due_date: null, pull_request: null, repository: { id: 7, name: 'widgets', owner: 'alice', full_name: 'alice/widgets' }, pin_order: 0,
};
const issueOpened = { action: 'opened', number: 5, issue, repository: repo, sender: alice, commit_id: '' };
const commentCreated = {
  action: 'created', issue: { ...issue, comments: 1 },
  comment: {
    id: 99, html_url: `${R}/issues/5#issuecomment-99`, pull_request_url: '', issue_url: `${R}/issues/5`, user: bob, original_author: '',
    original_author_id: 0, body: "Can't reproduce on main.", assets: [], created_at: '2025-03-04T12:00:00Z', updated_at: '2025-03-04T12:00:00Z',
  },
  repository: repo, sender: bob, is_pull: false,
};
const pull = (merged: boolean) => ({
  id: 17, url: `${R}/pulls/6`, number: 6, user: bob, title: 'Speed up widget cache', body: 'Caches results.', labels: [], milestone: null,
  assignee: null, assignees: null, requested_reviewers: null, requested_reviewers_teams: null, state: merged ? 'closed' : 'open', draft: false,
  is_locked: false, comments: 0, html_url: `${R}/pulls/6`, diff_url: `${R}/pulls/6.diff`, patch_url: `${R}/pulls/6.patch`, mergeable: !merged, merged,
  merged_at: merged ? '2025-03-05T08:00:00Z' : null, merge_commit_sha: merged ? C2 : null, merged_by: merged ? alice : null,
  allow_maintainer_edit: false, merge_base: C1, due_date: null, created_at: '2025-03-04T13:00:00Z', updated_at: '2025-03-05T08:00:00Z',
  closed_at: merged ? '2025-03-05T08:00:00Z' : null, pin_order: 0,
});
const prMerged = {
  action: 'closed', number: 6, pull_request: pull(true), requested_reviewer: null, repository: repo, sender: alice, commit_id: '', review: null,
};
const reviewApproved = {
  action: 'reviewed', number: 6, pull_request: pull(false), requested_reviewer: bob, repository: repo, sender: bob, commit_id: '',
  review: { type: 'pull_request_review_approved', content: 'LGTM' },
};
const releasePublished = {
  action: 'published',
  release: {
    id: 3, tag_name: 'v1.2.0', target_commitish: 'main', name: 'Widgets 1.2', body: 'Faster caching.\n\nSee changelog.',
    url: `${ROOT}api/v1/repos/alice/widgets/releases/3`, html_url: `${R}/releases/tag/v1.2.0`, tarball_url: `${R}/archive/v1.2.0.tar.gz`,
    zipball_url: `${R}/archive/v1.2.0.zip`, upload_url: `${ROOT}api/v1/repos/alice/widgets/releases/3/assets`, draft: false, prerelease: false,
    created_at: '2025-03-05T09:00:00Z', published_at: '2025-03-05T09:00:00Z', author: alice, assets: [],
  },
  repository: repo, sender: alice,
};

const META: Record<string, string> = {
  slack: JSON.stringify({ channel: '#dev', username: 'forge', icon_url: `${ROOT}img/bot.png`, color: '#4caf50' }),
  discord: JSON.stringify({ username: 'forge', icon_url: `${ROOT}img/bot.png` }),
  matrix: JSON.stringify({ homeserver_url: 'https://matrix.example.org', room_id: '!room:example.org', message_type: 1 }),
  telegram: JSON.stringify({ bot_token: '123:abc', chat_id: '-100', thread_id: '' }),
  packagist: JSON.stringify({ username: 'alice', api_token: 'tok', package_url: 'https://packagist.org/packages/alice/widgets' }),
};

/** The request of a type for an event (the meta above), checked to be POSTed JSON (Matrix: PUT). */
function request(type: string, event: string, payload: unknown, meta = META[type] ?? ''): FormattedRequest {
  const r = formatRequest(type, meta, event, JSON.stringify(payload));
  expect(r, type).to.not.equal(null);
  expect(r!.contentType).to.equal('application/json');
  if (type !== 'matrix') expect([r!.method, r!.urlSuffix]).to.deep.equal(['POST', '']);
  // Go's bytes: two-space indent, and no raw <, > or & anywhere.
  expect(r!.body).to.match(/^\{\n {2}"/);
  expect(r!.body).to.not.match(/[<>&]/);
  return r!;
}
const body = (type: string, event: string, payload: unknown): unknown => JSON.parse(request(type, event, payload).body);

// Gitea's colors.
const GREEN = 0x1ac600;
const ORANGE = 0xeb6420;
const ORANGE_LIGHT = 0xe68d60;
const PURPLE = 0x7289da;

describe('hook formats', () => {
  describe('slack', () => {
    const slack = (text: string, attachments: unknown[] | null) => ({
      channel: '#dev', text, username: 'forge', icon_url: `${ROOT}img/bot.png`, unfurl_links: 0, link_names: 0, attachments,
    });

    it('lists the pushed commits, first lines escaped, in an attachment of the hook color', () => {
      expect(body('slack', 'push', push)).to.deep.equal(slack(
        `[<${R}|alice/widgets>:<${R}/src/branch/main|main>] <${CMP}|2 new commits> pushed by alice`,
        [{
          fallback: '', color: '#4caf50', title: R, title_link: R,
          text: `<${R}/commit/${C2}|9c3f1e2>: Fix &lt;Widget&gt; &amp; gadget rendering - Alice Liddell\n<${R}/commit/${C1}|5e4d3c2>: Add widget factory - Bob Builder`,
        }],
      ));
    });

    it('attaches an opened issue body, and a comment body under its unescaped title', () => {
      expect(body('slack', 'issues', issueOpened)).to.deep.equal(slack(
        `[<${R}|alice/widgets>] Issue opened: <${R}/issues/5|#5 Crash when &lt;empty&gt; input> by <${ROOT}alice|alice>`,
        [{ fallback: '', color: 'eb6420', title: '#5 Crash when &lt;empty&gt; input', title_link: `${R}/issues/5`, text: ISSUE_BODY }],
      ));
      expect(body('slack', 'issue_comment', commentCreated)).to.deep.equal(slack(
        `[<${R}|alice/widgets>] New comment on issue <${R}/issues/5|#5 Crash when &lt;empty&gt; input> by <${ROOT}bob|bob>`,
        [{ fallback: '', color: 'e68d60', title: '#5 Crash when <empty> input', title_link: `${R}/issues/5#issuecomment-99`, text: "Can't reproduce on main." }],
      ));
    });

    it('says merged, released and approved without attachments (the review link in Markdown, as Gitea)', () => {
      expect(body('slack', 'pull_request', prMerged)).to.deep.equal(slack(
        `[<${R}|alice/widgets>] Pull request merged: <${R}/pulls/6|#6 Speed up widget cache> by <${ROOT}alice|alice>`, null));
      expect(body('slack', 'release', releasePublished)).to.deep.equal(slack(
        `[<${R}|alice/widgets>] Release created: <${R}/releases/tag/v1.2.0|v1.2.0> by <${ROOT}alice|alice>`, null));
      expect(body('slack', 'pull_request_review_approved', reviewApproved)).to.deep.equal(slack(
        `[<${R}|alice/widgets>] Pull request review approved: [#6 Speed up widget cache](${R}/pulls/6) by <${ROOT}bob|bob>`, null));
    });

    it('links a created branch (a short name) to the bare /src/, as Gitea does', () => {
      const created = { sha: C2, ref: 'feature', ref_type: 'branch', repository: repo, sender: alice };
      expect((body('slack', 'create', created) as { text: string }).text).to.equal(`[<${R}|alice/widgets>:<${R}/src/|feature>] branch created by alice`);
    });
  });

  describe('discord', () => {
    const discord = (who: typeof alice, title: string, description: string, url: string, color: number) => ({
      wait: false, content: '', username: 'forge', avatar_url: `${ROOT}img/bot.png`, tts: false,
      embeds: [{ title, description, url, color, footer: { text: '' }, author: { name: who.login, url: who.html_url, icon_url: who.avatar_url }, fields: null }],
    });

    it('builds one embed per event', () => {
      expect(body('discord', 'push', push)).to.deep.equal(discord(alice, '[alice/widgets:main] 2 new commits',
        `[9c3f1e2](${R}/commit/${C2}) Fix <Widget> & gadget rendering - Alice Liddell\n[5e4d3c2](${R}/commit/${C1}) Add widget factory - Bob Builder`, CMP, GREEN));
      expect(body('discord', 'issues', issueOpened)).to.deep.equal(discord(alice, '[alice/widgets] Issue opened: #5 Crash when <empty> input', ISSUE_BODY,
        `${R}/issues/5`, ORANGE));
      expect(body('discord', 'issue_comment', commentCreated)).to.deep.equal(discord(bob, '[alice/widgets] New comment on issue #5 Crash when <empty> input',
        "Can't reproduce on main.", `${R}/issues/5#issuecomment-99`, ORANGE_LIGHT));
      expect(body('discord', 'pull_request', prMerged)).to.deep.equal(discord(alice, '[alice/widgets] Pull request merged: #6 Speed up widget cache', '',
        `${R}/pulls/6`, PURPLE));
      expect(body('discord', 'release', releasePublished)).to.deep.equal(discord(alice, '[alice/widgets] Release created: v1.2.0',
        'Faster caching.\n\nSee changelog.', `${R}/releases/tag/v1.2.0`, GREEN));
      expect(body('discord', 'pull_request_review_approved', reviewApproved)).to.deep.equal(discord(bob,
        '[alice/widgets] Pull request review approved: #6 Speed up widget cache', 'LGTM', `${R}/pulls/6`, GREEN));
    });

    it('cuts descriptions at 2000 characters and commit summaries at 50, and leaves out an unset username', () => {
      const long = { ...issueOpened, issue: { ...issue, body: '⚠'.repeat(1990) + 'é'.repeat(30) } };
      const r = JSON.parse(request('discord', 'issues', long, '').body) as { username?: string; embeds: { description: string }[] };
      expect(r.embeds[0].description).to.equal('⚠'.repeat(1990) + 'é'.repeat(10));
      expect(r).to.not.have.property('username');
      expect(r).to.not.have.property('avatar_url');
      const summary = 'This is a commit summary ⚠️⚠️⚠️⚠️ containing 你好 ⚠️⚠️️';
      const one = { ...push, total_commits: 1, commits: [{ ...newest, message: `${summary}\n\nbody` }] };
      const d = JSON.parse(request('discord', 'push', one).body) as { embeds: { description: string; url: string }[] };
      expect(d.embeds[0].description).to.equal(`[9c3f1e2](${R}/commit/${C2}) This is a commit summary ⚠️⚠️⚠️⚠️ containing 你好... - Alice Liddell`);
      expect(d.embeds[0].url).to.equal(`${R}/commit/${C2}`);
    });
  });

  describe('msteams', () => {
    const card = (who: typeof alice, title: string, text: string, uri: string, color: string, fact: { name: string; value: string }) => ({
      '@type': 'MessageCard', '@context': 'https://schema.org/extensions', themeColor: color, title, summary: title,
      sections: [{
        activityTitle: who.full_name, activitySubtitle: who.login, activityImage: who.avatar_url,
        facts: [{ name: 'Repository:', value: 'alice/widgets' }, fact], text,
      }],
      potentialAction: [{ '@type': 'OpenUri', name: 'View in Gitea', targets: [{ os: 'default', uri }] }],
    });

    it('builds a MessageCard with facts (the issue and pull request ids, not numbers, as Gitea)', () => {
      expect(body('msteams', 'push', push)).to.deep.equal(card(alice, '[alice/widgets:main] 2 new commits',
        `[9c3f1e2](${R}/commit/${C2}) Fix <Widget> & gadget rendering\n\nLong description line. - Alice Liddell\n\n[5e4d3c2](${R}/commit/${C1}) Add widget factory - Bob Builder`,
        CMP, '1ac600', { name: 'Commit count:', value: '2' }));
      expect(body('msteams', 'issues', issueOpened)).to.deep.equal(card(alice, '[alice/widgets] Issue opened: #5 Crash when <empty> input', ISSUE_BODY,
        `${R}/issues/5`, 'eb6420', { name: 'Issue #:', value: '42' }));
      expect(body('msteams', 'issue_comment', commentCreated)).to.deep.equal(card(bob, '[alice/widgets] New comment on issue #5 Crash when <empty> input',
        "Can't reproduce on main.", `${R}/issues/5#issuecomment-99`, 'e68d60', { name: 'Issue #:', value: '42' }));
      expect(body('msteams', 'pull_request', prMerged)).to.deep.equal(card(alice, '[alice/widgets] Pull request merged: #6 Speed up widget cache', '',
        `${R}/pulls/6`, '7289da', { name: 'Pull request #:', value: '17' }));
      expect(body('msteams', 'release', releasePublished)).to.deep.equal(card(alice, '[alice/widgets] Release created: v1.2.0', '',
        `${R}/releases/tag/v1.2.0`, '1ac600', { name: 'Tag:', value: 'v1.2.0' }));
      expect(body('msteams', 'pull_request_review_approved', reviewApproved)).to.deep.equal(card(bob,
        '[alice/widgets] Pull request review approved: #6 Speed up widget cache', 'LGTM', `${R}/pulls/6`, '1ac600', { name: 'Pull request #:', value: '17' }));
    });
  });

  describe('matrix', () => {
    const a = (href: string, text: string) => `<a href="${href}">${text}</a>`;
    const message = (formatted: string, markdown: string) => ({ body: markdown, msgtype: 'm.notice', format: 'org.matrix.custom.html', formatted_body: formatted });
    const put = (event: string, payload: unknown) => {
      const r = request('matrix', event, payload);
      expect(r.method).to.equal('PUT');
      expect(r.urlSuffix).to.equal(`/${crypto.createHash('sha1').update(r.body).digest('hex')}`);
      return JSON.parse(r.body) as unknown;
    };

    it('PUTs the HTML text, its Markdown and the pushed commits to the SHA-1 of the body', () => {
      const goCommit = (c: typeof newest, timestamp: string) => ({
        id: c.id, message: c.message, url: c.url, author: c.author, committer: c.committer, verification: null, timestamp, added: null, removed: null, modified: null,
      });
      expect(put('push', push)).to.deep.equal({
        ...message(
          `[${a(R, 'alice/widgets')}] alice pushed 2 commits to ${a(`${R}/src/branch/main`, 'main')}:<br>`
          + `${a(`${R}/commit/${C2}`, '9c3f1e2')}: Fix <Widget> & gadget rendering\n\nLong description line.\n - Alice Liddell<br>`
          + `${a(`${R}/commit/${C1}`, '5e4d3c2')}: Add widget factory\n - Bob Builder`,
          `[[alice/widgets](${R})] alice pushed 2 commits to [main](${R}/src/branch/main):\n`
          + `[9c3f1e2](${R}/commit/${C2}): Fix <Widget> & gadget rendering\n\nLong description line.\n - Alice Liddell\n`
          + `[5e4d3c2](${R}/commit/${C1}): Add widget factory\n - Bob Builder`,
        ),
        // Go writes the commits back in its struct's order, times as it formats them.
        'io.gitea.commits': [goCommit(newest, '2025-03-04T10:20:30+01:00'), goCommit(older, '2025-03-04T09:00:00.5+01:00')],
      });
    });

    it('writes the other events as one linked line', () => {
      expect(put('issues', issueOpened)).to.deep.equal(message(
        `[${a(R, 'alice/widgets')}] Issue opened: ${a(`${R}/issues/5`, '#5 Crash when &lt;empty&gt; input')} by ${a(`${ROOT}alice`, 'alice')}`,
        `[[alice/widgets](${R})] Issue opened: [#5 Crash when &lt;empty&gt; input](${R}/issues/5) by [alice](${ROOT}alice)`));
      expect(put('issue_comment', commentCreated)).to.deep.equal(message(
        `[${a(R, 'alice/widgets')}] New comment on issue ${a(`${R}/issues/5`, '#5 Crash when &lt;empty&gt; input')} by ${a(`${ROOT}bob`, 'bob')}`,
        `[[alice/widgets](${R})] New comment on issue [#5 Crash when &lt;empty&gt; input](${R}/issues/5) by [bob](${ROOT}bob)`));
      expect(put('pull_request', prMerged)).to.deep.equal(message(
        `[${a(R, 'alice/widgets')}] Pull request merged: ${a(`${R}/pulls/6`, '#6 Speed up widget cache')} by ${a(`${ROOT}alice`, 'alice')}`,
        `[[alice/widgets](${R})] Pull request merged: [#6 Speed up widget cache](${R}/pulls/6) by [alice](${ROOT}alice)`));
      expect(put('release', releasePublished)).to.deep.equal(message(
        `[${a(R, 'alice/widgets')}] Release created: ${a(`${R}/releases/tag/v1.2.0`, 'v1.2.0')} by ${a(`${ROOT}alice`, 'alice')}`,
        `[[alice/widgets](${R})] Release created: [v1.2.0](${R}/releases/tag/v1.2.0) by [alice](${ROOT}alice)`));
      expect(put('pull_request_review_approved', reviewApproved)).to.deep.equal(message(
        `[${a(R, 'alice/widgets')}] Pull request review approved: ${a(`${R}/pulls/6`, '#6 Speed up widget cache')} by ${a(`${ROOT}bob`, 'bob')}`,
        `[[alice/widgets](${R})] Pull request review approved: [#6 Speed up widget cache](${R}/pulls/6) by [bob](${ROOT}bob)`));
    });

    it("sends Gitea's own push test payload to the transaction id Gitea's test expects", () => {
      // services/webhook/matrix_test.go TestMatrixJSONPayload: meta {"message_type":0}, two "commit message" commits.
      const c = {
        id: '2020558fe2e34debb818a514715839cabd25e778', message: 'commit message', url: 'http://localhost:3000/test/repo/commit/2020558fe2e34debb818a514715839cabd25e778',
        author: { name: 'user1', email: 'user1@localhost', username: 'user1' }, committer: { name: 'user1', email: 'user1@localhost', username: 'user1' },
        verification: null, timestamp: '0001-01-01T00:00:00Z', added: null, removed: null, modified: null,
      };
      const u = { login: 'user1', avatar_url: 'http://localhost:3000/user1/avatar', html_url: 'https://try.gitea.io/user1' };
      const gitea = {
        ref: 'refs/heads/test', before: '2020558fe2e34debb818a514715839cabd25e777', after: c.id, compare_url: '', commits: [c, c], total_commits: 2,
        head_commit: c, repository: { html_url: 'http://localhost:3000/test/repo', name: 'repo', full_name: 'test/repo' }, pusher: u, sender: u,
      };
      const r = formatRequest('matrix', '{"message_type":0}', 'push', JSON.stringify(gitea))!;
      expect([r.method, r.urlSuffix]).to.deep.equal(['PUT', '/6db5dc1e282529a8c162c7fe93dd2667494eeb51']);
    });

    it('links a created branch as a commit, and refuses a body of 64 KiB', () => {
      const created = { sha: C2, ref: 'feature', ref_type: 'branch', repository: repo, sender: alice };
      expect((put('create', created) as { formatted_body: string }).formatted_body).to.equal(
        `[${a(R, 'alice/widgets')}:${a(`${R}/src/commit/feature`, 'feature')}] branch created by alice`);
      const huge = { ...push, commits: [{ ...newest, message: 'x'.repeat(70000) }] };
      expect(() => formatRequest('matrix', META.matrix, 'push', JSON.stringify(huge))).to.throw(/^getMatrixTxnID: payload size \d+ > 65536$/);
    });
  });

  describe('telegram', () => {
    const tg = (event: string, payload: unknown) => {
      const r = body('telegram', event, payload) as { text: string; parse_mode: string; disable_web_page_preview: boolean };
      expect([r.parse_mode, r.disable_web_page_preview]).to.deep.equal(['HTML', true]);
      return r.text;
    };
    const a = (href: string, text: string) => `<a href="${href}" rel="nofollow">${text}</a>`;

    it('sends sanitized HTML: links marked nofollow, text escaped, CRLF as LF', () => {
      expect(tg('push', push)).to.equal(
        `[${a(R, 'alice/widgets')}:${a(CMP, 'main')}] 2 new commits\n`
        + `[${a(`${R}/commit/${C2}`, '9c3f1e2')}] Fix &lt;Widget&gt; &amp; gadget rendering\n\nLong description line. - Alice Liddell\n`
        + `[${a(`${R}/commit/${C1}`, '5e4d3c2')}] Add widget factory - Bob Builder`);
      expect(tg('issues', issueOpened)).to.equal(
        `[${a(R, 'alice/widgets')}] Issue opened: ${a(`${R}/issues/5`, '#5 Crash when &lt;empty&gt; input')} by ${a(`${ROOT}alice`, 'alice')}\n\nSteps:\n1. open\n2. crash`);
      expect(tg('issue_comment', commentCreated)).to.equal(
        `[${a(R, 'alice/widgets')}] New comment on issue ${a(`${R}/issues/5`, '#5 Crash when &lt;empty&gt; input')} by ${a(`${ROOT}bob`, 'bob')}\nCan&#39;t reproduce on main.`);
      expect(tg('pull_request', prMerged)).to.equal(
        `[${a(R, 'alice/widgets')}] Pull request merged: ${a(`${R}/pulls/6`, '#6 Speed up widget cache')} by ${a(`${ROOT}alice`, 'alice')}`);
      expect(tg('release', releasePublished)).to.equal(
        `[${a(R, 'alice/widgets')}] Release created: ${a(`${R}/releases/tag/v1.2.0`, 'v1.2.0')} by ${a(`${ROOT}alice`, 'alice')}`);
      expect(tg('pull_request_review_approved', reviewApproved)).to.equal('[alice/widgets] Pull request review approved: #6 Speed up widget cache\nLGTM');
    });

    it('drops markup the sanitizer does not allow from free texts', () => {
      const wiki = { action: 'edited', repository: repo, sender: alice, page: 'Home Page', comment: 'fix <b>bold</b> <script>x()</script><blink>y</blink>' };
      expect(tg('wiki', wiki)).to.equal(
        `[${a(R, 'alice/widgets')}] Wiki page &#39;${a(`${R}/wiki/Home%20Page`, 'Home Page')}&#39; edited (fix <b>bold</b> y) by ${a(`${ROOT}alice`, 'alice')}`);
    });
  });

  describe('feishu', () => {
    const fs = (event: string, payload: unknown) => body('feishu', event, payload) as { msg_type: string; content: { text: string } };

    it('sends plain text: the push line without its count, summary blocks for issues, pull requests and comments', () => {
      const text = (event: string, payload: unknown) => fs(event, payload).content.text;
      expect(fs('release', releasePublished)).to.deep.equal({ msg_type: 'text', content: { text: '[alice/widgets] Release created: v1.2.0 by alice' } });
      expect(text('push', push)).to.equal(`[alice/widgets:main] \r\n[9c3f1e2](${R}/commit/${C2}) Fix <Widget> & gadget rendering\n\nLong description line. - Alice Liddell`
        + `\r\n[5e4d3c2](${R}/commit/${C1}) Add widget factory - Bob Builder`);
      expect(text('issues', issueOpened)).to.equal(
        `[Issue-alice/widgets #5]: opened\nCrash when <empty> input\n${R}/issues/5\nIssue by alice\nOperator: alice\nAssignees: bob\n\n${ISSUE_BODY}`);
      expect(text('issue_comment', commentCreated)).to.equal(
        `[Comment-alice/widgets #5]: created\nCrash when <empty> input\n${R}/issues/5\nIssue by alice\nOperator: bob\n\nCan't reproduce on main.`);
      expect(text('pull_request', prMerged)).to.equal(
        `[PullRequest-alice/widgets #6]: closed\nSpeed up widget cache\n${R}/pulls/6\nPullRequest by bob\nOperator: alice\n\nCaches results.`);
      expect(text('pull_request_review_approved', reviewApproved)).to.equal('[alice/widgets] Pull request review approved : #6 Speed up widget cache\r\n\r\nLGTM');
    });

    it('writes the bytes as Go does', () => {
      const r = request('feishu', 'push', { ...push, commits: [newest], total_commits: 1 });
      expect(r.body).to.equal([
        '{',
        '  "msg_type": "text",',
        '  "content": {',
        String.raw`    "text": "[alice/widgets:main] \r\n[9c3f1e2](${R}/commit/${C2}) Fix \u003cWidget\u003e \u0026 gadget rendering\n\nLong description line. - Alice Liddell"`,
        '  }',
        '}',
      ].join('\n'));
    });

    it('adds the result line to an assignment that has assignees (issue_assign goes to the issue convertor)', () => {
      const assigned = { ...issueOpened, action: 'assigned', sender: bob };
      expect(fs('issue_assign', assigned).content.text).to.equal(
        `[Issue-alice/widgets #5]: assigned\nCrash when <empty> input\n${R}/issues/5\nIssue by alice\nOperator: bob\nbob assign this to bob\nAssignees: bob\n\n${ISSUE_BODY}`);
    });
  });

  describe('wechatwork', () => {
    const md = (event: string, payload: unknown) => {
      const r = body('wechatwork', event, payload) as { msgtype: string; text: unknown; markdown: { content: string } };
      expect([r.msgtype, r.text]).to.deep.equal(['markdown', { content: '', mentioned_list: null, mentioned_mobile_list: null }]);
      return r.markdown.content;
    };

    it('sends markdown with its font tags (the push heading with an empty count, as Gitea)', () => {
      expect(md('push', push)).to.equal(
        '# alice/widgets:main <font color="warning">    </font>\r\n\r\n'
        + ` > [9c3f1e2](${R}/commit/${C2}) \r\n ><font color="info">Fix <Widget> & gadget rendering\r\nLong description line.\n</font> \n ><font color="warning">Author: Alice Liddell</font>\n`
        + ` > [5e4d3c2](${R}/commit/${C1}) \r\n ><font color="info">Add widget factory\n</font> \n ><font color="warning">Author: Bob Builder</font>`);
      expect(md('issues', issueOpened)).to.equal(
        ` ><font color="info">[alice/widgets] Issue opened: #5 Crash when <empty> input by alice</font>\n >${ISSUE_BODY} \n`
        + ` ><font color="warning"> #5 Crash when <empty> input</font> \n [${R}/issues/5](${R}/issues/5)`);
      expect(md('issue_comment', commentCreated)).to.equal(
        ` ><font color="info">[alice/widgets] New comment on issue #5 Crash when <empty> input by bob</font>\n >Can't reproduce on main. \n`
        + ` ><font color="warning">#5 Crash when <empty> input</font> \n [${R}/issues/5#issuecomment-99](${R}/issues/5#issuecomment-99)`);
      expect(md('pull_request', prMerged)).to.equal(
        '> <font color="info"> [alice/widgets] Pull request merged: #6 Speed up widget cache by alice </font> \r\n'
        + ' > <font color="comment">#6 Speed up widget cache </font> \r\n > <font color="comment"> </font> \r\n');
      expect(md('release', releasePublished)).to.equal('[alice/widgets] Release created: v1.2.0 by alice');
      expect(md('pull_request_review_approved', reviewApproved)).to.equal('# [alice/widgets] Pull request review approved : #6 Speed up widget cache\r\n\r\n >LGTM');
    });
  });

  describe('dingtalk', () => {
    const open = (url: string) => `dingtalk://dingtalkclient/page/link?pc_slide=false&url=${url}`;
    const message = (title: string, text: string, singleTitle: string, singleURL: string) => ({
      msgtype: 'actionCard', text: { content: '' }, link: { text: '', title: '', picUrl: '', messageUrl: '' }, markdown: { text: '', title: '' },
      actionCard: { text, title, hideAvatar: '0', btnOrientation: '', singleTitle, singleURL: open(singleURL), btns: null },
      feedCard: { links: null }, at: { atMobiles: null, isAtAll: false },
    });
    const ENC_R = 'http%3A%2F%2Fforge.test%2Falice%2Fwidgets';

    it('sends an action card whose button opens the page in the browser', () => {
      expect(body('dingtalk', 'push', push)).to.deep.equal(message('[alice/widgets:main] 2 new commits',
        `[9c3f1e2](${R}/commit/${C2}) Fix <Widget> & gadget rendering\n\nLong description line. - Alice Liddell\r\n[5e4d3c2](${R}/commit/${C1}) Add widget factory - Bob Builder`,
        'view commits', `${ENC_R}%2Fcompare%2F${BEFORE}...${C2}`));
      expect(body('dingtalk', 'issues', issueOpened)).to.deep.equal(message('#5 Crash when <empty> input',
        `[alice/widgets] Issue opened: #5 Crash when <empty> input by alice\r\n\r\n${ISSUE_BODY}`, 'view issue', `${ENC_R}%2Fissues%2F5`));
      expect(body('dingtalk', 'issue_comment', commentCreated)).to.deep.equal(message('#5 Crash when <empty> input',
        "[alice/widgets] New comment on issue #5 Crash when <empty> input by bob\r\n\r\nCan't reproduce on main.", 'view issue comment',
        `${ENC_R}%2Fissues%2F5%23issuecomment-99`));
      expect(body('dingtalk', 'pull_request', prMerged)).to.deep.equal(message('#6 Speed up widget cache',
        '[alice/widgets] Pull request merged: #6 Speed up widget cache by alice', 'view pull request', `${ENC_R}%2Fpulls%2F6`));
      expect(body('dingtalk', 'release', releasePublished)).to.deep.equal(message('[alice/widgets] Release created: v1.2.0 by alice',
        '[alice/widgets] Release created: v1.2.0 by alice', 'view release', `${ENC_R}%2Freleases%2Ftag%2Fv1.2.0`));
      expect(body('dingtalk', 'pull_request_review_approved', reviewApproved)).to.deep.equal(message(
        '[alice/widgets] Pull request review approved : #6 Speed up widget cache', '[alice/widgets] Pull request review approved : #6 Speed up widget cache\r\n\r\nLGTM',
        'view pull request', `${ENC_R}%2Fpulls%2F6`));
    });

    it('sends a deleted repository as a text message', () => {
      const deleted = { action: 'deleted', repository: repo, organization: alice, sender: alice };
      const r = body('dingtalk', 'repository', deleted) as { msgtype: string; text: { content: string }; actionCard: { hideAvatar: string } };
      expect([r.msgtype, r.text.content, r.actionCard.hideAvatar]).to.deep.equal(['text', '[alice/widgets] Repository deleted', '']);
    });
  });

  describe('packagist', () => {
    it("posts the package's URL on a push and an empty one on anything else", () => {
      expect(request('packagist', 'push', push).body).to.equal('{\n  "repository": {\n    "url": "https://packagist.org/packages/alice/widgets"\n  }\n}');
      for (const [event, payload] of [['issues', issueOpened], ['issue_comment', commentCreated], ['pull_request', prMerged], ['release', releasePublished]] as const) {
        expect(request('packagist', event, payload).body).to.equal('{\n  "repository": {\n    "url": ""\n  }\n}');
      }
    });
  });

  describe('dispatch', () => {
    it('leaves gitea and gogs hooks to the payload as it is', () => {
      expect(formatRequest('gitea', '', 'push', JSON.stringify(push))).to.equal(null);
      expect(formatRequest('gogs', '', 'push', JSON.stringify(push))).to.equal(null);
    });

    it('maps every event type to a body for every format, without throwing', () => {
      const generic = {
        ...issueOpened, ...prMerged, ...releasePublished, ...commentCreated, ...push, action: 'created', context: 'ci', description: 'ok', sha: C2,
        state: 'success', target_url: `${R}/actions/runs/1`, package: { name: 'w', version: '1', html_url: `${ROOT}alice/-/packages/npm/w/1` },
        workflow_job: { html_url: `${R}/actions/runs/1/jobs/0`, name: 'test', run_id: 1, head_sha: C2, status: 'completed', conclusion: 'success' },
        forkee: repo, ref_type: 'branch',
      };
      const wiki = { action: 'created', repository: repo, sender: alice, page: 'Home', comment: '' };
      const events = ['create', 'delete', 'fork', 'push', 'issues', 'issue_assign', 'issue_label', 'issue_milestone', 'issue_comment', 'pull_request',
        'pull_request_assign', 'pull_request_label', 'pull_request_milestone', 'pull_request_comment', 'pull_request_review_approved',
        'pull_request_review_rejected', 'pull_request_review_comment', 'pull_request_sync', 'pull_request_review_request', 'wiki', 'repository',
        'release', 'package', 'status', 'workflow_run', 'workflow_job'];
      for (const type of ['slack', 'discord', 'msteams', 'matrix', 'telegram', 'dingtalk', 'feishu', 'wechatwork', 'packagist']) {
        for (const event of events) expect(() => request(type, event, event === 'wiki' ? wiki : generic), `${type} ${event}`).to.not.throw();
      }
    });

    it("fails as Gitea does on an event type it does not know and on an unreadable payload", () => {
      expect(() => formatRequest('slack', META.slack, 'schedule', '{}')).to.throw('newPayload unsupported event: schedule');
      expect(() => formatRequest('slack', META.slack, 'push', 'not json')).to.throw(/^could not unmarshal payload: /);
    });
  });
});
