/**
 * `forge dump`: one .tar.gz with the database as SQL, the data dir (repositories, LFS objects,
 * attachments, secrets) and nothing the forge can rebuild; restored as the README says (unpack,
 * load the SQL with sqlite3 or psql) into a fresh server, which then serves the same users,
 * tokens, repositories, LFS objects and release assets. Refusals change nothing.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { newServer, type TestServer } from '../helpers/server';
import { apiRepo, GitTool } from '../helpers/refs';

const execFileP = promisify(execFile);
const PG_PORT = process.env.FORGE_TEST_PG_PORT ?? '55432';

describe('forge dump', function () {
  this.timeout(180_000);
  let w: World;
  let alice: TestUser;
  let restored: TestServer | null = null;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'forge-dump-test-'));
  const file = path.join(tmp, 'backup.tar.gz');

  before(async () => {
    w = await startWorld();
    alice = await w.user('alice');
    await apiRepo(w, alice, 'proj');
    const put = async (name: string, content: string | Buffer) => {
      const r = await w.raw('POST', `/repos/alice/proj/contents/${name}`, { content: Buffer.from(content).toString('base64') }, { token: alice.token });
      expect(r.status, r.text).to.equal(201);
    };
    await put('notes.txt', 'kept in the dump\n');
    await put('.gitattributes', '*.bin filter=lfs diff=lfs merge=lfs -text\n');
    await put('big.bin', Buffer.alloc(4000, 9));
    const rel = await w.raw('POST', '/repos/alice/proj/releases', { tag_name: 'v1', name: 'one' }, { token: alice.token });
    expect(rel.status, rel.text).to.equal(201);
    const asset = await fetch(`${w.server.api}/repos/alice/proj/releases/${rel.body.id}/assets?name=asset.txt`, {
      method: 'POST', headers: { Authorization: `token ${alice.token}`, 'Content-Type': 'application/octet-stream' }, body: 'the asset\n',
    });
    expect(asset.status).to.equal(201);
    const issue = await w.raw('POST', '/repos/alice/proj/issues', { title: 'Flux capacitor', body: 'needs 1.21 gigawatts' }, { token: alice.token });
    expect(issue.status).to.equal(201);
    expect((await w.raw('POST', '/repos/alice/proj/issues/1/comments', { body: 'plutonium delivered' }, { token: alice.token })).status).to.equal(201);
    // an archive in the cache, which the dump leaves out
    expect((await fetch(`${w.server.api}/repos/alice/proj/archive/main.zip`, { headers: { Authorization: `token ${alice.token}` } })).status).to.equal(200);
  });
  after(async () => {
    await restored?.destroy();
    await w?.stop();
  });

  it('writes one archive with the SQL, the repositories, LFS objects, attachments and secrets, and nothing rebuildable', async () => {
    const out = await w.server.cli(['dump', '--file', file]);
    expect(out.code, out.stderr).to.equal(0);
    expect(out.stderr).to.include(`Finish dumping in file ${file}`);
    expect(fs.statSync(file).mode & 0o777).to.equal(0o600);
    const members = (await execFileP('tar', ['-tzf', file], { maxBuffer: 64 << 20 })).stdout.split('\n');
    for (const m of ['forge-db.sql', 'data/secrets.json', 'data/repositories/alice/proj.git/HEAD']) expect(members, m).to.include(m);
    expect(members.some((m) => /^data\/lfs\/.+[0-9a-f]{64}$/.test(m))).to.equal(true);
    expect(members.some((m) => m.startsWith('data/attachments/') && !m.endsWith('/'))).to.equal(true);
    expect(members.some((m) => m.startsWith('data/repo-archive'))).to.equal(false);
    expect(members.some((m) => /forge\.db/.test(m))).to.equal(false);
  });

  it('restores into a fresh server that serves the same users, tokens, repositories, LFS objects and assets', async () => {
    restored = await newServer();
    const unpack = fs.mkdtempSync(path.join(tmp, 'unpack-'));
    await execFileP('tar', ['-xzf', file, '-C', unpack]);
    fs.rmSync(restored.dataDir, { recursive: true, force: true });
    fs.renameSync(path.join(unpack, 'data'), restored.dataDir);
    const sqlFile = path.join(unpack, 'forge-db.sql');
    if (restored.env.FORGE__DATABASE__DB_TYPE === 'postgres') {
      await execFileP('psql', ['-q', '-v', 'ON_ERROR_STOP=1', '-h', '127.0.0.1', '-p', PG_PORT, '-U', 'forge', '-d', restored.env.FORGE__DATABASE__NAME, '-f', sqlFile],
        { env: { ...process.env, PGPASSWORD: 'forge' } });
    } else {
      await execFileP('sh', ['-c', `sqlite3 "${path.join(restored.dataDir, 'forge.db')}" < "${sqlFile}"`]);
    }
    await restored.start();
    const api = (p: string, token = alice.token) => fetch(`${restored!.api}${p}`, { headers: { Authorization: `token ${token}` } });
    const me = await api('/user');
    expect(me.status).to.equal(200);
    expect(((await me.json()) as { login: string }).login).to.equal('alice');
    expect((await fetch(`${restored.api}/user`, { headers: { Authorization: `Basic ${Buffer.from(`alice:${alice.password}`).toString('base64')}` } })).status).to.equal(200);
    const raw = await api('/repos/alice/proj/raw/notes.txt');
    expect(await raw.text()).to.equal('kept in the dump\n');
    const media = await api('/repos/alice/proj/media/big.bin');
    expect(Buffer.from(await media.arrayBuffer()).equals(Buffer.alloc(4000, 9))).to.equal(true);
    const asset = await fetch(`${restored.url}alice/proj/releases/download/v1/asset.txt`, { headers: { Authorization: `token ${alice.token}` } });
    expect(await asset.text()).to.equal('the asset\n');
    // the keyword index is rebuilt from the issues and comments
    for (const word of ['capacitor', 'gigawatts', 'plutonium']) {
      const found = (await (await api(`/repos/alice/proj/issues?q=${word}`)).json()) as { number: number }[];
      expect(found.map((i) => i.number), word).to.deep.equal([1]);
    }
    const g = new GitTool(w);
    const clone = path.join(tmp, 'clone');
    await g.ok(['clone', '-q', `http://alice:${alice.token}@${new URL(restored.url).host}/alice/proj.git`, clone]);
    expect(fs.readFileSync(path.join(clone, 'notes.txt'), 'utf8')).to.equal('kept in the dump\n');
    // the restored forge takes pushes
    await g.commit(clone, 'after.txt', 'after the restore\n');
    await g.ok(['push', '-q', 'origin', 'main'], clone);
    const doctor = await restored.cli(['doctor', 'check']);
    expect(doctor.code, doctor.stdout).to.equal(0);
  });

  it('refuses an existing file and an unsupported type, and changes nothing', async () => {
    const before = fs.readFileSync(file);
    const exists = await w.server.cli(['dump', '--file', file]);
    expect(exists.code).to.equal(1);
    expect(exists.stderr).to.equal(`Command error: Dump file "${file}" exists\n`);
    expect(fs.readFileSync(file).equals(before)).to.equal(true);
    const zip = await w.server.cli(['dump', '--file', path.join(tmp, 'x.zip'), '--type', 'zip']);
    expect(zip.code).to.equal(1);
    expect(zip.stderr).to.equal('Command error: --type zip is not supported: forge dump writes tar.gz\n');
    expect(fs.existsSync(path.join(tmp, 'x.zip'))).to.equal(false);
  });
});
