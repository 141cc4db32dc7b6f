/**
 * The package pages in a real browser: a Go module (a zip made with `zip`) and an R package (a
 * tarball of `{name}/DESCRIPTION` made with `tar`) published through the registries, then browsed
 * as a person would: the profile's Packages tab, the type filter and search, the version pages
 * with their install commands, metadata and files (downloaded from the registry; a Debian package
 * in two distributions among them, with apt's set-up and where its files are), the versions
 * page; linking a package to a repository in its settings and finding it on the repository's
 * Packages tab; deleting a version. A reader gets no settings (404) and an outsider sees nothing
 * of a private organization's packages nor of a private linked repository. Without a browser: a
 * forged settings form and a reader's form change nothing, and with [packages] ENABLED off there
 * are no package pages nor tabs. Screenshots at 1280 and 375 px, axe without serious or critical
 * violations.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { apiRepo } from '../helpers/refs';
import { count } from '../helpers/db';
import { WebClient } from '../helpers/web';
import { launchBrowser, look, watchedPage, type WatchedPage } from '../helpers/browser';
import { debPackage } from '../helpers/packages';

const run = promisify(execFile);

describe('package pages in a browser', function () {
  this.timeout(120_000);
  let w: World;
  let alice: TestUser;
  let bob: TestUser;
  let browser: Browser;
  let wp: WatchedPage;
  let tmp: string;
  const url = (p = '') => `${w.server.rootUrl}${p}`;
  const basic = (u: TestUser) => `Basic ${Buffer.from(`${u.name}:${u.token}`).toString('base64')}`;
  const hello = 'example.com/hello';
  const helloPage = (v: string) => url(`alice/-/packages/go/example.com%2Fhello/${v}`);

  /** A module zip of `{module}@{version}/` with go.mod and one Go file, as `zip -r -D` makes it. */
  async function moduleZip(module: string, version: string): Promise<Buffer> {
    const root = fs.mkdtempSync(path.join(tmp, 'mod-'));
    const dir = path.join(root, `${module}@${version}`);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'go.mod'), `module ${module}\n\ngo 1.21\n`);
    fs.writeFileSync(path.join(dir, 'hello.go'), `package hello\n\nfunc Hello() string { return "hi" }\n`);
    await run('zip', ['-q', '-r', '-D', path.join(root, 'm.zip'), `${module}@${version}`], { cwd: root });
    return fs.readFileSync(path.join(root, 'm.zip'));
  }

  /** An R source package: a tarball of `{name}/DESCRIPTION` with a title, authors and dependencies. */
  async function cranTarball(name: string, version: string): Promise<Buffer> {
    const root = fs.mkdtempSync(path.join(tmp, 'cran-'));
    fs.mkdirSync(path.join(root, name));
    fs.writeFileSync(path.join(root, name, 'DESCRIPTION'), [
      `Package: ${name}`, `Version: ${version}`, 'Title: Tidy Foo Tools', 'Description: Tools that tidy foo',
      '    across several lines.', 'Author: Ann Author [aut, cre], Bob Helper [ctb]', 'License: MIT + file LICENSE',
      'URL: https://example.com/tidyfoo', 'Depends: R (>= 4.0)', 'Imports: utils, stats', 'NeedsCompilation: no', '',
    ].join('\n'));
    await run('tar', ['-czf', 'p.tar.gz', name], { cwd: root });
    return fs.readFileSync(path.join(root, 'p.tar.gz'));
  }

  async function publish(owner: string, kind: 'go/upload' | 'cran/src', body: Buffer): Promise<void> {
    const res = await fetch(url(`api/packages/${owner}/${kind}`), { method: 'PUT', body, headers: { Authorization: basic(alice) } });
    expect(res.status, await res.text()).to.equal(201);
  }

  async function signIn(page: WatchedPage['page'], u: TestUser): Promise<void> {
    await page.goto(url('user/login'));
    await page.fill('input[name=user_name]', u.name);
    await page.fill('input[name=password]', u.password);
    await Promise.all([page.waitForURL(url()), page.click('form[action$="/user/login"] button[type=submit]')]);
  }

  const versionsOf = async (module: string) => (await (await fetch(url(`api/packages/alice/go/${module}/@v/list`))).text()).split('\n').filter(Boolean);

  before(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'browser-packages-'));
    w = await startWorld();
    [alice, bob] = [await w.user('alice'), await w.user('bob')];
    await apiRepo(w, alice, 'demo');
    await apiRepo(w, alice, 'hidden', { auto_init: true, private: true });
    const org = await w.raw('POST', '/orgs', { username: 'secretorg', visibility: 'private' }, { token: alice.token });
    expect(org.status, org.text).to.equal(201);
    await publish('alice', 'go/upload', await moduleZip(hello, 'v1.0.0'));
    await publish('alice', 'cran/src', await cranTarball('tidyfoo', '1.2.0'));
    await publish('alice', 'go/upload', await moduleZip(hello, 'v1.1.0'));
    await publish('secretorg', 'go/upload', await moduleZip('example.com/secret', 'v0.1.0'));
    browser = await launchBrowser();
    wp = await watchedPage(browser);
    await wp.page.setViewportSize({ width: 1280, height: 800 });
    await signIn(wp.page, alice);
  });
  after(async () => {
    await browser?.close();
    await w?.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  });
  afterEach(function () {
    expect(wp.problems, this.currentTest?.title).to.deep.equal([]);
  });

  it('lists the owner\'s packages from the profile\'s Packages tab, filtered by type and name', async () => {
    const page = wp.page;
    await page.goto(url('alice'));
    await Promise.all([page.waitForURL(url('alice/-/packages')), page.click('nav.tabs a:has-text("Packages")')]);
    expect(await page.locator('.package-name').allTextContents()).to.deep.equal([hello, 'tidyfoo']);
    // why: each package once, with its latest upload.
    expect(await page.locator('.package-list li').first().textContent()).to.match(/v1\.1\.0\s+Go[\s\S]*Published[\s\S]*by alice/);
    await look(page, 'packages-list');
    await page.selectOption('select[name=type]', 'cran');
    await Promise.all([page.waitForURL(/type=cran/), page.click('.package-search button[type=submit]')]);
    expect(await page.locator('.package-name').allTextContents()).to.deep.equal(['tidyfoo']);
    await page.selectOption('select[name=type]', '');
    await page.fill('input[name=q]', 'HELL');
    await Promise.all([page.waitForURL(/q=HELL/), page.click('.package-search button[type=submit]')]);
    expect(await page.locator('.package-name').allTextContents()).to.deep.equal([hello]);
    await page.fill('input[name=q]', 'nothing-like-it');
    await Promise.all([page.waitForURL(/q=nothing/), page.click('.package-search button[type=submit]')]);
    expect(await page.locator('main').textContent()).to.include('Your filter produced no results.');
  });

  it('shows a Go version with its install command, go.mod, files and versions', async () => {
    const page = wp.page;
    await page.goto(url('alice/-/packages'));
    await Promise.all([page.waitForURL(helloPage('v1.1.0')), page.click(`a.package-name:has-text("${hello}")`)]);
    expect(await page.locator('h2.package-title').textContent()).to.match(/example\.com\/hello\s+\(v1\.1\.0\)/);
    expect(await page.locator('.install-code').allTextContents()).to.deep.equal([`GOPROXY=${url('api/packages/alice/go')} go install ${hello}@v1.1.0`]);
    expect(await page.locator('.package-document').textContent()).to.equal(`module ${hello}\n\ngo 1.21\n`);
    expect(await page.locator('.package-files li').allTextContents()).to.have.lengthOf(1);
    const file = page.locator('.package-files a');
    expect(await file.textContent()).to.equal('v1.1.0.zip');
    const href = (await file.getAttribute('href'))!;
    expect(href).to.equal(url('api/packages/alice/go/example.com/hello/@v/v1.1.0.zip'));
    const zip = await fetch(href);
    expect(zip.status).to.equal(200);
    expect(Buffer.from(await zip.arrayBuffer()).subarray(0, 2).toString()).to.equal('PK');
    expect(await page.locator('.package-versions a').allTextContents()).to.deep.equal(['v1.1.0', 'v1.0.0']);
    expect(await page.locator('.package-links a:has-text("Settings")').count()).to.equal(1);
    await look(page, 'package-go');
    // The package's own address goes to its latest version.
    await page.goto(url('alice/-/packages/go/example.com%2Fhello'));
    expect(page.url()).to.equal(helloPage('v1.1.0'));
  });

  it('lists every version on the versions page, sorted and searched', async () => {
    const page = wp.page;
    await page.goto(helloPage('v1.1.0'));
    await Promise.all([page.waitForURL(/\/versions$/), page.click('a:has-text("View all")')]);
    expect(await page.locator('.package-name').allTextContents()).to.deep.equal(['v1.1.0', 'v1.0.0']);
    await look(page, 'package-versions');
    await page.selectOption('select[name=sort]', 'version_asc');
    await Promise.all([page.waitForURL(/sort=version_asc/), page.click('.package-search button[type=submit]')]);
    expect(await page.locator('.package-name').allTextContents()).to.deep.equal(['v1.0.0', 'v1.1.0']);
    await page.fill('input[name=q]', 'V1.0');
    await Promise.all([page.waitForURL(/q=V1\.0/), page.click('.package-search button[type=submit]')]);
    expect(await page.locator('.package-name').allTextContents()).to.deep.equal(['v1.0.0']);
  });

  it('shows an R package with its Rprofile line, install command, description and dependencies', async () => {
    const page = wp.page;
    await page.goto(url('alice/-/packages?type=cran'));
    await Promise.all([page.waitForURL(url('alice/-/packages/cran/tidyfoo/1.2.0')), page.click('a.package-name:has-text("tidyfoo")')]);
    expect(await page.locator('.install-code').allTextContents()).to.deep.equal([
      `options("repos" = c(getOption("repos"), c(gitea="${url('api/packages/alice/cran')}")))`, 'install.packages("tidyfoo")',
    ]);
    const main = (await page.locator('.package-main').textContent())!.replace(/\s+/g, ' ');
    expect(main).to.include('Tidy Foo Tools').and.include('Tools that tidy foo across several lines.');
    expect(await page.locator('table.package-deps tr').evaluateAll((rows) => rows.map((r) => [...r.children].map((c) => c.textContent)))).to.deep.equal([
      ['Imports', 'utils, stats'], ['Depends', 'R (>= 4.0)'],
    ]);
    const side = (await page.locator('.package-side').textContent())!.replace(/\s+/g, ' ');
    expect(side).to.include('MIT + file LICENSE').and.include('Ann Author').and.include('Bob Helper');
    expect(await page.locator('.package-side a:has-text("Project Site")').getAttribute('href')).to.equal('https://example.com/tidyfoo');
    const href = (await page.locator('.package-files a').getAttribute('href'))!;
    expect(href).to.equal(url('api/packages/alice/cran/src/contrib/tidyfoo_1.2.0.tar.gz'));
    expect((await fetch(href)).status).to.equal(200);
    await look(page, 'package-cran');
  });

  it('shows a Debian package with apt\'s set-up, where its files are, and downloads that apt can fetch', async () => {
    const control = 'Package: hello-deb\nVersion: 2.1-1\nArchitecture: amd64\nMaintainer: Ann Packer <ann@example.com>\nDepends: libc6 (>= 2.36), forge-doc\nHomepage: https://example.com/hello-deb\nDescription: says hello\n From a Debian package.\n';
    const deb = fs.readFileSync(debPackage(tmp, control));
    for (const dist of ['bookworm', 'trixie']) {
      const res = await fetch(url(`api/packages/alice/debian/pool/${dist}/main/upload`), { method: 'PUT', body: deb, headers: { Authorization: basic(alice) } });
      expect(res.status, await res.text()).to.equal(201);
    }
    const page = wp.page;
    await page.goto(url('alice/-/packages?type=debian'));
    await Promise.all([page.waitForURL(url('alice/-/packages/debian/hello-deb/2.1-1')), page.click('a.package-name:has-text("hello-deb")')]);
    const registry = url('api/packages/alice/debian');
    expect(await page.locator('.install-code').allTextContents()).to.deep.equal([
      `sudo curl ${registry}/repository.key -o /etc/apt/keyrings/gitea-alice.asc\necho "deb [signed-by=/etc/apt/keyrings/gitea-alice.asc] ${registry} $distribution $component" | sudo tee -a /etc/apt/sources.list.d/gitea.list\nsudo apt update`,
      'sudo apt install hello-deb=2.1-1',
    ]);
    expect(await page.locator('table.package-deps tr').evaluateAll((rows) => rows.map((r) => [...r.children].map((c) => c.textContent)))).to.deep.equal([
      ['Distributions', 'bookworm, trixie'], ['Components', 'main'], ['Architectures', 'amd64'], ['Depends', 'libc6 (>= 2.36), forge-doc'],
    ]);
    const hrefs = await page.locator('.package-files a').evaluateAll((links) => links.map((a) => a.getAttribute('href') ?? ''));
    expect(hrefs.sort()).to.deep.equal([`${registry}/pool/bookworm/main/hello-deb_2.1-1_amd64.deb`, `${registry}/pool/trixie/main/hello-deb_2.1-1_amd64.deb`]);
    for (const href of hrefs) expect(Buffer.from(await (await fetch(href)).arrayBuffer())).to.deep.equal(deb);
    await look(page, 'package-debian');
    // why: the lists of the tests after this one hold the Go and R packages only.
    expect((await w.raw('DELETE', '/packages/alice/debian/hello-deb/2.1-1', undefined, { token: alice.token })).status).to.equal(204);
  });

  it('links a package to a repository in its settings; the repository\'s Packages tab lists it', async () => {
    const page = wp.page;
    await page.goto(url('alice/demo'));
    await Promise.all([page.waitForURL(url('alice/demo/packages')), page.click('nav.tabs a:has-text("Packages")')]);
    expect(await page.locator('main').textContent()).to.include('There are no packages yet.');
    await look(page, 'repo-packages-empty');
    await page.goto(helloPage('v1.1.0'));
    await Promise.all([page.waitForURL(`${helloPage('v1.1.0')}/settings`), page.click('.package-links a:has-text("Settings")')]);
    await look(page, 'package-settings');
    await page.selectOption('select[name=repo]', 'demo');
    await Promise.all([page.waitForURL(`${helloPage('v1.1.0')}/settings`), page.click('button:has-text("Update repository link")')]);
    expect(await page.locator('.flash').first().textContent()).to.include('Repository link was successfully updated.');
    expect(await page.locator('.package-link').textContent()).to.include('alice/demo');
    await page.goto(url('alice/demo/packages'));
    expect(await page.locator('.package-name').allTextContents()).to.deep.equal([hello]);
    expect(await page.locator('.package-meta').textContent()).to.include('in alice/demo');
    await look(page, 'repo-packages');
    const api = await w.raw('GET', '/packages/alice/go/example.com%2Fhello/v1.1.0', undefined, { token: alice.token });
    expect(api.body.repository?.full_name, api.text).to.equal('alice/demo');
  });

  it('deletes a version after its name is typed; a wrong confirmation deletes nothing', async () => {
    const page = wp.page;
    await page.goto(`${helloPage('v1.1.0')}/settings`);
    await page.click('summary:has-text("Delete package version")');
    await page.fill('input[name=confirm]', 'v1.0.0');
    await Promise.all([page.waitForURL(`${helloPage('v1.1.0')}/settings`), page.click('button:has-text("Delete package version")')]);
    expect(await page.locator('.flash.error').textContent()).to.include('Type v1.1.0 to confirm the deletion.');
    expect(await versionsOf(hello)).to.deep.equal(['v1.0.0', 'v1.1.0']);
    await page.click('summary:has-text("Delete package version")');
    await page.fill('input[name=confirm]', 'v1.1.0');
    await Promise.all([page.waitForURL(helloPage('v1.0.0')), page.click('button:has-text("Delete package version")')]);
    expect(await page.locator('.flash').first().textContent()).to.include('The package has been deleted.');
    expect(await versionsOf(hello)).to.deep.equal(['v1.0.0']);
    expect(await page.locator('.package-versions a').allTextContents()).to.deep.equal(['v1.0.0']);
    await look(page, 'package-after-delete');
  });

  it('gives a reader no settings, and an outsider nothing private', async () => {
    // alice links the R package to her private repository: the package stays listed, the repository does not show.
    const a = await WebClient.signedIn(w, alice);
    await a.get('alice/-/packages/cran/tidyfoo/1.2.0/settings');
    const linked = await a.form('alice/-/packages/cran/tidyfoo/1.2.0/settings', { action: 'link', repo: 'hidden' });
    expect(linked.status).to.equal(303);
    const bw = await watchedPage(browser);
    try {
      const page = bw.page;
      await page.setViewportSize({ width: 1280, height: 800 });
      await signIn(page, bob);
      await page.goto(url('alice/-/packages'));
      // why: hello's latest upload is now v1.0.0, older than tidyfoo's.
      expect(await page.locator('.package-name').allTextContents()).to.deep.equal(['tidyfoo', hello]);
      expect(await page.locator('main').textContent()).to.not.include('hidden');
      await page.goto(url('alice/-/packages/cran/tidyfoo/1.2.0'));
      expect(await page.locator('main').textContent()).to.not.include('hidden');
      expect(await page.locator('.package-links').count()).to.equal(0);
      const settings = await page.goto(url('alice/-/packages/cran/tidyfoo/1.2.0/settings'));
      expect(settings?.status()).to.equal(404);
      expect(await page.locator('main').textContent()).to.include('Page not found');
      await look(page, 'package-settings-404');
      expect((await page.goto(url('secretorg/-/packages')))?.status()).to.equal(404);
      expect((await page.goto(url('secretorg/-/packages/go/example.com%2Fsecret/v0.1.0')))?.status()).to.equal(404);
      expect(bw.problems).to.deep.equal([]);
    } finally {
      await bw.context.close();
    }
    // The organization's own member sees them, with the organization's tabs.
    await wp.page.goto(url('secretorg'));
    await Promise.all([wp.page.waitForURL(url('secretorg/-/packages')), wp.page.click('nav.tabs a:has-text("Packages")')]);
    expect(await wp.page.locator('.package-name').allTextContents()).to.deep.equal(['example.com/secret']);
    await look(wp.page, 'org-packages');
  });

  it('changes nothing for a forged settings form or a reader\'s form (plain HTTP)', async () => {
    const settingsPath = 'alice/-/packages/go/example.com%2Fhello/v1.0.0/settings';
    const state = () => count(w.server, "SELECT (SELECT COUNT(*) FROM package_version) * 1000 + (SELECT SUM(repo_id) FROM package) AS n");
    const before = await state();
    const a = await WebClient.signedIn(w, alice);
    expect((await a.get(settingsPath)).status).to.equal(200);
    const noToken = await a.form(settingsPath, { action: 'delete', confirm: 'v1.0.0' }, { csrf: null });
    expect(noToken.status).to.equal(403);
    const elsewhere = await a.form(settingsPath, { action: 'unlink' }, { origin: 'https://evil.example' });
    expect(elsewhere.status).to.equal(403);
    const b = await WebClient.signedIn(w, bob);
    expect((await b.get(settingsPath)).status).to.equal(404);
    await b.get('alice/-/packages');
    expect(b.csrf).to.not.equal('');
    expect((await b.form(settingsPath, { action: 'delete', confirm: 'v1.0.0' })).status).to.equal(404);
    expect((await b.form(settingsPath, { action: 'unlink' })).status).to.equal(404);
    const anon = new WebClient(w);
    expect((await anon.get(settingsPath)).status).to.equal(404);
    expect(await state()).to.equal(before);
    expect(await versionsOf(hello)).to.deep.equal(['v1.0.0']);
    // A refused link is said on the page and changes nothing: the package is linked already.
    await a.get(settingsPath);
    const again = await a.form(settingsPath, { action: 'link', repo: 'hidden' });
    expect(again.location).to.match(/\/settings$/);
    expect((await a.get(settingsPath)).text).to.include('Failed to update repository link: the package is already linked to a repository; unlink it first.');
    expect(await state()).to.equal(before);
  });

  it('has no package pages or tabs while [packages] ENABLED is off', async () => {
    const off = await startWorld({ env: { FORGE__PACKAGES__ENABLED: 'false' } });
    try {
      const carol = await off.user('carol');
      await apiRepo(off, carol, 'plain');
      const c = await WebClient.signedIn(off, carol);
      for (const p of ['carol/-/packages', 'carol/-/packages/go/example.com%2Fx', 'carol/-/packages/go/example.com%2Fx/v1.0.0/settings', 'carol/plain/packages']) {
        expect((await c.get(p)).status, p).to.equal(404);
      }
      expect((await c.get('carol')).text).to.not.include('/-/packages');
      expect((await c.get('carol/plain')).text).to.not.include('/carol/plain/packages');
    } finally {
      await off.stop();
    }
  });
});
