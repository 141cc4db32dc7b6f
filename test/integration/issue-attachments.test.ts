/**
 * Issue and comment attachments: multipart (gitea-js) and raw-body uploads, list, get, rename and
 * delete; who may change them (issue poster, writers, comment poster with write, admins); every
 * refusal with its status and message and nothing changed (rows and files); the `/attachments/{uuid}`
 * download on the issue's permission (and an unlinked attachment for its uploader only); removal with
 * the comment and the issue; archived repositories; size and type limits; attachments disabled.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { apiRepo } from '../helpers/refs';
import { count, sql } from '../helpers/db';

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

const fileOf = (uuid: string) => `${uuid[0]}/${uuid[1]}/${uuid}`;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
interface Answer { status: number; body: any; text: string }

async function answer(res: Response): Promise<Answer> {
  const text = await res.text();
  let body: unknown = null;
  try { body = JSON.parse(text); } catch { /* not JSON */ }
  return { status: res.status, body, text };
}

/** POST a raw body upload to `assetsPath` (relative to /api/v1). */
async function rawUpload(w: World, u: TestUser | null, assetsPath: string, body: Buffer, query: string): Promise<Answer> {
  const headers: Record<string, string> = { 'Content-Type': 'application/octet-stream' };
  if (u) headers.Authorization = `token ${u.token}`;
  return answer(await fetch(`${w.server.api}${assetsPath}${query}`, { method: 'POST', headers, body }));
}

/** POST a hand-made multipart body to `assetsPath`. */
async function multipart(w: World, u: TestUser, assetsPath: string, parts: { name: string; filename?: string; data: Buffer }[], query = ''): Promise<Answer> {
  const boundary = '----forge-issue-attachment-3f9';
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const disp = `form-data; name="${p.name}"${p.filename !== undefined ? `; filename="${p.filename}"` : ''}`;
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disp}\r\nContent-Type: application/octet-stream\r\n\r\n`), p.data, Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return answer(await fetch(`${w.server.api}${assetsPath}${query}`, {
    method: 'POST', headers: { Authorization: `token ${u.token}`, 'Content-Type': `multipart/form-data; boundary=${boundary}` }, body: Buffer.concat(chunks),
  }));
}

/** GET a download URL, optionally as `u`. */
async function download(url: string, u?: TestUser): Promise<{ status: number; bytes: Buffer }> {
  const res = await fetch(url, { headers: u ? { Authorization: `token ${u.token}` } : {} });
  return { status: res.status, bytes: Buffer.from(await res.arrayBuffer()) };
}

/** The number of attachment rows. */
const rows = (w: World) => count(w.server, 'SELECT COUNT(*) AS n FROM attachment');

/** What must not change across a refusal: rows (with names) and files. */
async function snapshot(w: World) {
  return { rows: await sql(w.server, 'SELECT id, name, issue_id, comment_id FROM attachment ORDER BY id'), files: files(w) };
}

describe('issue and comment attachments', () => {
  let w: World;
  let alice: TestUser; // owner of alice/proj
  let bob: TestUser; // reader; poster of issue #2 and of a comment on #1
  let carol: TestUser; // write collaborator
  let eve: TestUser; // reader, posted nothing
  const P = '/repos/alice/proj';
  let cAlice: number; // alice's comment on #1
  let cBob: number; // bob's comment on #1
  let cCarol: number; // carol's comment on #1
  let cElsewhere: number; // bob's comment in bob/elsewhere

  const comment = async (u: TestUser, repo: string, index: number, body: string) => {
    const r = await w.raw('POST', `/repos/${repo}/issues/${index}/comments`, { body }, { token: u.token });
    expect(r.status, r.text).to.equal(201);
    return r.body.id as number;
  };
  const issue = async (u: TestUser, repo: string, title: string) => {
    const r = await w.raw('POST', `/repos/${repo}/issues`, { title }, { token: u.token });
    expect(r.status, r.text).to.equal(201);
    return r.body.number as number;
  };

  before(async () => {
    w = await startWorld();
    alice = await w.user('alice');
    bob = await w.user('bob');
    carol = await w.user('carol');
    eve = await w.user('eve');
    await apiRepo(w, alice, 'proj');
    expect((await w.raw('PUT', `${P}/collaborators/carol`, { permission: 'write' }, { token: alice.token })).status).to.equal(204);
    expect(await issue(alice, 'alice/proj', 'first')).to.equal(1);
    expect(await issue(bob, 'alice/proj', 'bob asks')).to.equal(2);
    cAlice = await comment(alice, 'alice/proj', 1, 'from alice');
    cBob = await comment(bob, 'alice/proj', 1, 'from bob');
    cCarol = await comment(carol, 'alice/proj', 1, 'from carol');
    await apiRepo(w, bob, 'elsewhere');
    await issue(bob, 'bob/elsewhere', 'other');
    cElsewhere = await comment(bob, 'bob/elsewhere', 1, 'elsewhere');
  });
  after(async () => { await w?.stop(); });

  describe('issue attachments', () => {
    let noteId: number;
    let noteUuid: string;
    let blobId: number;

    it('uploads with multipart (gitea-js): Gitea\'s JSON, the row, the file, and the same bytes downloaded', async () => {
      const content = 'issue note\n';
      const r = await alice.api.repos.issueCreateIssueAttachment('alice', 'proj', 1, { attachment: new File([content], 'note.txt') });
      expect(r.status).to.equal(201);
      const a = r.data;
      expect(Object.keys(a).sort()).to.deep.equal(['browser_download_url', 'created_at', 'download_count', 'id', 'name', 'size', 'uuid']);
      expect(a).to.deep.include({ name: 'note.txt', size: content.length, download_count: 0 });
      expect(a.uuid).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect(a.browser_download_url).to.equal(`${w.server.url}attachments/${a.uuid}`);
      expect(Date.parse(a.created_at!)).to.be.closeTo(Date.now(), 60_000);
      noteId = a.id!;
      noteUuid = a.uuid!;
      const [row] = await sql(w.server, 'SELECT repo_id, issue_id, comment_id, release_id, uploader_id FROM attachment WHERE id = $1', [noteId]);
      const [iss] = await sql(w.server, 'SELECT id, repo_id FROM issue WHERE repo_id = $1 AND "index" = 1', [(await w.raw('GET', P)).body.id]);
      expect({ ...row }).to.deep.equal({ repo_id: iss.repo_id, issue_id: iss.id, comment_id: 0, release_id: 0, uploader_id: alice.id });
      expect(files(w)).to.deep.equal([fileOf(noteUuid)]);
      const dl = await download(a.browser_download_url!);
      expect(dl.status).to.equal(200);
      expect(dl.bytes.toString()).to.equal(content);
      expect((await w.raw('GET', `${P}/issues/1/assets/${noteId}`)).body.download_count).to.equal(1);
    });

    it('uploads a raw body named by the `name` query; multipart takes `name` over the file name', async () => {
      const bytes = Buffer.alloc(200_000);
      for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7919) % 256;
      const raw = await rawUpload(w, alice, `${P}/issues/1/assets`, bytes, '?name=blob.zip');
      expect(raw.status, raw.text).to.equal(201);
      expect(raw.body).to.deep.include({ name: 'blob.zip', size: bytes.length });
      blobId = raw.body.id;
      expect((await download(raw.body.browser_download_url)).bytes.equals(bytes)).to.equal(true);
      const mp = await multipart(w, alice, `${P}/issues/1/assets`, [{ name: 'attachment', filename: 'orig.txt', data: Buffer.from('renamed body') }], '?name=log.txt');
      expect(mp.status, mp.text).to.equal(201);
      expect(mp.body.name).to.equal('log.txt');
      expect((await download(mp.body.browser_download_url)).bytes.toString()).to.equal('renamed body');
      expect((await w.raw('DELETE', `${P}/issues/1/assets/${mp.body.id}`, undefined, { token: alice.token })).status).to.equal(204);
    });

    it('lets the issue\'s poster upload without write access; refuses other readers (403) and anonymous callers (401)', async () => {
      const own = await bob.api.repos.issueCreateIssueAttachment('alice', 'proj', 2, { attachment: new File(['mine'], 'bob.txt') });
      expect(own.status).to.equal(201);
      const before = await snapshot(w);
      const other = await rawUpload(w, bob, `${P}/issues/1/assets`, Buffer.from('x'), '?name=x.txt');
      expect(other.status).to.equal(403);
      expect(other.body.message).to.equal('user should have permission to write issue');
      const reader = await multipart(w, eve, `${P}/issues/2/assets`, [{ name: 'attachment', filename: 'e.txt', data: Buffer.from('e') }]);
      expect(reader.status).to.equal(403);
      expect(reader.body.message).to.equal('user should have permission to write issue');
      expect((await rawUpload(w, null, `${P}/issues/2/assets`, Buffer.from('x'), '?name=x.txt')).status).to.equal(401);
      expect((await rawUpload(w, alice, `${P}/issues/99/assets`, Buffer.from('x'), '?name=x.txt')).status).to.equal(404);
      expect(await snapshot(w)).to.deep.equal(before);
      // a writer may upload to anyone's issue
      const writer = await carol.api.repos.issueCreateIssueAttachment('alice', 'proj', 2, { attachment: new File(['carol'], 'carol.txt') });
      expect(writer.status).to.equal(201);
      expect((await carol.api.repos.issueDeleteIssueAttachment('alice', 'proj', 2, writer.data.id!)).status).to.equal(204);
    });

    it('lists only the issue\'s own attachments (not its comments\'), as the Issue JSON shows them', async () => {
      const onComment = await alice.api.repos.issueCreateIssueCommentAttachment('alice', 'proj', cAlice, { attachment: new File(['c'], 'on-comment.txt') });
      expect(onComment.status).to.equal(201);
      const list = await eve.api.repos.issueListIssueAttachments('alice', 'proj', 1);
      expect(list.status).to.equal(200);
      expect(list.data.map((a) => a.name)).to.deep.equal(['note.txt', 'blob.zip']);
      const iss = await eve.api.repos.issueGetIssue('alice', 'proj', 1);
      expect(iss.data.assets!.map((a) => a.id)).to.deep.equal([noteId, blobId]);
      const anon = await w.raw('GET', `${P}/issues/1/assets`);
      expect(anon.status).to.equal(200);
      expect(anon.body.map((a: { name: string }) => a.name)).to.deep.equal(['note.txt', 'blob.zip']);
      expect((await w.raw('GET', `${P}/issues/99/assets`)).status).to.equal(404);
      // the issue's route reads a comment attachment of the same issue, as Gitea does
      expect((await w.raw('GET', `${P}/issues/1/assets/${onComment.data.id}`)).body.name).to.equal('on-comment.txt');
      expect((await alice.api.repos.issueDeleteIssueCommentAttachment('alice', 'proj', cAlice, onComment.data.id!)).status).to.equal(204);
    });

    it('gets one attachment only under its own issue and repository', async () => {
      const one = await eve.api.repos.issueGetIssueAttachment('alice', 'proj', 1, noteId);
      expect(one.data).to.deep.include({ id: noteId, uuid: noteUuid, name: 'note.txt' });
      const otherIssue = await w.raw('GET', `${P}/issues/2/assets/${noteId}`);
      expect(otherIssue.status).to.equal(404);
      expect(otherIssue.body.message).to.equal('no such attachment in issue');
      const otherRepo = await w.raw('GET', `/repos/bob/elsewhere/issues/1/assets/${noteId}`);
      expect(otherRepo.status).to.equal(404);
      expect(otherRepo.body.message).to.equal('no such attachment in repo');
      expect((await w.raw('GET', `${P}/issues/1/assets/999999`)).status).to.equal(404);
      // a release asset of the same repository is not an issue attachment
      const rel = await w.raw('POST', `${P}/releases`, { tag_name: 'v1' }, { token: alice.token });
      const asset = await rawUpload(w, alice, `${P}/releases/${rel.body.id}/assets`, Buffer.from('r'), '?name=r.txt');
      expect(asset.status, asset.text).to.equal(201);
      const relAsIssue = await w.raw('GET', `${P}/issues/1/assets/${asset.body.id}`);
      expect(relAsIssue.status).to.equal(404);
      expect(relAsIssue.body.message).to.equal('no such attachment in issue');
      expect((await w.raw('DELETE', `${P}/issues/1/assets/${asset.body.id}`, undefined, { token: alice.token })).status).to.equal(404);
      expect(await count(w.server, 'SELECT COUNT(*) AS n FROM attachment WHERE id = $1', [asset.body.id])).to.equal(1);
    });

    it('renames (201); an empty name changes nothing; a forbidden extension is 422; readers are refused', async () => {
      const r = await alice.api.repos.issueEditIssueAttachment('alice', 'proj', 1, noteId, { name: 'readme.md' });
      expect(r.status).to.equal(201);
      expect(r.data).to.deep.include({ id: noteId, name: 'readme.md' });
      const empty = await w.raw('PATCH', `${P}/issues/1/assets/${noteId}`, { name: '' }, { token: alice.token });
      expect(empty.status).to.equal(201);
      expect(empty.body.name).to.equal('readme.md');
      const before = await snapshot(w);
      const exe = await w.raw('PATCH', `${P}/issues/1/assets/${noteId}`, { name: 'tool.exe' }, { token: alice.token });
      expect(exe.status).to.equal(422);
      expect(exe.body.message).to.equal('This file cannot be uploaded or modified due to a forbidden file extension or type.');
      const reader = await w.raw('PATCH', `${P}/issues/1/assets/${noteId}`, { name: 'x.txt' }, { token: eve.token });
      expect(reader.status).to.equal(403);
      expect(reader.body.message).to.equal('user should have permission to write issue');
      expect((await w.raw('PATCH', `${P}/issues/1/assets/${noteId}`, { name: 'x.txt' })).status).to.equal(401);
      expect((await w.raw('PATCH', `${P}/issues/2/assets/${noteId}`, { name: 'x.txt' }, { token: alice.token })).status).to.equal(404);
      expect(await snapshot(w)).to.deep.equal(before);
    });

    it('lets the issue\'s poster change only the issue\'s own files, not files of other people\'s comments', async () => {
      const cOn2 = await comment(carol, 'alice/proj', 2, 'carol on bob\'s issue');
      const up = await carol.api.repos.issueCreateIssueCommentAttachment('alice', 'proj', cOn2, { attachment: new File(['c2'], 'c2.txt') });
      expect(up.status).to.equal(201);
      const before = await snapshot(w);
      const rename = await w.raw('PATCH', `${P}/issues/2/assets/${up.data.id}`, { name: 'mine.txt' }, { token: bob.token });
      expect(rename.status).to.equal(403);
      expect(rename.body.message).to.equal('user should have permission to edit comment');
      const del = await w.raw('DELETE', `${P}/issues/2/assets/${up.data.id}`, undefined, { token: bob.token });
      expect(del.status).to.equal(403);
      expect(await snapshot(w)).to.deep.equal(before);
      // the comment's poster (a writer) may, through either route
      expect((await w.raw('PATCH', `${P}/issues/2/assets/${up.data.id}`, { name: 'c2-renamed.txt' }, { token: carol.token })).status).to.equal(201);
      expect((await w.raw('DELETE', `${P}/issues/2/assets/${up.data.id}`, undefined, { token: carol.token })).status).to.equal(204);
    });

    it('deletes (204): row and file gone, the download is 404; refusals change nothing', async () => {
      const before = await snapshot(w);
      const reader = await w.raw('DELETE', `${P}/issues/1/assets/${blobId}`, undefined, { token: eve.token });
      expect(reader.status).to.equal(403);
      expect(reader.body.message).to.equal('user should have permission to write issue');
      expect((await w.raw('DELETE', `${P}/issues/2/assets/${blobId}`, undefined, { token: alice.token })).status).to.equal(404);
      expect(await snapshot(w)).to.deep.equal(before);
      const [row] = await sql(w.server, 'SELECT uuid FROM attachment WHERE id = $1', [blobId]);
      expect((await alice.api.repos.issueDeleteIssueAttachment('alice', 'proj', 1, blobId)).status).to.equal(204);
      expect(await count(w.server, 'SELECT COUNT(*) AS n FROM attachment WHERE id = $1', [blobId])).to.equal(0);
      expect(files(w)).to.not.include(fileOf(row.uuid));
      expect((await w.raw('GET', `${P}/issues/1/assets/${blobId}`)).status).to.equal(404);
      expect((await download(`${w.server.url}attachments/${row.uuid}`, alice)).status).to.equal(404);
    });
  });

  describe('comment attachments', () => {
    let carolAtt: number;
    let bobAtt: number;

    it('uploads to a comment (its poster with write access, or an admin): row, bytes, and the Comment JSON', async () => {
      const r = await carol.api.repos.issueCreateIssueCommentAttachment('alice', 'proj', cCarol, { attachment: new File(['carol file'], 'carol.txt') });
      expect(r.status).to.equal(201);
      expect(Object.keys(r.data).sort()).to.deep.equal(['browser_download_url', 'created_at', 'download_count', 'id', 'name', 'size', 'uuid']);
      carolAtt = r.data.id!;
      const [row] = await sql(w.server, 'SELECT a.comment_id, a.uploader_id, a.issue_id, c.issue_id AS comment_issue FROM attachment a JOIN comment c ON c.id = a.comment_id WHERE a.id = $1', [carolAtt]);
      expect(Number(row.comment_id)).to.equal(cCarol);
      expect(Number(row.uploader_id)).to.equal(carol.id);
      expect(Number(row.issue_id)).to.equal(Number(row.comment_issue));
      expect((await download(r.data.browser_download_url!)).bytes.toString()).to.equal('carol file');
      // the repository's owner (an admin) on bob's comment, raw body
      const admin = await rawUpload(w, alice, `${P}/issues/comments/${cBob}/assets`, Buffer.from('for bob'), '?name=for-bob.txt');
      expect(admin.status, admin.text).to.equal(201);
      bobAtt = admin.body.id;
      const c = await eve.api.repos.issueGetComment('alice', 'proj', cCarol);
      expect(c.data.assets!.map((a) => a.id)).to.deep.equal([carolAtt]);
      const list = await w.raw('GET', `${P}/issues/1/comments`);
      const byId = new Map(list.body.map((x: { id: number; assets: { id: number }[] }) => [x.id, x.assets.map((a) => a.id)]));
      expect(byId.get(cBob)).to.deep.equal([bobAtt]);
      expect(byId.get(cAlice)).to.deep.equal([]);
      const assets = await eve.api.repos.issueListIssueCommentAttachments('alice', 'proj', cCarol);
      expect(assets.data.map((a) => a.name)).to.deep.equal(['carol.txt']);
      expect((await eve.api.repos.issueGetIssueCommentAttachment('alice', 'proj', cBob, bobAtt)).data.name).to.equal('for-bob.txt');
    });

    it('refuses the comment\'s poster without write access, writers on others\' comments, and readers (403), storing nothing', async () => {
      const before = await snapshot(w);
      for (const [u, id] of [[bob, cBob], [carol, cAlice], [eve, cBob]] as const) {
        const r = await rawUpload(w, u, `${P}/issues/comments/${id}/assets`, Buffer.from('x'), '?name=x.txt');
        expect(r.status, `${u.name} on ${id}`).to.equal(403);
        expect(r.body.message).to.equal('user should have permission to edit comment');
      }
      const rename = await w.raw('PATCH', `${P}/issues/comments/${cBob}/assets/${bobAtt}`, { name: 'y.txt' }, { token: bob.token });
      expect(rename.status).to.equal(403);
      expect(rename.body.message).to.equal('user should have permission to edit comment');
      expect((await w.raw('DELETE', `${P}/issues/comments/${cCarol}/assets/${carolAtt}`, undefined, { token: eve.token })).status).to.equal(403);
      expect((await rawUpload(w, null, `${P}/issues/comments/${cBob}/assets`, Buffer.from('x'), '?name=x.txt')).status).to.equal(401);
      expect(await snapshot(w)).to.deep.equal(before);
    });

    it('a comment of another repository is 404, whatever the operation, and stores nothing', async () => {
      const before = await snapshot(w);
      const up = await rawUpload(w, alice, `${P}/issues/comments/${cElsewhere}/assets`, Buffer.from('x'), '?name=x.txt');
      expect(up.status).to.equal(404);
      expect(up.body.message).to.equal('no matching issue comment found');
      const list = await w.raw('GET', `${P}/issues/comments/${cElsewhere}/assets`);
      expect(list.status).to.equal(404);
      expect(list.body.message).to.equal('no matching issue comment found');
      expect((await w.raw('GET', `${P}/issues/comments/${cElsewhere}/assets/${carolAtt}`)).status).to.equal(404);
      expect((await w.raw('DELETE', `${P}/issues/comments/${cElsewhere}/assets/${carolAtt}`, undefined, { token: alice.token })).status).to.equal(404);
      expect((await w.raw('GET', `${P}/issues/comments/999999/assets`)).status).to.equal(404);
      expect(await snapshot(w)).to.deep.equal(before);
    });

    it('an attachment is addressed only under its own comment', async () => {
      const other = await w.raw('GET', `${P}/issues/comments/${cBob}/assets/${carolAtt}`);
      expect(other.status).to.equal(404);
      expect(other.body.message).to.equal('no such attachment in comment');
      const issueLevel = (await w.raw('GET', `${P}/issues/1/assets`)).body[0].id;
      const asComment = await w.raw('GET', `${P}/issues/comments/${cBob}/assets/${issueLevel}`);
      expect(asComment.status).to.equal(404);
      expect(asComment.body.message).to.equal('no such attachment in comment');
      const before = await snapshot(w);
      expect((await w.raw('DELETE', `${P}/issues/comments/${cBob}/assets/${carolAtt}`, undefined, { token: alice.token })).status).to.equal(404);
      expect((await w.raw('PATCH', `${P}/issues/comments/${cBob}/assets/${issueLevel}`, { name: 'z.txt' }, { token: alice.token })).status).to.equal(404);
      expect(await snapshot(w)).to.deep.equal(before);
    });

    it('renames (201) and deletes (204) with raw HTTP', async () => {
      const r = await w.raw('PATCH', `${P}/issues/comments/${cCarol}/assets/${carolAtt}`, { name: 'carol-2.txt' }, { token: carol.token });
      expect(r.status).to.equal(201);
      expect(r.body).to.deep.include({ id: carolAtt, name: 'carol-2.txt' });
      const exe = await w.raw('PATCH', `${P}/issues/comments/${cCarol}/assets/${carolAtt}`, { name: 'run.exe' }, { token: carol.token });
      expect(exe.status).to.equal(422);
      expect((await w.raw('GET', `${P}/issues/comments/${cCarol}/assets/${carolAtt}`)).body.name).to.equal('carol-2.txt');
      const [row] = await sql(w.server, 'SELECT uuid FROM attachment WHERE id = $1', [carolAtt]);
      expect((await w.raw('DELETE', `${P}/issues/comments/${cCarol}/assets/${carolAtt}`, undefined, { token: carol.token })).status).to.equal(204);
      expect(await count(w.server, 'SELECT COUNT(*) AS n FROM attachment WHERE id = $1', [carolAtt])).to.equal(0);
      expect(files(w)).to.not.include(fileOf(row.uuid));
      expect((await w.raw('GET', `${P}/issues/comments/${cCarol}/assets`)).body).to.deep.equal([]);
    });

    it('deleting a comment removes its attachments\' rows and files', async () => {
      const [row] = await sql(w.server, 'SELECT uuid FROM attachment WHERE id = $1', [bobAtt]);
      expect(files(w)).to.include(fileOf(row.uuid));
      expect((await alice.api.repos.issueDeleteComment('alice', 'proj', cBob)).status).to.equal(204);
      expect(await count(w.server, 'SELECT COUNT(*) AS n FROM attachment WHERE comment_id = $1', [cBob])).to.equal(0);
      expect(files(w)).to.not.include(fileOf(row.uuid));
    });

    it('deleting an issue removes the attachments of the issue and of its comments', async () => {
      const n = await issue(alice, 'alice/proj', 'doomed');
      const c = await comment(alice, 'alice/proj', n, 'doomed comment');
      const a1 = await rawUpload(w, alice, `${P}/issues/${n}/assets`, Buffer.from('1'), '?name=1.txt');
      const a2 = await rawUpload(w, alice, `${P}/issues/comments/${c}/assets`, Buffer.from('2'), '?name=2.txt');
      expect([a1.status, a2.status]).to.deep.equal([201, 201]);
      expect((await alice.api.repos.issueDelete('alice', 'proj', n)).status).to.equal(204);
      expect(await count(w.server, 'SELECT COUNT(*) AS n FROM attachment WHERE id IN ($1, $2)', [a1.body.id, a2.body.id])).to.equal(0);
      expect(files(w)).to.not.include.members([fileOf(a1.body.uuid), fileOf(a2.body.uuid)]);
    });
  });

  describe('downloads', () => {
    it('private repository: anonymous and outsiders get 404 (download and API), readers get the file', async () => {
      await apiRepo(w, alice, 'secret', { auto_init: true, private: true });
      await issue(alice, 'alice/secret', 'hidden');
      const c = await comment(alice, 'alice/secret', 1, 'hidden comment');
      const ia = await rawUpload(w, alice, '/repos/alice/secret/issues/1/assets', Buffer.from('secret issue'), '?name=s.txt');
      const ca = await rawUpload(w, alice, `/repos/alice/secret/issues/comments/${c}/assets`, Buffer.from('secret comment'), '?name=c.txt');
      expect([ia.status, ca.status]).to.deep.equal([201, 201]);
      for (const a of [ia.body, ca.body]) {
        expect((await download(a.browser_download_url)).status).to.equal(404);
        expect((await download(a.browser_download_url, eve)).status).to.equal(404);
        expect((await download(a.browser_download_url, alice)).status).to.equal(200);
      }
      expect((await w.raw('GET', '/repos/alice/secret/issues/1/assets', undefined, { token: eve.token })).status).to.equal(404);
      expect((await w.raw('GET', `/repos/alice/secret/issues/comments/${c}/assets`, undefined, { token: eve.token })).status).to.equal(404);
      const before = await snapshot(w);
      expect((await rawUpload(w, eve, '/repos/alice/secret/issues/1/assets', Buffer.from('x'), '?name=x.txt')).status).to.equal(404);
      expect(await snapshot(w)).to.deep.equal(before);
      expect((await w.raw('PUT', '/repos/alice/secret/collaborators/eve', { permission: 'read' }, { token: alice.token })).status).to.equal(204);
      const dl = await download(ia.body.browser_download_url, eve);
      expect(dl.status).to.equal(200);
      expect(dl.bytes.toString()).to.equal('secret issue');
      expect((await download(ca.body.browser_download_url, eve)).bytes.toString()).to.equal('secret comment');
    });

    it('an attachment linked to nothing yet is downloadable by its uploader only', async () => {
      const up = await rawUpload(w, carol, `${P}/issues/1/assets`, Buffer.from('draft upload'), '?name=draft.txt');
      expect(up.status).to.equal(201);
      await sql(w.server, 'UPDATE attachment SET issue_id = 0, comment_id = 0 WHERE id = $1', [up.body.id]);
      expect((await download(up.body.browser_download_url)).status).to.equal(404);
      expect((await download(up.body.browser_download_url, alice)).status).to.equal(404);
      expect((await download(up.body.browser_download_url, w.admin)).status).to.equal(404);
      const own = await download(up.body.browser_download_url, carol);
      expect(own.status).to.equal(200);
      expect(own.bytes.toString()).to.equal('draft upload');
      // and it is no issue's attachment through the API
      expect((await w.raw('GET', `${P}/issues/1/assets/${up.body.id}`)).body.message).to.equal('no such attachment in issue');
    });
  });

  describe('blocked users', () => {
    it('a user the repository\'s owner blocked cannot upload, even to their own issue', async () => {
      const frank = await w.user('frank');
      const n = await issue(frank, 'alice/proj', 'frank asks');
      expect((await alice.api.user.userBlockUser('frank')).status).to.equal(204);
      const before = await snapshot(w);
      const r = await rawUpload(w, frank, `${P}/issues/${n}/assets`, Buffer.from('x'), '?name=x.txt');
      expect(r.status).to.equal(403);
      expect(r.body.message).to.equal('user is blocked');
      expect(await snapshot(w)).to.deep.equal(before);
    });
  });

  describe('archived repository', () => {
    it('refuses every change with 423 and still serves reads', async () => {
      await apiRepo(w, alice, 'frozen');
      await issue(alice, 'alice/frozen', 'old');
      const c = await comment(alice, 'alice/frozen', 1, 'old comment');
      const ia = await rawUpload(w, alice, '/repos/alice/frozen/issues/1/assets', Buffer.from('i'), '?name=i.txt');
      const ca = await rawUpload(w, alice, `/repos/alice/frozen/issues/comments/${c}/assets`, Buffer.from('c'), '?name=c.txt');
      expect([ia.status, ca.status]).to.deep.equal([201, 201]);
      expect((await w.raw('PATCH', '/repos/alice/frozen', { archived: true }, { token: alice.token })).status).to.equal(200);
      const before = await snapshot(w);
      const F = '/repos/alice/frozen/issues';
      const answers = [
        await rawUpload(w, alice, `${F}/1/assets`, Buffer.from('x'), '?name=x.txt'),
        await multipart(w, alice, `${F}/comments/${c}/assets`, [{ name: 'attachment', filename: 'x.txt', data: Buffer.from('x') }]),
        await w.raw('PATCH', `${F}/1/assets/${ia.body.id}`, { name: 'n.txt' }, { token: alice.token }),
        await w.raw('DELETE', `${F}/1/assets/${ia.body.id}`, undefined, { token: alice.token }),
        await w.raw('PATCH', `${F}/comments/${c}/assets/${ca.body.id}`, { name: 'n.txt' }, { token: alice.token }),
        await w.raw('DELETE', `${F}/comments/${c}/assets/${ca.body.id}`, undefined, { token: alice.token }),
      ];
      expect(answers.map((a) => a.status)).to.deep.equal([423, 423, 423, 423, 423, 423]);
      expect(await snapshot(w)).to.deep.equal(before);
      expect((await w.raw('GET', `${F}/1/assets/${ia.body.id}`)).body.name).to.equal('i.txt');
      expect((await w.raw('GET', `${F}/comments/${c}/assets`)).body).to.have.length(1);
      expect((await download(ia.body.browser_download_url)).status).to.equal(200);
    });
  });

  describe('limits from config', () => {
    let lw: World;
    let owner: TestUser;
    let cid: number;

    before(async () => {
      lw = await startWorld({ env: { FORGE__ATTACHMENT__MAX_SIZE: '1', FORGE__ATTACHMENT__ALLOWED_TYPES: '.txt,image/png' } });
      owner = await lw.user('owner');
      await apiRepo(lw, owner, 'lim');
      expect((await lw.raw('POST', '/repos/owner/lim/issues', { title: 't' }, { token: owner.token })).status).to.equal(201);
      const c = await lw.raw('POST', '/repos/owner/lim/issues/1/comments', { body: 'c' }, { token: owner.token });
      cid = c.body.id;
    });
    after(async () => { await lw?.stop(); });

    it('refuses a file over [attachment] MAX_SIZE with 413 (raw and multipart, issue and comment), storing nothing', async () => {
      const big = Buffer.alloc(2 * 1024 * 1024 + 10, 0x61);
      for (const target of ['/repos/owner/lim/issues/1/assets', `/repos/owner/lim/issues/comments/${cid}/assets`]) {
        const raw = await rawUpload(lw, owner, target, big, '?name=big.txt');
        expect(raw.status, target).to.equal(413);
        expect(raw.body.message).to.equal(`attachment exceeds limit ${1024 * 1024}`);
        const mp = await multipart(lw, owner, target, [{ name: 'attachment', filename: 'big.txt', data: big }]);
        expect(mp.status, target).to.equal(413);
      }
      expect(files(lw)).to.deep.equal([]);
      expect(await rows(lw)).to.equal(0);
      const fits = await rawUpload(lw, owner, '/repos/owner/lim/issues/1/assets', Buffer.alloc(1024 * 1024, 0x61), '?name=fits.txt');
      expect(fits.status, fits.text).to.equal(201);
    });

    it('refuses types outside [attachment] ALLOWED_TYPES with 422 and Gitea\'s message; a sniffed PNG passes', async () => {
      const before = await snapshot(lw);
      const exe = Buffer.from([0x4d, 0x5a, 0x90, 0x00, 0x03]);
      for (const target of ['/repos/owner/lim/issues/1/assets', `/repos/owner/lim/issues/comments/${cid}/assets`]) {
        const raw = await rawUpload(lw, owner, target, exe, '?name=tool.exe');
        expect(raw.status, target).to.equal(422);
        expect(raw.body.message).to.equal('This file cannot be uploaded or modified due to a forbidden file extension or type.');
        const mp = await multipart(lw, owner, target, [{ name: 'attachment', filename: 'tool.exe', data: exe }]);
        expect(mp.status, target).to.equal(422);
      }
      expect(await snapshot(lw)).to.deep.equal(before);
      const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(64)]);
      const pic = await rawUpload(lw, owner, `/repos/owner/lim/issues/comments/${cid}/assets`, png, '?name=picture.bin');
      expect(pic.status, pic.text).to.equal(201);
      const rename = await lw.raw('PATCH', `/repos/owner/lim/issues/comments/${cid}/assets/${pic.body.id}`, { name: 'picture.exe' }, { token: owner.token });
      expect(rename.status).to.equal(422);
      expect((await lw.raw('GET', `/repos/owner/lim/issues/comments/${cid}/assets/${pic.body.id}`)).body.name).to.equal('picture.bin');
    });
  });

  describe('attachments disabled', () => {
    let dw: World;
    let owner: TestUser;

    before(async () => {
      dw = await startWorld({ env: { FORGE__ATTACHMENT__ENABLED: 'false' } });
      owner = await dw.user('owner');
      await apiRepo(dw, owner, 'off');
      expect((await dw.raw('POST', '/repos/owner/off/issues', { title: 't' }, { token: owner.token })).status).to.equal(201);
    });
    after(async () => { await dw?.stop(); });

    it('answers 404 on every route and stores nothing', async () => {
      const c = (await dw.raw('POST', '/repos/owner/off/issues/1/comments', { body: 'c' }, { token: owner.token })).body.id;
      const I = '/repos/owner/off/issues/1/assets';
      const C = `/repos/owner/off/issues/comments/${c}/assets`;
      const up = await rawUpload(dw, owner, I, Buffer.from('x'), '?name=x.txt');
      expect(up.status).to.equal(404);
      expect(up.body.message).to.equal('attachment is not enabled');
      const answers = [
        await multipart(dw, owner, C, [{ name: 'attachment', filename: 'x.txt', data: Buffer.from('x') }]),
        await dw.raw('GET', I), await dw.raw('GET', C), await dw.raw('GET', `${I}/1`), await dw.raw('GET', `${C}/1`),
        await dw.raw('PATCH', `${I}/1`, { name: 'y.txt' }, { token: owner.token }), await dw.raw('DELETE', `${I}/1`, undefined, { token: owner.token }),
        await dw.raw('PATCH', `${C}/1`, { name: 'y.txt' }, { token: owner.token }), await dw.raw('DELETE', `${C}/1`, undefined, { token: owner.token }),
      ];
      expect(answers.map((a) => a.status)).to.deep.equal(new Array(9).fill(404));
      expect(files(dw)).to.deep.equal([]);
      expect(await rows(dw)).to.equal(0);
    });
  });
});
