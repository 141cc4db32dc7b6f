/**
 * Release assets: multipart (gitea-js) and raw-body uploads, list, get, rename, delete, the
 * `/attachments/{uuid}` download (headers that keep it inert, permission of the attachment's own
 * repository and release), size and type limits from config, the disabled switch, and removal of
 * rows and files with their release and repository.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { apiRepo } from '../helpers/refs';
import { sql } from '../helpers/db';

/** Every file under the attachments directory (temporary files included). */
function files(w: World): string[] {
  const root = path.join(w.server.dataDir, 'attachments');
  const out: string[] = [];
  const walk = (d: string) => {
    if (!fs.existsSync(d)) return;
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(path.join(d, e.name));
      else out.push(path.relative(root, path.join(d, e.name)));
    }
  };
  walk(root);
  return out.sort();
}

/** POST a raw body upload. */
async function rawUpload(w: World, u: TestUser | null, repoPath: string, body: Buffer, query: string, type = 'application/octet-stream') {
  const headers: Record<string, string> = { 'Content-Type': type };
  if (u) headers.Authorization = `token ${u.token}`;
  const res = await fetch(`${w.server.api}${repoPath}/assets${query}`, { method: 'POST', headers, body });
  const text = await res.text();
  let json: unknown = null;
  try { json = JSON.parse(text); } catch { /* not JSON */ }
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return { status: res.status, body: json as any, text };
}

/** POST a hand-made multipart body. */
async function multipart(w: World, u: TestUser, repoPath: string, parts: { name: string; filename?: string; data: Buffer }[], query = '') {
  const boundary = '----forge-test-boundary-7d1';
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const disp = `form-data; name="${p.name}"${p.filename !== undefined ? `; filename="${p.filename}"` : ''}`;
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disp}\r\nContent-Type: application/octet-stream\r\n\r\n`), p.data, Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  const res = await fetch(`${w.server.api}${repoPath}/assets${query}`, {
    method: 'POST', headers: { Authorization: `token ${u.token}`, 'Content-Type': `multipart/form-data; boundary=${boundary}` }, body: Buffer.concat(chunks),
  });
  const text = await res.text();
  let json: unknown = null;
  try { json = JSON.parse(text); } catch { /* not JSON */ }
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return { status: res.status, body: json as any, text };
}

describe('release assets', () => {
  let w: World;
  let alice: TestUser;
  let bob: TestUser;
  let relId: number;
  const rel = () => `/repos/alice/proj/releases/${relId}`;

  before(async () => {
    w = await startWorld();
    alice = await w.user('alice');
    bob = await w.user('bob');
    await apiRepo(w, alice, 'proj');
    const r = await w.raw('POST', '/repos/alice/proj/releases', { tag_name: 'v1', name: 'One' }, { token: alice.token });
    expect(r.status, r.text).to.equal(201);
    relId = r.body.id;
  });
  after(async () => { await w?.stop(); });

  describe('upload, read, rename, delete', () => {
    let textId: number;
    let textUuid: string;

    it('uploads with multipart (gitea-js) and downloads the same bytes from browser_download_url', async () => {
      const content = 'hello asset\n';
      const r = await alice.api.repos.repoCreateReleaseAttachment('alice', 'proj', relId, { attachment: new File([content], 'notes.txt') });
      expect(r.status).to.equal(201);
      const a = r.data;
      expect(a).to.deep.include({ name: 'notes.txt', size: content.length, download_count: 0 });
      expect(a.uuid).to.match(/^[0-9a-f-]{36}$/);
      expect(a.browser_download_url).to.equal(`${w.server.url}attachments/${a.uuid}`);
      textId = a.id!;
      textUuid = a.uuid!;
      expect(files(w)).to.deep.equal([`${textUuid[0]}/${textUuid[1]}/${textUuid}`]);
      const dl = await fetch(a.browser_download_url!);
      expect(dl.status).to.equal(200);
      expect(await dl.text()).to.equal(content);
      expect(dl.headers.get('x-content-type-options')).to.equal('nosniff');
      expect(dl.headers.get('content-security-policy')).to.equal("default-src 'none'; sandbox");
      expect(dl.headers.get('content-type')).to.equal('text/plain; charset=utf-8');
      expect(dl.headers.get('content-disposition')).to.match(/^inline; filename="notes.txt"/);
      const again = await w.raw('GET', `${rel()}/assets/${textId}`);
      expect(again.body.download_count).to.equal(1);
    });

    it('uploads a raw body with the name from the `name` query, byte for byte', async () => {
      const bytes = Buffer.alloc(300_000);
      for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7919) % 256;
      const r = await rawUpload(w, alice, rel(), bytes, '?name=blob.bin');
      expect(r.status, r.text).to.equal(201);
      expect(r.body).to.deep.include({ name: 'blob.bin', size: bytes.length });
      const dl = await fetch(r.body.browser_download_url);
      expect(Buffer.from(await dl.arrayBuffer()).equals(bytes)).to.equal(true);
      expect(dl.headers.get('content-type')).to.equal('application/octet-stream');
      expect(dl.headers.get('content-disposition')).to.match(/^attachment; filename="blob.bin"/);
      expect(dl.headers.get('content-length')).to.equal(String(bytes.length));
    });

    it('multipart: the `name` query overrides the file name; other fields are skipped', async () => {
      const r = await multipart(w, alice, rel(), [{ name: 'comment', data: Buffer.from('ignored') }, { name: 'attachment', filename: 'orig.dat', data: Buffer.from('abc\r\n--not-a-boundary\r\n') }], '?name=renamed.dat');
      expect(r.status, r.text).to.equal(201);
      expect(r.body.name).to.equal('renamed.dat');
      const dl = await fetch(r.body.browser_download_url);
      expect(await dl.text()).to.equal('abc\r\n--not-a-boundary\r\n');
    });

    it('refuses an upload without a name (400) or without the file field, storing nothing', async () => {
      const before = files(w);
      const noName = await rawUpload(w, alice, rel(), Buffer.from('x'), '');
      expect(noName.status).to.equal(400);
      expect(noName.body.message).to.equal('Could not determine name of attachment.');
      const noFile = await multipart(w, alice, rel(), [{ name: 'other', filename: 'x.txt', data: Buffer.from('x') }]);
      expect(noFile.status).to.equal(400);
      expect(files(w)).to.deep.equal(before);
    });

    it('keeps only the last path component of a file name; refuses names longer than 255', async () => {
      const mp = await multipart(w, alice, rel(), [{ name: 'attachment', filename: '../../etc/evil.txt', data: Buffer.from('e') }]);
      expect(mp.status, mp.text).to.equal(201);
      expect(mp.body.name).to.equal('evil.txt');
      const raw = await rawUpload(w, alice, rel(), Buffer.from('w'), `?name=${encodeURIComponent('..\\win\\x.txt')}`);
      expect(raw.body.name).to.equal('x.txt');
      const before = files(w);
      const long = await rawUpload(w, alice, rel(), Buffer.from('l'), `?name=${'n'.repeat(256)}`);
      expect(long.status).to.equal(422);
      expect(files(w)).to.deep.equal(before);
      for (const id of [mp.body.id, raw.body.id]) expect((await w.raw('DELETE', `${rel()}/assets/${id}`, undefined, { token: alice.token })).status).to.equal(204);
    });

    it('lists and gets assets; the release shows them', async () => {
      const list = await bob.api.repos.repoListReleaseAttachments('alice', 'proj', relId);
      expect(list.data.map((a) => a.name)).to.deep.equal(['notes.txt', 'blob.bin', 'renamed.dat']);
      const one = await bob.api.repos.repoGetReleaseAttachment('alice', 'proj', relId, textId);
      expect(one.data.uuid).to.equal(textUuid);
      const relJson = await bob.api.repos.repoGetRelease('alice', 'proj', relId);
      expect(relJson.data.assets!.map((a) => a.name)).to.deep.equal(['notes.txt', 'blob.bin', 'renamed.dat']);
      expect((await w.raw('GET', `${rel()}/assets/999999`)).status).to.equal(404);
    });

    it('an asset is addressed only under its own release', async () => {
      const other = await w.raw('POST', '/repos/alice/proj/releases', { tag_name: 'v2' }, { token: alice.token });
      expect((await w.raw('GET', `/repos/alice/proj/releases/${other.body.id}/assets/${textId}`)).status).to.equal(404);
      expect((await w.raw('DELETE', `/repos/alice/proj/releases/${other.body.id}/assets/${textId}`, undefined, { token: alice.token })).status).to.equal(404);
      await apiRepo(w, bob, 'elsewhere');
      expect((await w.raw('GET', `/repos/bob/elsewhere/releases/${relId}/assets/${textId}`)).status).to.equal(404);
    });

    it('renames an asset (Gitea answers 201)', async () => {
      const r = await alice.api.repos.repoEditReleaseAttachment('alice', 'proj', relId, textId, { name: 'readme.txt' });
      expect(r.status).to.equal(201);
      expect(r.data.name).to.equal('readme.txt');
      expect((await w.raw('GET', `${rel()}/assets/${textId}`)).body.name).to.equal('readme.txt');
    });

    it('needs write access for changes: 401 anonymous, 403 readers, nothing stored or changed', async () => {
      const before = files(w);
      const anon = await rawUpload(w, null, rel(), Buffer.from('x'), '?name=a.txt');
      expect(anon.status).to.equal(401);
      const reader = await rawUpload(w, bob, rel(), Buffer.from('x'), '?name=a.txt');
      expect(reader.status).to.equal(403);
      expect((await w.raw('PATCH', `${rel()}/assets/${textId}`, { name: 'x.txt' }, { token: bob.token })).status).to.equal(403);
      expect((await w.raw('DELETE', `${rel()}/assets/${textId}`, undefined, { token: bob.token })).status).to.equal(403);
      expect(files(w)).to.deep.equal(before);
      expect((await w.raw('GET', `${rel()}/assets/${textId}`)).body.name).to.equal('readme.txt');
    });

    it('deletes an asset: row and file gone, the download is 404', async () => {
      expect((await alice.api.repos.repoDeleteReleaseAttachment('alice', 'proj', relId, textId)).status).to.equal(204);
      expect((await w.raw('GET', `${rel()}/assets/${textId}`)).status).to.equal(404);
      expect(files(w).some((f) => f.endsWith(textUuid))).to.equal(false);
      expect((await fetch(`${w.server.url}attachments/${textUuid}`)).status).to.equal(404);
    });
  });

  describe('downloads', () => {
    it('serves HTML and SVG as inert downloads', async () => {
      for (const [name, body] of [['x.html', '<html><script>alert(1)</script></html>'], ['x.svg', '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>']]) {
        const up = await rawUpload(w, alice, rel(), Buffer.from(body), `?name=${name}`, 'text/html');
        expect(up.status, up.text).to.equal(201);
        const dl = await fetch(up.body.browser_download_url);
        expect(dl.status).to.equal(200);
        expect(dl.headers.get('content-type')).to.equal('application/octet-stream');
        expect(dl.headers.get('content-disposition')).to.match(/^attachment;/);
        expect(dl.headers.get('x-content-type-options')).to.equal('nosniff');
        expect(dl.headers.get('content-security-policy')).to.equal("default-src 'none'; sandbox");
        expect(await dl.text()).to.equal(body);
      }
    });

    it('checks the attachment\'s own repository: private and draft assets are 404 like missing ones', async () => {
      await apiRepo(w, alice, 'secret', { auto_init: true, private: true });
      const r = await w.raw('POST', '/repos/alice/secret/releases', { tag_name: 's1' }, { token: alice.token });
      const up = await rawUpload(w, alice, `/repos/alice/secret/releases/${r.body.id}`, Buffer.from('secret'), '?name=s.txt');
      expect(up.status).to.equal(201);
      const url = up.body.browser_download_url;
      expect((await fetch(url)).status).to.equal(404);
      expect((await fetch(url, { headers: { Authorization: `token ${bob.token}` } })).status).to.equal(404);
      expect((await fetch(url, { headers: { Authorization: `token ${alice.token}` } })).status).to.equal(200);
      const draft = await w.raw('POST', '/repos/alice/proj/releases', { tag_name: 'd1', draft: true }, { token: alice.token });
      const dUp = await rawUpload(w, alice, `/repos/alice/proj/releases/${draft.body.id}`, Buffer.from('draft'), '?name=d.txt');
      expect(dUp.status).to.equal(201);
      expect((await fetch(dUp.body.browser_download_url, { headers: { Authorization: `token ${bob.token}` } })).status).to.equal(404);
      expect((await w.raw('GET', `/repos/alice/proj/releases/${draft.body.id}/assets`, undefined, { token: bob.token })).status).to.equal(404);
      expect((await fetch(dUp.body.browser_download_url, { headers: { Authorization: `token ${alice.token}` } })).status).to.equal(200);
      for (const bad of ['00000000-0000-0000-0000-000000000000', '..%2F..%2Fetc%2Fpasswd', 'not-a-uuid']) {
        expect((await fetch(`${w.server.url}attachments/${bad}`)).status, bad).to.equal(404);
      }
    });
  });

  describe('removal with the release and the repository', () => {
    it('deleting a release removes its assets\' rows and files', async () => {
      const r = await w.raw('POST', '/repos/alice/proj/releases', { tag_name: 'v9' }, { token: alice.token });
      const up = await rawUpload(w, alice, `/repos/alice/proj/releases/${r.body.id}`, Buffer.from('nine'), '?name=nine.txt');
      expect(files(w).some((f) => f.endsWith(up.body.uuid))).to.equal(true);
      expect((await w.raw('DELETE', `/repos/alice/proj/releases/${r.body.id}`, undefined, { token: alice.token })).status).to.equal(204);
      expect(files(w).some((f) => f.endsWith(up.body.uuid))).to.equal(false);
      expect(await sql(w.server, 'SELECT id FROM attachment WHERE uuid = $1', [up.body.uuid])).to.have.length(0);
    });

    it('deleting a repository removes its release rows, attachment rows and files', async () => {
      const repoId = await apiRepo(w, alice, 'doomed');
      const r = await w.raw('POST', '/repos/alice/doomed/releases', { tag_name: 'v1' }, { token: alice.token });
      const up = await rawUpload(w, alice, `/repos/alice/doomed/releases/${r.body.id}`, Buffer.from('bye'), '?name=bye.txt');
      expect(up.status).to.equal(201);
      expect((await w.raw('POST', '/repos/alice/doomed/tag_protections', { name_pattern: '*', whitelist_usernames: ['alice'] }, { token: alice.token })).status).to.equal(201);
      expect((await w.raw('DELETE', '/repos/alice/doomed', undefined, { token: alice.token })).status).to.equal(204);
      expect(files(w).some((f) => f.endsWith(up.body.uuid))).to.equal(false);
      for (const table of ['release', 'attachment', 'protected_tag']) {
        expect(await sql(w.server, `SELECT id FROM ${table} WHERE repo_id = $1`, [repoId]), table).to.have.length(0);
      }
    });
  });

  describe('limits from config', () => {
    let lw: World;
    let owner: TestUser;
    let lrel: string;

    before(async () => {
      lw = await startWorld({ env: { FORGE__ATTACHMENT__MAX_SIZE: '1', FORGE__REPOSITORY_0X2E_RELEASE__ALLOWED_TYPES: '.txt,image/png' } });
      owner = await lw.user('owner');
      await apiRepo(lw, owner, 'lim');
      const r = await lw.raw('POST', '/repos/owner/lim/releases', { tag_name: 'v1' }, { token: owner.token });
      lrel = `/repos/owner/lim/releases/${r.body.id}`;
    });
    after(async () => { await lw?.stop(); });

    it('/settings/attachment shows the limits', async () => {
      const r = await lw.raw('GET', '/settings/attachment');
      expect(r.status).to.equal(200);
      expect(r.body).to.deep.include({ enabled: true, max_size: 1024 * 1024, max_files: 5 });
    });

    it('refuses a file over [attachment] MAX_SIZE with 413 (raw and multipart), storing nothing', async () => {
      const big = Buffer.alloc(2 * 1024 * 1024 + 10, 0x61);
      const raw = await rawUpload(lw, owner, lrel, big, '?name=big.txt');
      expect(raw.status).to.equal(413);
      expect(raw.body.message).to.equal(`attachment exceeds limit ${1024 * 1024}`);
      const mp = await multipart(lw, owner, lrel, [{ name: 'attachment', filename: 'big.txt', data: big }]);
      expect(mp.status).to.equal(413);
      expect(files(lw)).to.deep.equal([]);
      expect(await sql(lw.server, 'SELECT id FROM attachment')).to.have.length(0);
      const fits = await rawUpload(lw, owner, lrel, Buffer.alloc(1024 * 1024, 0x61), '?name=fits.txt');
      expect(fits.status, fits.text).to.equal(201);
    });

    it('refuses types outside [repository.release] ALLOWED_TYPES with Gitea\'s message; a sniffed PNG passes', async () => {
      const before = files(lw);
      const exe = await rawUpload(lw, owner, lrel, Buffer.from([0x4d, 0x5a, 0x90, 0x00, 0x03]), '?name=tool.exe');
      expect(exe.status).to.equal(400);
      expect(exe.body.message).to.equal('This file cannot be uploaded or modified due to a forbidden file extension or type.');
      expect(files(lw)).to.deep.equal(before);
      const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(64)]);
      const pic = await rawUpload(lw, owner, lrel, png, '?name=picture.bin');
      expect(pic.status, pic.text).to.equal(201);
      const rename = await lw.raw('PATCH', `${lrel}/assets/${pic.body.id}`, { name: 'picture.exe' }, { token: owner.token });
      expect(rename.status).to.equal(422);
      expect(rename.body.message).to.equal('This file cannot be uploaded or modified due to a forbidden file extension or type.');
      expect((await lw.raw('GET', `${lrel}/assets/${pic.body.id}`)).body.name).to.equal('picture.bin');
    });
  });

  describe('attachments disabled', () => {
    let dw: World;
    let owner: TestUser;

    before(async () => {
      dw = await startWorld({ env: { FORGE__ATTACHMENT__ENABLED: 'false' } });
      owner = await dw.user('owner');
      await apiRepo(dw, owner, 'off');
    });
    after(async () => { await dw?.stop(); });

    it('uploads answer 404 "attachment is not enabled"', async () => {
      const r = await dw.raw('POST', '/repos/owner/off/releases', { tag_name: 'v1' }, { token: owner.token });
      const up = await rawUpload(dw, owner, `/repos/owner/off/releases/${r.body.id}`, Buffer.from('x'), '?name=x.txt');
      expect(up.status).to.equal(404);
      expect(up.body.message).to.equal('attachment is not enabled');
      expect(files(dw)).to.deep.equal([]);
    });
  });
});
