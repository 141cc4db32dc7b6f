/**
 * Gitea's web download paths: `/{owner}/{repo}/archive/{ref}.{ext}`, `/raw/{branch|tag|commit}/...`,
 * `/media/...`, `/releases/download/{tag}/{name}`, and the avatars `avatar_url` names. Public and
 * private repositories, anonymous and with a token or Basic credentials, with curl and git; a
 * repository the caller cannot read answers 404 like a missing one.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { apiRepo, GitTool } from '../helpers/refs';

const execFileP = promisify(execFile);
const b64 = (s: string | Buffer) => Buffer.from(s).toString('base64');

/** curl a URL: status, headers (lower-case names) and body bytes. */
async function curl(url: string, ...args: string[]): Promise<{ status: number; headers: Record<string, string>; body: Buffer }> {
  const { stdout } = await execFileP('curl', ['-s', '-i', '--max-time', '30', ...args, url], { encoding: 'buffer', maxBuffer: 64 << 20 });
  const end = stdout.indexOf('\r\n\r\n');
  const head = stdout.subarray(0, end).toString('latin1').split('\r\n');
  const headers: Record<string, string> = {};
  for (const l of head.slice(1)) {
    const i = l.indexOf(':');
    headers[l.slice(0, i).toLowerCase()] = l.slice(i + 1).trim();
  }
  return { status: Number(head[0].split(' ')[1]), headers, body: stdout.subarray(end + 4) };
}

describe('web download paths', function () {
  this.timeout(120_000);
  let w: World;
  let alice: TestUser;
  let bob: TestUser;
  let g: GitTool;
  let main: string;
  const web = (p: string) => `${w.server.url}${p}`;

  before(async () => {
    w = await startWorld();
    alice = await w.user('alice');
    bob = await w.user('bob');
    g = new GitTool(w);
    for (const [name, priv] of [['pub', false], ['secret', true]] as const) {
      await apiRepo(w, alice, name, { auto_init: true, private: priv });
      const put = async (file: string, content: string | Buffer, branch?: string) => {
        const r = await w.raw('POST', `/repos/alice/${name}/contents/${file}`, { content: b64(content), ...(branch ? { new_branch: branch } : {}) }, { token: alice.token });
        expect(r.status, r.text).to.equal(201);
      };
      await put('docs/guide.md', `# guide of ${name}\n`);
      await put('.gitattributes', '*.bin filter=lfs diff=lfs merge=lfs -text\n');
      await put('big.bin', Buffer.alloc(3000, 7));
      await put('only-on-feature.txt', 'feature\n', 'feature/x');
      const tag = await w.raw('POST', `/repos/alice/${name}/tags`, { tag_name: 'v1.0', target: 'main' }, { token: alice.token });
      expect(tag.status, tag.text).to.equal(201);
      const rel = await w.raw('POST', `/repos/alice/${name}/releases`, { tag_name: 'v1.0', name: 'one' }, { token: alice.token });
      expect(rel.status, rel.text).to.equal(201);
      const asset = await fetch(`${w.server.api}/repos/alice/${name}/releases/${rel.body.id}/assets?name=notes.txt`, {
        method: 'POST', headers: { Authorization: `token ${alice.token}`, 'Content-Type': 'application/octet-stream' }, body: `notes of ${name}\n`,
      });
      expect(asset.status).to.equal(201);
    }
    main = await g.bare('alice', 'pub', ['rev-parse', 'main']);
  });
  after(async () => { await w?.stop(); });

  it('serves raw files by branch (names with slashes), tag and commit, with the API\'s headers', async () => {
    const byBranch = await curl(web('alice/pub/raw/branch/main/docs/guide.md'));
    expect(byBranch.status).to.equal(200);
    expect(byBranch.body.toString()).to.equal('# guide of pub\n');
    const api = await fetch(`${w.server.api}/repos/alice/pub/raw/docs/guide.md`);
    for (const h of ['content-type', 'content-security-policy', 'x-content-type-options', 'etag']) expect(byBranch.headers[h], h).to.equal(api.headers.get(h));
    expect((await curl(web('alice/pub/raw/branch/feature/x/only-on-feature.txt'))).body.toString()).to.equal('feature\n');
    expect((await curl(web('alice/pub/raw/tag/v1.0/docs/guide.md'))).status).to.equal(200);
    expect((await curl(web(`alice/pub/raw/commit/${main}/docs/guide.md`))).body.toString()).to.equal('# guide of pub\n');
    expect((await curl(web(`alice/pub/raw/commit/${main.slice(0, 10)}/docs/guide.md`))).status).to.equal(200);
    expect((await curl(web('alice/pub/raw/docs/guide.md'))).status).to.equal(200);
    // an ETag answers 304
    const again = await curl(web('alice/pub/raw/branch/main/docs/guide.md'), '-H', `If-None-Match: ${byBranch.headers.etag}`);
    expect(again.status).to.equal(304);
    // the kind is honoured: a branch is not a tag, a missing path or ref is 404
    for (const p of ['raw/tag/main/docs/guide.md', 'raw/branch/v1.0/docs/guide.md', 'raw/branch/main/nope.md', 'raw/branch/nope/docs/guide.md',
      'raw/branch/main/docs', 'raw/commit/0123456789abcdef0123/docs/guide.md', 'raw/branch/main/../../etc/passwd']) {
      expect((await curl(web(`alice/pub/${p}`))).status, p).to.equal(404);
    }
  });

  it('serves an LFS object at /media and its pointer at /raw', async () => {
    const media = await curl(web('alice/pub/media/branch/main/big.bin'));
    expect(media.status).to.equal(200);
    expect(media.body.equals(Buffer.alloc(3000, 7))).to.equal(true);
    const raw = await curl(web('alice/pub/raw/branch/main/big.bin'));
    expect(raw.body.toString()).to.match(/^version https:\/\/git-lfs.github.com\/spec\/v1\noid sha256:[0-9a-f]{64}\nsize 3000\n$/);
    expect((await curl(web('alice/pub/media/big.bin'))).body.length).to.equal(3000);
  });

  it('serves archives by branch and tag that unpack to the repository\'s files', async () => {
    const tgz = await curl(web('alice/pub/archive/main.tar.gz'));
    expect(tgz.status).to.equal(200);
    expect(tgz.headers['content-disposition']).to.equal('attachment; filename="pub-main.tar.gz"');
    const dir = fs.mkdtempSync(path.join(g.tmp, 'unpack-'));
    fs.writeFileSync(path.join(dir, 'a.tar.gz'), tgz.body);
    await execFileP('tar', ['-xzf', 'a.tar.gz'], { cwd: dir });
    expect(fs.readFileSync(path.join(dir, 'pub', 'docs', 'guide.md'), 'utf8')).to.equal('# guide of pub\n');
    const zip = await curl(web('alice/pub/archive/v1.0.zip'));
    expect(zip.status).to.equal(200);
    expect(zip.body.subarray(0, 2).toString()).to.equal('PK');
    expect((await curl(web('alice/pub/archive/nope.zip'))).status).to.equal(404);
    // a bundle fetches with git
    const bundle = await curl(web('alice/pub/archive/main.bundle'));
    fs.writeFileSync(path.join(dir, 'main.bundle'), bundle.body);
    expect(await g.ok(['bundle', 'list-heads', path.join(dir, 'main.bundle')])).to.include(main);
  });

  it('serves release assets by tag and name, with the attachment\'s inert headers', async () => {
    const res = await curl(web('alice/pub/releases/download/v1.0/notes.txt'));
    expect(res.status).to.equal(200);
    expect(res.body.toString()).to.equal('notes of pub\n');
    expect(res.headers['x-content-type-options']).to.equal('nosniff');
    expect(res.headers['content-disposition']).to.match(/^inline; filename="notes.txt"/);
    for (const p of ['releases/download/v1.0/other.txt', 'releases/download/v2.0/notes.txt', 'releases/download/notes.txt']) {
      expect((await curl(web(`alice/pub/${p}`))).status, p).to.equal(404);
    }
  });

  it('hides a private repository from anonymous callers and outsiders (404), and opens it with a token or Basic credentials', async () => {
    const paths = ['raw/branch/main/docs/guide.md', 'media/branch/main/big.bin', 'archive/main.tar.gz', 'releases/download/v1.0/notes.txt'];
    for (const p of paths) {
      const anonymous = await curl(web(`alice/secret/${p}`));
      const missing = await curl(web(`alice/no-such-repo/${p}`));
      expect(anonymous.status, p).to.equal(404);
      expect(missing.status, p).to.equal(404);
      // the same answer a missing repository of that name gets
      expect(anonymous.body.toString()).to.equal(missing.body.toString().replace('no-such-repo', 'secret'));
      expect((await curl(web(`alice/secret/${p}`), '-H', `Authorization: token ${bob.token}`)).status, p).to.equal(404);
      expect((await curl(web(`alice/secret/${p}`), '-H', `Authorization: token ${alice.token}`)).status, p).to.equal(200);
      expect((await curl(web(`alice/secret/${p}`), '-u', `alice:${alice.password}`)).status, p).to.equal(200);
      expect((await curl(web(`alice/secret/${p}`), '-u', `alice:wrong-password`)).status, p).to.equal(401);
    }
    const body = await curl(web('alice/secret/raw/tag/v1.0/docs/guide.md'), '-u', `alice:${alice.token}`);
    expect(body.body.toString()).to.equal('# guide of secret\n');
    // a token without repository scope does not open it
    const scoped = await w.raw('POST', '/users/alice/tokens', { name: 'user-only', scopes: ['read:user'] }, { basic: ['alice', alice.password] });
    expect((await curl(web('alice/secret/raw/branch/main/docs/guide.md'), '-H', `Authorization: token ${scoped.body.sha1}`)).status).to.equal(404);
  });

  it('serves the identicon that avatar_url names for a user without an avatar, and redirects /user/avatar/{name}/{size} to it', async () => {
    const user = await w.raw('GET', '/users/alice');
    expect(user.body.avatar_url).to.match(new RegExp(`^${w.server.url}avatars/identicon-[0-9a-f]{32}$`));
    const png = await curl(user.body.avatar_url);
    expect(png.status).to.equal(200);
    expect(png.headers['content-type']).to.equal('image/png');
    expect(png.body.subarray(0, 8).toString('hex')).to.equal('89504e470d0a1a0a');
    // its header chunk: a 5x5 grid of 42 px cells with a 21 px margin
    expect(png.body.readUInt32BE(16)).to.equal(252);
    expect(png.body.readUInt32BE(20)).to.equal(252);
    // another user gets another picture, and the same user the same one each time
    const other = await w.raw('GET', `/users/${bob.name}`);
    expect(other.body.avatar_url).to.not.equal(user.body.avatar_url);
    expect((await curl(other.body.avatar_url)).body.equals(png.body)).to.equal(false);
    expect((await w.raw('GET', '/users/alice')).body.avatar_url).to.equal(user.body.avatar_url);
    // the picture of a user without an account (the ghost) stays the default one
    const fallback = await curl(web('assets/img/avatar_default.png'));
    expect(fallback.body.readUInt32BE(16)).to.equal(290);
    const redirect = await curl(web('user/avatar/alice/64'));
    expect(redirect.status).to.equal(303);
    expect(redirect.headers.location).to.equal(user.body.avatar_url);
    expect((await curl(web('user/avatar/nobody-here/64'))).status).to.equal(404);
    expect((await curl(web('avatars/0123abcd'))).status).to.equal(404);
    expect((await curl(web('avatars/identicon-0123'))).status).to.equal(404);
    expect((await curl(web('avatars/..%2fsecrets.json'))).status).to.equal(404);
  });
});
