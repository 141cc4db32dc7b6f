/**
 * `forge dump-repo` and `forge restore-repo`: a repository with labels, a milestone, issues with
 * comments and reactions, a pull request with a review and its line comment, a release with an
 * asset and a wiki is dumped to one .tar.gz of JSON documents and git bundles, and restored under
 * a new name, where the API serves the same things and git the same refs. Hostile archives (a
 * `..` entry, an absolute path, a symlink, a hard link, a device, too many entries, too many bytes)
 * and invalid documents are refused with the entry, or the file, JSON pointer and rule, named; a
 * refusal, and a restore that fails half-way, leave no repository row and no directory.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { pipeline } from 'node:stream/promises';
import tar from 'tar-stream';
import { expect } from 'chai';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { apiRepo, GitTool, outboxSettled } from '../helpers/refs';
import { count } from '../helpers/db';
import { serverRepoDir } from '../helpers/repo-fixture';

/** A member of a test archive. */
interface Member { name: string; data?: Buffer | string; type?: tar.Header['type']; linkname?: string }

/** Write `members` as a .tar.gz at `file`. */
async function writeTgz(file: string, members: Member[]): Promise<void> {
  const pack = tar.pack();
  const done = pipeline(pack, zlib.createGzip(), fs.createWriteStream(file));
  for (const m of members) {
    const data = m.type && m.type !== 'file' ? Buffer.alloc(0) : Buffer.from(m.data ?? '');
    const header = { name: m.name, type: m.type ?? 'file', linkname: m.linkname, size: data.length, devmajor: 1, devminor: 3 };
    await new Promise<void>((resolve, reject) => pack.entry(header, data, (err) => (err ? reject(err) : resolve())));
  }
  pack.finalize();
  await done;
}

/** The files of a .tar.gz, by name, in archive order. */
async function readTgz(file: string): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  const extract = tar.extract();
  const reading = pipeline(fs.createReadStream(file), zlib.createGunzip(), extract);
  for await (const entry of extract) {
    const chunks: Buffer[] = [];
    for await (const c of entry) chunks.push(c as Buffer);
    out.set(entry.header.name, Buffer.concat(chunks));
  }
  await reading;
  return out;
}

describe('forge dump-repo and restore-repo', function () {
  this.timeout(180_000);
  let w: World;
  let alice: TestUser;
  let bob: TestUser;
  let g: GitTool;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'forge-dump-repo-test-'));
  const file = path.join(tmp, 'proj.tar.gz');
  let members: Map<string, Buffer>;
  let n = 0;

  const ok = async (u: TestUser, method: string, p: string, body?: unknown) => {
    const r = await w.raw(method, p, body, { token: u.token });
    if (r.status >= 300) throw new Error(`${method} ${p}: ${r.status} ${r.text}`);
    return r.body;
  };
  const get = async (p: string) => (await w.raw('GET', p, undefined, { token: alice.token })).body;
  const repoCount = () => count(w.server, 'SELECT COUNT(*) AS n FROM repository');
  const restore = (archive: string, name: string, ...more: string[]) => w.server.cli(['restore-repo', '--file', archive, '--owner', 'alice', '--repo', name, ...more]);
  /** The dump with `changes` applied: a member replaced (Buffer or string), dropped (null), or added. */
  const variant = async (changes: Record<string, Buffer | string | null>, extra: Member[] = []): Promise<string> => {
    const out = path.join(tmp, `variant-${++n}.tar.gz`);
    const kept: Member[] = [...members].filter(([name]) => changes[name] !== null).map(([name, data]) => ({ name, data: changes[name] ?? data }));
    await writeTgz(out, [...kept, ...extra]);
    return out;
  };
  /** Expect restore-repo of `archive` to be refused with `message`, and no repository row, directory or temp file to be left. */
  const refused = async (archive: string, message: string | RegExp, ...more: string[]) => {
    const before = await repoCount();
    const scratch = fs.mkdtempSync(path.join(tmp, 'scratch-'));
    const r = await restore(archive, 'refused', '--tempdir', scratch, ...more);
    expect(r.code, r.stdout + r.stderr).to.equal(1);
    if (typeof message === 'string') expect(r.stderr).to.include(`Command error: ${message}`);
    else expect(r.stderr).to.match(message);
    expect(await repoCount()).to.equal(before);
    expect(fs.existsSync(serverRepoDir(w.server, 'alice', 'refused'))).to.equal(false);
    expect(fs.existsSync(serverRepoDir(w.server, 'alice', 'refused.wiki'))).to.equal(false);
    // why: the archive was unpacked into a directory of its own under --tempdir, removed whatever happened; nothing went beside it.
    expect(fs.readdirSync(scratch)).to.deep.equal([]);
    expect(fs.readdirSync(tmp).filter((f) => !/^(variant-\d+\.tar\.gz|scratch-.*|proj\.tar\.gz)$/.test(f))).to.deep.equal([]);
  };
  const json = (name: string) => JSON.parse(members.get(name)!.toString('utf8'));

  before(async () => {
    w = await startWorld();
    [alice, bob] = await Promise.all([w.user('alice'), w.user('bob')]);
    g = new GitTool(w);
    await apiRepo(w, alice, 'proj');
    const bug = await ok(alice, 'POST', '/repos/alice/proj/labels', { name: 'bug', color: '#ee0701', description: 'Something is broken' });
    const ms = await ok(alice, 'POST', '/repos/alice/proj/milestones', { title: 'v1.0', description: 'The first one' });
    await ok(alice, 'POST', '/repos/alice/proj/issues', { title: 'Flux capacitor', body: 'needs 1.21 gigawatts', labels: [bug.id], milestone: ms.id });
    const comment = await ok(bob, 'POST', '/repos/alice/proj/issues/1/comments', { body: 'plutonium delivered' });
    await ok(bob, 'POST', '/repos/alice/proj/issues/1/reactions', { content: 'heart' });
    await ok(alice, 'POST', `/repos/alice/proj/issues/comments/${comment.id}/reactions`, { content: '+1' });
    await ok(alice, 'POST', '/repos/alice/proj/issues', { title: 'Old question' });
    await ok(alice, 'PATCH', '/repos/alice/proj/issues/2', { state: 'closed' });
    await ok(alice, 'POST', '/repos/alice/proj/contents/code.txt', { content: Buffer.from('one\ntwo\n').toString('base64'), new_branch: 'feature', message: 'Add code' });
    await ok(alice, 'POST', '/repos/alice/proj/pulls', { head: 'feature', base: 'main', title: 'Add code', body: 'Fixes #1' });
    await ok(bob, 'POST', '/repos/alice/proj/pulls/3/reviews', { event: 'COMMENT', body: 'Looks fine', comments: [{ path: 'code.txt', new_position: 2, body: 'Why two?' }] });
    const rel = await ok(alice, 'POST', '/repos/alice/proj/releases', { tag_name: 'v1', name: 'One', body: 'First notes' });
    const form = new FormData();
    form.append('attachment', new Blob([Buffer.from('release bytes\n')]), 'notes.txt');
    const up = await fetch(`${w.server.api}/repos/alice/proj/releases/${rel.id}/assets?name=notes.txt`, { method: 'POST', headers: { Authorization: `token ${alice.token}` }, body: form });
    expect(up.status, await up.text()).to.equal(201);
    await ok(alice, 'POST', '/repos/alice/proj/wiki/new', { title: 'Home', content_base64: Buffer.from('Welcome to the wiki').toString('base64') });
    await ok(alice, 'PUT', '/repos/alice/proj/topics', { topics: ['time-travel', 'physics'] });
    await outboxSettled(w);
  });
  after(async () => {
    await w?.stop();
  });

  it('dumps the repository into one archive of documents, bundles and asset files', async () => {
    const r = await w.server.cli(['dump-repo', '--owner', 'alice', '--repo', 'proj', '--file', file]);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.equal(`Dumped alice/proj into ${file}: code (git.bundle), wiki (wiki.bundle); `
      + '1 label, 1 milestone, 2 issues, 1 pull request, 1 comment, 1 review, 1 release, 1 release asset\n');
    expect(fs.statSync(file).mode & 0o777).to.equal(0o600);
    members = await readTgz(file);
    expect([...members.keys()].sort()).to.deep.equal([
      'assets/1', 'comments.json', 'git.bundle', 'issues.json', 'labels.json', 'milestones.json', 'pull_requests.json', 'releases.json', 'repository.json',
      'reviews.json', 'wiki.bundle',
    ]);
    expect(json('repository.json')).to.include({ name: 'proj', owner: 'alice', default_branch: 'main', is_private: false });
    expect(json('repository.json').topics).to.deep.equal(['physics', 'time-travel']);
    const issues = json('issues.json');
    expect(issues.map((i: { number: number; title: string; state: string }) => [i.number, i.title, i.state])).to.deep.equal([[1, 'Flux capacitor', 'open'], [2, 'Old question', 'closed']]);
    expect(issues[0]).to.include({ poster_id: alice.id, poster_name: 'alice', poster_email: alice.email, milestone: 'v1.0' });
    expect(issues[0].reactions).to.deep.equal([{ user_id: bob.id, user_name: 'bob', content: 'heart' }]);
    expect(json('comments.json')[0]).to.include({ issue_index: 1, poster_name: 'bob', content: 'plutonium delivered' });
    expect(json('reviews.json')[0].comments[0]).to.include({ tree_path: 'code.txt', content: 'Why two?', poster_name: 'bob' });
    const asset = json('releases.json')[0].assets[0];
    expect(asset).to.include({ name: 'notes.txt', download_url: 'assets/1' });
    expect(members.get('assets/1')!.toString()).to.equal('release bytes\n');
    expect(members.get('git.bundle')!.subarray(0, 16).toString()).to.match(/^# v[23] git bundle\n/);
    const again = await w.server.cli(['dump-repo', '--owner', 'alice', '--repo', 'proj', '--file', file]);
    expect([again.code, again.stderr]).to.deep.equal([1, `Command error: Dump file "${file}" exists\n`]);
    const missing = await w.server.cli(['dump-repo', '--owner', 'alice', '--repo', 'nope', '--file', path.join(tmp, 'nope.tar.gz')]);
    expect([missing.code, missing.stderr]).to.deep.equal([1, 'Command error: repository alice/nope does not exist\n']);
    expect(fs.existsSync(path.join(tmp, 'nope.tar.gz'))).to.equal(false);
  });

  it('restores it as a new repository with the same issues, comments, labels, pull request, review, release, wiki and refs', async () => {
    const before = await repoCount();
    const r = await restore(file, 'proj-restored');
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.equal(`Restored alice/proj-restored from ${file}: code from git.bundle, wiki from wiki.bundle; `
      + '1 label, 1 milestone, 2 issues, 1 pull request, 1 comment, 1 review, 1 release, 1 release asset\n');
    expect(await repoCount()).to.equal(before + 1);
    const repo = await get('/repos/alice/proj-restored');
    expect(repo).to.include({ name: 'proj-restored', default_branch: 'main', private: false, empty: false, open_issues_count: 1, open_pr_counter: 1 });
    expect((await get('/repos/alice/proj-restored/topics')).topics).to.deep.equal(['physics', 'time-travel']);

    const refs = async (name: string) => (await g.serverRefs('alice', name)).split('\n').filter(Boolean).sort();
    expect(await refs('proj-restored')).to.deep.equal(await refs('proj'));

    const strip = (list: { name: string; color: string; description: string }[]) => list.map((l) => [l.name, l.color, l.description]);
    expect(strip(await get('/repos/alice/proj-restored/labels'))).to.deep.equal(strip(await get('/repos/alice/proj/labels')));
    const milestones = await get('/repos/alice/proj-restored/milestones?state=all');
    expect(milestones.map((m: { title: string; description: string; open_issues: number }) => [m.title, m.description, m.open_issues])).to.deep.equal([['v1.0', 'The first one', 1]]);

    const issueView = (i: { number: number; title: string; body: string; state: string; user: { login: string }; labels: { name: string }[]; milestone: { title: string } | null; created_at: string }) =>
      [i.number, i.title, i.body, i.state, i.user.login, i.labels.map((l) => l.name), i.milestone?.title ?? null, i.created_at];
    const issues = async (name: string) => (await get(`/repos/alice/${name}/issues?state=all&type=issues`)).map(issueView);
    expect(await issues('proj-restored')).to.deep.equal(await issues('proj'));
    const comments = async (name: string) => (await get(`/repos/alice/${name}/issues/1/comments`))
      .map((c: { user: { login: string }; body: string; created_at: string }) => [c.user.login, c.body, c.created_at]);
    expect(await comments('proj-restored')).to.deep.equal(await comments('proj'));
    // why: a reaction document carries no email, so the restored one is kept by its person's name, as a migrated one.
    const reactions = await get('/repos/alice/proj-restored/issues/1/reactions');
    expect(reactions.map((x: { content: string; user: { login: string } }) => [x.content, x.user.login.startsWith('bob')])).to.deep.equal([['heart', true]]);
    const [restoredComment] = await get('/repos/alice/proj-restored/issues/1/comments');
    expect((await get(`/repos/alice/proj-restored/issues/comments/${restoredComment.id}/reactions`)).map((x: { content: string }) => x.content)).to.deep.equal(['+1']);

    const pullView = (p: { number: number; title: string; body: string; state: string; user: { login: string }; head: { ref: string; sha: string }; base: { ref: string } }) =>
      [p.number, p.title, p.body, p.state, p.user.login, p.head.ref, p.head.sha, p.base.ref];
    expect(pullView(await get('/repos/alice/proj-restored/pulls/3'))).to.deep.equal(pullView(await get('/repos/alice/proj/pulls/3')));
    const reviews = await get('/repos/alice/proj-restored/pulls/3/reviews');
    expect(reviews.map((x: { user: { login: string }; state: string; body: string }) => [x.user.login, x.state, x.body])).to.deep.equal([['bob', 'COMMENT', 'Looks fine']]);
    const lines = await get(`/repos/alice/proj-restored/pulls/3/reviews/${reviews[0].id}/comments`);
    expect(lines.map((c: { path: string; body: string; user: { login: string } }) => [c.path, c.body, c.user.login])).to.deep.equal([['code.txt', 'Why two?', 'bob']]);

    const [release] = await get('/repos/alice/proj-restored/releases');
    expect([release.tag_name, release.name, release.body, release.author.login]).to.deep.equal(['v1', 'One', 'First notes', 'alice']);
    expect(release.assets.map((a: { name: string; size: number }) => [a.name, a.size])).to.deep.equal([['notes.txt', 14]]);
    expect(await (await fetch(release.assets[0].browser_download_url)).text()).to.equal('release bytes\n');

    const page = await get('/repos/alice/proj-restored/wiki/page/Home');
    expect(Buffer.from(page.content_base64, 'base64').toString()).to.equal('Welcome to the wiki');
    const next = await ok(alice, 'POST', '/repos/alice/proj-restored/issues', { title: 'After the restore' });
    expect(next.number).to.equal(4);
  });

  it('restores only the units asked for', async () => {
    const r = await restore(file, 'proj-issues', '--units', 'labels,issues');
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.include('code from git.bundle; 1 label, 0 milestones, 2 issues, 0 pull requests, 0 comments, 0 reviews, 0 releases, 0 release assets');
    expect((await get('/repos/alice/proj-issues/issues?state=all&type=issues')).map((i: { title: string }) => i.title).sort()).to.deep.equal(['Flux capacitor', 'Old question']);
    expect(await get('/repos/alice/proj-issues/issues/1/comments')).to.deep.equal([]);
    expect(await get('/repos/alice/proj-issues/pulls?state=all')).to.deep.equal([]);
    expect(fs.existsSync(serverRepoDir(w.server, 'alice', 'proj-issues.wiki'))).to.equal(false);
  });

  it('refuses a name that is taken or not allowed, an unknown owner or unit, before reading the archive', async () => {
    await refused(file, 'invalid unit: projects', '--units', 'issues,projects');
    const taken = await restore(file, 'proj');
    expect([taken.code, taken.stderr]).to.deep.equal([1, 'Command error: The repository with the same name already exists.\n']);
    const storage = "[Name]: must contain only letters, digits, '-', '_' and '.', and not be '.' or '..'";
    for (const [name, message] of [['bad name', '[RepoName]: AlphaDashDot'], ['..', storage], ['x.wiki', 'name pattern is not allowed [pattern: *.wiki]'], ['x'.repeat(101), '[RepoName]: MaxSize']]) {
      const res = await restore(file, name);
      expect([res.code, res.stderr], name).to.deep.equal([1, `Command error: ${message}\n`]);
    }
    const nobody = await w.server.cli(['restore-repo', '--file', file, '--owner', 'nobody', '--repo', 'x']);
    expect([nobody.code, nobody.stderr]).to.deep.equal([1, 'Command error: user does not exist [uid: 0, name: nobody]\n']);
  });

  it('refuses archive entries that leave the directory or are not plain files (class 18)', async () => {
    const repoJson = members.get('repository.json')!;
    const hostile: [Member, string][] = [
      [{ name: '../x', data: 'escaped' }, 'archive entry "../x" is refused: its path has a ".." segment'],
      [{ name: 'assets/../../x', data: 'escaped' }, 'archive entry "assets/../../x" is refused: its path has a ".." segment'],
      [{ name: '/tmp/forge-abs-x', data: 'absolute' }, 'archive entry "/tmp/forge-abs-x" is refused: its path is absolute'],
      [{ name: 'git.bundle', type: 'symlink', linkname: '/etc/passwd' }, 'archive entry "git.bundle" is refused: it is a symlink entry; only files and directories are read'],
      [{ name: 'assets/1', type: 'link', linkname: '/etc/passwd' }, 'archive entry "assets/1" is refused: it is a link entry; only files and directories are read'],
      [{ name: 'assets/2', type: 'character-device' }, 'archive entry "assets/2" is refused: it is a character-device entry; only files and directories are read'],
      [{ name: 'fifo', type: 'fifo' }, 'archive entry "fifo" is refused: it is a fifo entry; only files and directories are read'],
      [{ name: 'notes\n.txt', data: 'x' }, 'archive entry "notes\\n.txt" is refused: it is not part of a repository dump'],
    ];
    for (const [member, message] of hostile) {
      const archive = path.join(tmp, `variant-${++n}.tar.gz`);
      await writeTgz(archive, [{ name: 'repository.json', data: repoJson }, member]);
      await refused(archive, message);
    }
    expect(fs.existsSync('/tmp/forge-abs-x')).to.equal(false);
    await refused(path.join(tmp, 'proj.tar.gz'), /Command error: archive entry "[^"]+" is refused: the archive has more than 3 entries/, '--max-entries', '3');
    const notGzip = path.join(tmp, `variant-${++n}.tar.gz`);
    fs.writeFileSync(notGzip, 'not an archive');
    await refused(notGzip, /^Command error: variant-\d+\.tar\.gz is not a readable \.tar\.gz archive: /m);
  });

  it('refuses an archive that unpacks to more than its caps (class 19)', async () => {
    const bomb = path.join(tmp, `variant-${++n}.tar.gz`);
    await writeTgz(bomb, [{ name: 'repository.json', data: members.get('repository.json')! }, { name: 'git.bundle', data: Buffer.alloc(32 * 1024 * 1024) }]);
    expect(fs.statSync(bomb).size).to.be.below(1024 * 1024);
    await refused(bomb, 'archive entry "git.bundle" is refused: the archive unpacks to more than 1048576 bytes', '--max-size', '1MiB');
    await refused(file, /Command error: archive entry "[^"]+" is refused: the archive unpacks to more than 1000 bytes/, '--max-size', '1000');
    const many = path.join(tmp, `variant-${++n}.tar.gz`);
    await writeTgz(many, Array.from({ length: 50 }, () => ({ name: 'assets/', type: 'directory' as const })));
    await refused(many, 'archive entry "assets/" is refused: the archive has more than 20 entries', '--max-entries', '20');
    await refused(file, '--max-size lots: give bytes, or a size such as 500M or 10GiB', '--max-size', 'lots');
  });

  it('checks every document before writing anything and names the file, the pointer and the rule', async () => {
    const issues = json('issues.json');
    const withExtra = structuredClone(issues);
    withExtra[0].reactions[0].extra = 1;
    await refused(await variant({ 'issues.json': JSON.stringify(withExtra) }),
      'issues.json: /0/reactions/0: additionalProperties: must NOT have additional properties (extra)');
    const untitled = structuredClone(issues);
    delete untitled[1].title;
    await refused(await variant({ 'issues.json': JSON.stringify(untitled) }), "issues.json: /1: required: must have required property 'title'");
    const reviews = json('reviews.json');
    reviews[0].comments[0].created_at = 'yesterday';
    await refused(await variant({ 'reviews.json': JSON.stringify(reviews) }), 'reviews.json: /0/comments/0/created_at: format: must match format "date-time"');
    await refused(await variant({ 'labels.json': '{"name":"bug"}' }), 'labels.json: /: must be an array');
    await refused(await variant({ 'milestones.json': '[{"title":' }), /Command error: milestones\.json: \/: not JSON: /);
    const twice = structuredClone(issues);
    twice[1].number = 1;
    await refused(await variant({ 'issues.json': JSON.stringify(twice) }), 'issues.json: /1/number: number: 1 is used twice');
    const releases = json('releases.json');
    releases[0].assets[0].download_url = '../../etc/passwd';
    await refused(await variant({ 'releases.json': JSON.stringify(releases) }), 'releases.json: /0/assets/0/download_url: download_url: "../../etc/passwd" is not a file of the archive');
    await refused(await variant({ 'repository.json': JSON.stringify({ ...json('repository.json'), default_branch: '-x' }) }), 'repository.json: /default_branch: default_branch: not a valid branch name');
    await refused(await variant({ 'repository.json': null }), 'the archive has no repository.json: it is not a repository dump');
    await refused(await variant({ 'git.bundle': 'not a bundle' }), 'git.bundle is not a git bundle');
  });

  it('leaves nothing when a restore fails after the repository was made', async () => {
    // why: the bundle's header passes the first check; git refuses the rest once the row and directory exist.
    await refused(await variant({ 'git.bundle': '# v2 git bundle\nnot really\n' }), /^Command error: git\.bundle cannot be restored: /m);
  });
});
