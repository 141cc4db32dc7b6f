/**
 * Issue templates and the issue config against the real server: files pushed with the git CLI,
 * read back with gitea-js and raw HTTP. The default branch's head only, Gitea's directory order,
 * markdown and YAML templates, files that do not parse (counted in X-Gitea-Warning and left out,
 * never a 500), an empty repository (JSON null and the default config), the config's errors and
 * the validate endpoint, who may read them, and the blank-issue rule the issue service will ask.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { GitTool, apiRepo, waitFor } from '../helpers/refs';
import { loadSettings, useSettings } from '../../src/config';
import { blankIssueAllowed } from '../../src/services/issue/template';
import type { RepoContext } from '../../src/services/repo/context';
import type { DbContext } from '../../src/db';

const WARNING = 'error occurs when parsing issue template: count=';
const DEFAULT_CONFIG = { blank_issues_enabled: true, contact_links: [] };

const BUG_MD = `---
name: Bug report
about: Something is broken
title: "[bug] "
labels: bug, needs-triage
assignees: [alice]
ref: main
---
## What happened?
`;

const FORM_YAML = `name: Feature request
description: Ask for something new
title: "[feature] "
labels: [enhancement]
ref: refs/tags/v1
body:
  - type: markdown
    attributes:
      value: Thanks for asking!
  - type: input
    id: summary
    attributes:
      label: Summary
    validations:
      required: true
  - type: dropdown
    attributes:
      label: Area
      options: [api, web]
      default: 0
`;

describe('issue templates and issue config', () => {
  let w: World;
  let alice: TestUser;
  let bob: TestUser;
  let g: GitTool;
  const clones = new Map<string, string>();
  const A = () => ({ token: alice.token });
  const api = (repo: string, tail: string) => `/repos/alice/${repo}/${tail}`;

  /** Write (or, for null, delete) files in alice/<repo> and push them to `branch`. */
  const push = async (repo: string, files: Record<string, string | Buffer | null>, branch = 'main') => {
    let dir = clones.get(repo);
    if (!dir) {
      dir = await g.clone(alice, 'alice', repo);
      clones.set(repo, dir);
    }
    for (const [name, content] of Object.entries(files)) {
      const file = path.join(dir, name);
      if (content === null) fs.rmSync(file, { recursive: true, force: true });
      else {
        fs.mkdirSync(path.dirname(file), { recursive: true });
        fs.writeFileSync(file, content);
      }
    }
    await g.ok(['add', '-A'], dir);
    await g.ok(['commit', '-q', '--allow-empty', '-m', 'templates'], dir);
    await g.ok(['push', '-q', 'origin', `HEAD:refs/heads/${branch}`], dir);
  };
  const templates = (repo: string, token?: string) => w.raw('GET', api(repo, 'issue_templates'), undefined, token ? { token } : {});
  const config = (repo: string) => w.raw('GET', api(repo, 'issue_config'), undefined, A());
  const validate = (repo: string) => w.raw('GET', api(repo, 'issue_config/validate'), undefined, A());
  /** The RepoContext the issue service would hand to blankIssueAllowed (in this process, on the server's storage). */
  const rcOf = (repo: string): RepoContext => ({ owner: { name: 'alice' }, repo: { name: repo, isEmpty: false, defaultBranch: 'main' } }) as unknown as RepoContext;
  const ctx = { doerId: null } as unknown as DbContext;

  before(async () => {
    w = await startWorld();
    [alice, bob] = [await w.user('alice'), await w.user('bob')];
    g = new GitTool(w);
    useSettings(loadSettings(null, { FORGE__SERVER__APP_DATA_PATH: w.server.dataDir, FORGE__LOG__LEVEL: 'none' }));
  });
  after(async () => { await w?.stop(); });

  describe('a repository without templates', () => {
    it('an empty repository has none (JSON null), the default config, and a valid one', async () => {
      await apiRepo(w, alice, 'empty', {});
      const t = await templates('empty', alice.token);
      expect(t.status, t.text).to.equal(200);
      expect(t.text).to.equal('null');
      expect(t.headers.get('content-type')).to.match(/^application\/json/);
      expect(t.headers.get('x-gitea-warning')).to.equal(null);
      expect((await alice.api.repos.repoGetIssueTemplates('alice', 'empty')).data).to.equal(null);
      expect((await alice.api.repos.repoGetIssueConfig('alice', 'empty')).data).to.deep.equal(DEFAULT_CONFIG);
      expect((await alice.api.repos.repoValidateIssueConfig('alice', 'empty')).data).to.deep.equal({ valid: true, message: '' });
    });

    it('a repository whose default branch has no templates has none either', async () => {
      await apiRepo(w, alice, 'plain');
      expect((await templates('plain')).text).to.equal('null');
      expect((await config('plain')).body).to.deep.equal(DEFAULT_CONFIG);
      expect(await blankIssueAllowed(ctx, rcOf('plain'))).to.equal(true);
    });
  });

  describe('templates', () => {
    before(async () => {
      await apiRepo(w, alice, 'proj');
      await push('proj', {
        'ISSUE_TEMPLATE/plain.md': 'Describe the problem.\n',
        '.gitea/ISSUE_TEMPLATE/bug.md': BUG_MD,
        '.gitea/ISSUE_TEMPLATE/form.yaml': FORM_YAML,
        '.gitea/ISSUE_TEMPLATE/broken.yaml': 'name: [unclosed\n',
        '.gitea/ISSUE_TEMPLATE/no-about.yml': 'name: x\nbody:\n  - type: markdown\n    attributes: {value: v}\n',
        '.gitea/ISSUE_TEMPLATE/bad-field.yml': 'name: x\nabout: y\nbody:\n  - type: input\n    id: "a b"\n    attributes: {label: l}\n',
        '.gitea/ISSUE_TEMPLATE/config.yml': 'blank_issues_enabled: true\n',
        '.gitea/ISSUE_TEMPLATE/notes.txt': 'not a template',
        '.gitea/ISSUE_TEMPLATE/sub/nested.md': 'not scanned',
        '.github/ISSUE_TEMPLATE/gh.yml': 'name: From GitHub\nabout: gh\nref: ""\nbody:\n  - type: textarea\n    attributes: {label: Details}\n',
        '.gitlab/issue_template/bomb.yaml': `name: b\nabout: b\nbody:\n  - type: input\n    attributes: {label: l}\n    validations:\n      a: &a [x, x, x, x, x, x, x, x, x, x]\n${
          'bcdefgh'.split('').map((c, i) => `      ${c}: &${c} [${Array(10).fill(`*${'abcdefg'[i]}`).join(', ')}]\n`).join('')}      z: *h\n`,
      });
    });

    it("lists the default branch's templates in Gitea's order, counting the files that do not parse", async () => {
      const r = await templates('proj', alice.token);
      expect(r.status, r.text).to.equal(200);
      expect(r.headers.get('x-gitea-warning')).to.equal(`${WARNING}4`);
      expect(r.body.map((t: { file_name: string }) => t.file_name)).to.deep.equal([
        'ISSUE_TEMPLATE/plain.md', '.gitea/ISSUE_TEMPLATE/bug.md', '.gitea/ISSUE_TEMPLATE/form.yaml', '.github/ISSUE_TEMPLATE/gh.yml',
      ]);
      const viaJs = await alice.api.repos.repoGetIssueTemplates('alice', 'proj');
      expect(viaJs.data).to.deep.equal(r.body);
      expect(viaJs.headers.get('x-gitea-warning')).to.equal(`${WARNING}4`);
    });

    it('shows markdown templates with their front matter, or named after the file without one', async () => {
      const [plain, bug] = (await templates('proj')).body;
      expect(plain).to.deep.equal({
        name: 'plain.md', title: '', about: 'Describe the problem.\n', labels: null, assignees: null, ref: 'refs/heads/',
        content: 'Describe the problem.\n', body: null, file_name: 'ISSUE_TEMPLATE/plain.md',
      });
      expect(bug).to.deep.equal({
        name: 'Bug report', title: '[bug] ', about: 'Something is broken', labels: ['bug', 'needs-triage'], assignees: ['alice'],
        ref: 'refs/heads/main', content: '## What happened?\n', body: null, file_name: '.gitea/ISSUE_TEMPLATE/bug.md',
      });
    });

    it('shows YAML forms with default ids and visibility, and `description` as about', async () => {
      const [, , form, gh] = (await templates('proj')).body;
      expect(form).to.deep.equal({
        name: 'Feature request', title: '[feature] ', about: 'Ask for something new', labels: ['enhancement'], assignees: null,
        ref: 'refs/tags/v1', content: '',
        body: [
          { type: 'markdown', id: '0', attributes: { value: 'Thanks for asking!' }, validations: null, visible: ['form'] },
          { type: 'input', id: 'summary', attributes: { label: 'Summary' }, validations: { required: true }, visible: ['form', 'content'] },
          { type: 'dropdown', id: '2', attributes: { default: 0, label: 'Area', options: ['api', 'web'] }, validations: null, visible: ['form', 'content'] },
        ],
        file_name: '.gitea/ISSUE_TEMPLATE/form.yaml',
      });
      expect(gh.ref).to.equal('refs/heads/');
      expect(gh.body).to.deep.equal([{ type: 'textarea', id: '0', attributes: { label: 'Details' }, validations: null, visible: ['form', 'content'] }]);
    });

    it('reads only the default branch, at its head', async () => {
      await push('proj', { 'ISSUE_TEMPLATE/other.md': 'Only on another branch\n' }, 'other');
      const names = (await templates('proj')).body.map((t: { file_name: string }) => t.file_name);
      expect(names).to.not.include('ISSUE_TEMPLATE/other.md');
      expect(names).to.have.length(4);
    });

    it('answers null with the warning when no file parses, and survives oversized and binary files', async () => {
      await apiRepo(w, alice, 'allbad');
      await push('allbad', {
        '.github/issue_template/huge.md': Buffer.alloc(8 * 1024 * 1024 + 1, 'a'),
        '.github/issue_template/bad.yml': 'about: no name\n',
        '.github/issue_template/tab.yml': 'name: x\n\tabout: y\n',
      });
      const r = await templates('allbad');
      expect(r.status, r.text).to.equal(200);
      expect(r.text).to.equal('null');
      expect(r.headers.get('x-gitea-warning')).to.equal(`${WARNING}3`);
      await push('allbad', { '.github/issue_template/binary.md': Buffer.from([0xff, 0xfe, 0x00, 0x80, 0x41, 0x0a]) });
      const b = await templates('allbad');
      expect(b.status, b.text).to.equal(200);
      expect(b.body.map((t: { name: string }) => t.name)).to.deep.equal(['binary.md']);
    });

    it('is refused like a missing repository to those who cannot read the code', async () => {
      await apiRepo(w, alice, 'secret', { auto_init: true, private: true });
      await push('secret', { 'ISSUE_TEMPLATE/a.md': 'x\n' });
      for (const tail of ['issue_templates', 'issue_config', 'issue_config/validate']) {
        expect((await w.raw('GET', api('secret', tail))).status, tail).to.equal(404);
        expect((await w.raw('GET', api('secret', tail), undefined, { token: bob.token })).status, tail).to.equal(404);
        expect((await w.raw('GET', api('secret', tail), undefined, A())).status, tail).to.equal(200);
        expect((await w.raw('GET', api('proj', tail))).status, `anonymous on a public repository: ${tail}`).to.equal(200);
      }
      expect((await w.raw('PATCH', `/repos/alice/secret`, { has_code: false }, A())).status).to.equal(200);
      expect((await templates('secret', alice.token)).status).to.equal(404);
      expect((await w.raw('GET', `/repos/alice/nothing/issue_templates`, undefined, A())).status).to.equal(404);
    });
  });

  describe('issue config', () => {
    before(async () => { await apiRepo(w, alice, 'cfg'); });

    it('reads the first config found, .gitea before .github and .yaml before .yml', async () => {
      await push('cfg', {
        '.github/ISSUE_TEMPLATE/config.yaml': 'blank_issues_enabled: true\n',
        '.gitea/issue_template/config.yml': 'blank_issues_enabled: true\n',
        '.gitea/issue_template/config.yaml': 'blank_issues_enabled: false\ncontact_links:\n  - name: Forum\n    url: https://forum.example.com\n    about: Ask questions there\n',
      });
      expect((await alice.api.repos.repoGetIssueConfig('alice', 'cfg')).data).to.deep.equal({
        blank_issues_enabled: false, contact_links: [{ name: 'Forum', url: 'https://forum.example.com', about: 'Ask questions there' }],
      });
      expect((await validate('cfg')).body).to.deep.equal({ valid: true, message: '' });
      // why: blank issues are off and there are contact links (Gitea counts them as templates).
      expect(await blankIssueAllowed(ctx, rcOf('cfg'))).to.equal(false);
      await push('cfg', { '.gitea/ISSUE_TEMPLATE/config.yml': 'blank_issues_enabled: true\n' });
      expect((await config('cfg')).body).to.deep.equal(DEFAULT_CONFIG);
      expect(await blankIssueAllowed(ctx, rcOf('cfg'))).to.equal(true);
    });

    it('reads .gitea/issue_config.yaml after Gitea\'s .gitea files and before .github\'s', async () => {
      await apiRepo(w, alice, 'seedcfg');
      await push('seedcfg', {
        '.github/ISSUE_TEMPLATE/config.yaml': 'blank_issues_enabled: true\n',
        '.gitea/issue_config.yaml': 'blank_issues_enabled: false\ncontact_links:\n  - name: Chat\n    url: https://chat.example.com\n    about: Talk to us\n',
      });
      const seed = { blank_issues_enabled: false, contact_links: [{ name: 'Chat', url: 'https://chat.example.com', about: 'Talk to us' }] };
      expect((await config('seedcfg')).body).to.deep.equal(seed);
      expect((await validate('seedcfg')).body).to.deep.equal({ valid: true, message: '' });
      expect(await blankIssueAllowed(ctx, rcOf('seedcfg'))).to.equal(false);
      await push('seedcfg', { '.gitea/issue_config.yaml': 'blank_issues_enabled: nope\n' });
      expect((await config('seedcfg')).body).to.deep.equal(DEFAULT_CONFIG);
      expect((await validate('seedcfg')).body.valid).to.equal(false);
      await push('seedcfg', { '.gitea/ISSUE_TEMPLATE/config.yaml': 'blank_issues_enabled: true\n' });
      expect((await validate('seedcfg')).body).to.deep.equal({ valid: true, message: '' });
      expect(await blankIssueAllowed(ctx, rcOf('seedcfg'))).to.equal(true);
    });

    it('answers the default config for a broken one, and says why on validate', async () => {
      const cases: [string, string | RegExp][] = [
        ['blank_issues_enabled: false\ncontact_links:\n  - name: Forum\n    about: a\n', 'contact_link at position 1 is missing url key'],
        ['contact_links:\n  - name: a\n    url: https://a.example\n    about: a\n  - url: https://b.example\n    about: b\n', 'contact_link at position 2 is missing name key'],
        ['contact_links:\n  - name: Forum\n    url: forum.example.com\n    about: a\n', 'forum.example.com is not a valid URL'],
        ['blank_issues_enabled: sometimes\n', 'yaml: unmarshal errors:\n  line 1: cannot unmarshal !!str `sometimes` into bool'],
        ['blank_issues_enabled: false\ncontact_links: [\n', /^yaml: line \d+: /],
      ];
      for (const [content, message] of cases) {
        await push('cfg', { '.gitea/ISSUE_TEMPLATE/config.yml': content });
        const c = await config('cfg');
        expect(c.status, c.text).to.equal(200);
        expect(c.body, content).to.deep.equal(DEFAULT_CONFIG);
        const v = await validate('cfg');
        expect(v.status, v.text).to.equal(200);
        expect(v.body.valid, content).to.equal(false);
        if (typeof message === 'string') expect(v.body.message).to.equal(message);
        else expect(v.body.message).to.match(message);
        expect(await blankIssueAllowed(ctx, rcOf('cfg'))).to.equal(true);
      }
    });

    it('refuses blank issues only when templates or contact links exist and the config turns them off', async () => {
      await apiRepo(w, alice, 'blank');
      await push('blank', { '.gitea/ISSUE_TEMPLATE/config.yaml': 'blank_issues_enabled: false\n' });
      expect(await blankIssueAllowed(ctx, rcOf('blank'))).to.equal(true);
      await push('blank', { '.gitea/ISSUE_TEMPLATE/broken.md': '   \n' });
      expect(await blankIssueAllowed(ctx, rcOf('blank'))).to.equal(true);
      await push('blank', { '.gitea/ISSUE_TEMPLATE/ok.md': 'A template\n' });
      expect(await blankIssueAllowed(ctx, rcOf('blank'))).to.equal(false);
    });

    it('reads an empty repository that gets its first push', async () => {
      await apiRepo(w, alice, 'late', {});
      await push('late', { '.gitea/ISSUE_TEMPLATE/config.yaml': 'contact_links:\n  - name: x\n    url: /relative\n    about: y\n', 'ISSUE_TEMPLATE/a.md': 'A\n' });
      await waitFor('the push to be seen', async () => (await w.raw('GET', '/repos/alice/late', undefined, A())).body.empty === false);
      expect((await templates('late')).body.map((t: { name: string }) => t.name)).to.deep.equal(['a.md']);
      expect((await config('late')).body.contact_links).to.deep.equal([{ name: 'x', url: '/relative', about: 'y' }]);
    });
  });
});
