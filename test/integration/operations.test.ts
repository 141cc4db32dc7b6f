/**
 * Operating the forge: start-up failures as one line naming the setting and the remedy (a port in
 * use, a data dir that cannot be written or sits under a file), warnings for unknown keys, the
 * start-up line with the real addresses, `/api/healthz`, and the `/settings/*` endpoints.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { startWorld, type World } from '../helpers/world';
import { freePort, newServer, type TestServer } from '../helpers/server';
import { lockDir, unlockDir } from '../helpers/faults';

/** Occupy a loopback port until the returned function is called. */
async function occupy(port: number): Promise<() => Promise<void>> {
  const srv = net.createServer();
  await new Promise<void>((resolve) => srv.listen(port, '127.0.0.1', resolve));
  return () => new Promise((resolve) => srv.close(() => resolve()));
}

/** `forge web` that must fail to start: its exit status and what it printed. */
async function failedStart(server: TestServer): Promise<{ code: number; stderr: string }> {
  const out = await server.cli(['web']);
  return { code: out.code, stderr: out.stderr + out.stdout };
}

describe('operating the forge', function () {
  this.timeout(120_000);

  describe('start-up', () => {
    it('stops with one line naming the HTTP port and the key that changes it when the port is in use', async () => {
      const server = await newServer();
      const port = Number(server.env.FORGE__SERVER__HTTP_PORT);
      const release = await occupy(port);
      try {
        const out = await failedStart(server);
        expect(out.code).to.equal(1);
        expect(out.stderr).to.include(`forge cannot start: 127.0.0.1:${port} is already in use by another program: stop it, or choose another port with [server] HTTP_PORT (FORGE__SERVER__HTTP_PORT)\n`);
        expect(out.stderr.split('forge cannot start').length - 1, out.stderr).to.equal(1);
        expect(out.stderr).to.not.match(/\n\s+at /);
      } finally {
        await release();
        await server.destroy();
      }
    });

    it('names SSH_LISTEN_PORT when the SSH port is in use', async () => {
      const server = await newServer({ env: { FORGE__SERVER__SSH_LISTEN_HOST: '127.0.0.1' } });
      const port = Number(server.env.FORGE__SERVER__SSH_PORT);
      const release = await occupy(port);
      try {
        const out = await failedStart(server);
        expect(out.code).to.equal(1);
        expect(out.stderr).to.include(`forge cannot start: 127.0.0.1:${port} is already in use by another program: stop it, or choose another port with [server] SSH_LISTEN_PORT (FORGE__SERVER__SSH_LISTEN_PORT)\n`);
        expect(out.stderr).to.not.match(/\n\s+at /);
      } finally {
        await release();
        await server.destroy();
      }
    });

    it('stops when APP_DATA_PATH lies under a file, naming the file', async () => {
      const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'forge-ops-'));
      const file = path.join(tmp, 'plain-file');
      fs.writeFileSync(file, 'x');
      const bad = await newServer({ env: { FORGE__SERVER__APP_DATA_PATH: path.join(file, 'data') } });
      const res = await failedStart(bad);
      expect(res.code).to.equal(1);
      expect(res.stderr).to.include(`forge cannot start: APP_DATA_PATH ${path.join(file, 'data')} cannot be a directory: ${file} is a file; set [server] APP_DATA_PATH (FORGE__SERVER__APP_DATA_PATH)`);
      expect(res.stderr).to.not.match(/\n\s+at /);
      expect(fs.readFileSync(file, 'utf8')).to.equal('x');
      await bad.destroy();
    });

    it('stops when the data dir cannot be written, telling to run as its owner', async () => {
      const server = await newServer();
      lockDir(server.dataDir);
      try {
        const out = await failedStart(server);
        expect(out.code).to.equal(1);
        expect(out.stderr).to.match(new RegExp(`forge cannot start: APP_DATA_PATH ${server.dataDir} is not writable by this process \\((EACCES|EPERM)[^)]*\\): run the forge as the owner of ${server.dataDir} \\(uid \\d+\\), or set \\[server\\] APP_DATA_PATH`));
        expect(out.stderr).to.not.match(/\n\s+at /);
        expect(fs.readdirSync(server.dataDir)).to.deep.equal([]);
      } finally {
        unlockDir(server.dataDir);
        await server.destroy();
      }
    });

    it('warns of unknown keys in app.ini and in FORGE__ variables, and names the real addresses it listens on', async () => {
      const sshPort = await freePort();
      const ini = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'forge-ini-')), 'app.ini');
      fs.writeFileSync(ini, 'APP_NAME = Ops\n[server]\nHTTP_PROT = 1234\n[database]\nDB_TYP = sqlite3\n[not-ours]\nWHATEVER = 1\n');
      const w = await startWorld({ env: { FORGE_CONFIG: ini, FORGE__SERVER__HTTP_PROT: '1', FORGE__SERVER__SSH_LISTEN_HOST: '127.0.0.1', FORGE__SERVER__SSH_LISTEN_PORT: String(sshPort) } });
      try {
        const out = w.server.output;
        expect(out).to.include('warning: app.ini: unknown key [server] HTTP_PROT is ignored (did you mean HTTP_PORT?)');
        expect(out).to.include('warning: app.ini: unknown key [database] DB_TYP is ignored (did you mean DB_TYPE?)');
        expect(out).to.include('warning: FORGE__SERVER__HTTP_PROT: unknown key [server] HTTP_PROT is ignored (did you mean HTTP_PORT?)');
        expect(out).to.not.include('WHATEVER');
        // once, from the primary, not once per worker
        expect(out.split('DB_TYP is ignored').length - 1).to.equal(1);
        expect(out).to.match(new RegExp(`forge is listening: HTTP on 127\\.0\\.0\\.1:${w.server.httpPort}, SSH on 127\\.0\\.0\\.1:${sshPort} \\(ROOT_URL ${w.server.url.replace(/[.]/g, '\\.')}; \\d workers?, \\w+\\)`));
        expect((await w.raw('GET', '/settings/ui')).status).to.equal(200);
      } finally {
        await w.stop();
      }
    });
  });

  describe('health and settings', () => {
    let w: World;
    before(async () => {
      w = await startWorld({ env: {
        FORGE__API__DEFAULT_PAGING_NUM: '20', FORGE__API__MAX_RESPONSE_ITEMS: '40', FORGE__API__DEFAULT_MAX_BLOB_SIZE: '2048',
        FORGE__UI__REACTIONS: '+1, heart, rocket', FORGE__UI__DEFAULT_THEME: 'forge-dark', FORGE__SERVER__LFS_START_SERVER: 'false',
        FORGE__ATTACHMENT__MAX_SIZE: '7', FORGE__ATTACHMENT__MAX_FILES: '3',
        FORGE__MIRROR__ENABLED: 'false', FORGE__REPOSITORY__DISABLE_MIGRATIONS: 'true', FORGE__SERVICE__ENABLE_TIMETRACKING: 'false',
      } });
    });
    after(async () => { await w?.stop(); });

    it('answers /api/healthz without credentials in Gitea\'s shape', async () => {
      const res = await fetch(`${w.server.url}api/healthz`);
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^application\/json/);
      const body = await res.json() as { status: string; description: string; checks: Record<string, { status: string; time: string }[]> };
      expect(body.status).to.equal('pass');
      expect(body.description).to.equal('Forge');
      expect(Object.keys(body.checks).sort()).to.deep.equal(['cache:ping', 'data-dir:write', 'database:ping']);
      for (const [name, [c]] of Object.entries(body.checks)) {
        expect(c.status, name).to.equal('pass');
        expect(c.time).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      }
    });

    it('fails the data-dir check with 424 while the data dir cannot be written, and passes again after', async () => {
      lockDir(w.server.dataDir);
      let body: { status: string; checks: Record<string, { status: string; output?: string }[]> };
      try {
        const res = await fetch(`${w.server.url}api/healthz`);
        expect(res.status).to.equal(424);
        body = await res.json() as typeof body;
      } finally {
        unlockDir(w.server.dataDir);
      }
      expect(body.status).to.equal('fail');
      expect(body.checks['data-dir:write'][0].status).to.equal('fail');
      expect(body.checks['data-dir:write'][0].output).to.match(/EPERM|EACCES/);
      expect(body.checks['database:ping'][0].status).to.equal('pass');
      expect(w.server.output).to.match(/healthz: fail: data-dir:write: /);
      const again = await fetch(`${w.server.url}api/healthz`);
      expect(again.status).to.equal(200);
      expect(((await again.json()) as { status: string }).status).to.equal('pass');
    });

    it('reports the configured values at /settings/api, /attachment, /repository and /ui', async () => {
      const api = await w.raw('GET', '/settings/api');
      expect(api.status).to.equal(200);
      expect(api.body).to.deep.equal({ default_paging_num: 20, max_response_items: 40, default_git_trees_per_page: 1000, default_max_blob_size: 2048, default_max_response_size: 104857600 });
      const att = await w.raw('GET', '/settings/attachment');
      expect(att.body).to.include({ enabled: true, max_size: 7 * 1024 * 1024, max_files: 3 });
      expect(att.body.allowed_types).to.be.a('string').and.include('.zip');
      const repo = await w.raw('GET', '/settings/repository');
      expect(repo.body).to.deep.equal({ http_git_disabled: false, lfs_disabled: true, migrations_disabled: true, mirrors_disabled: true, stars_disabled: false, time_tracking_disabled: true });
      const ui = await w.raw('GET', '/settings/ui');
      expect(ui.body).to.deep.equal({ default_theme: 'forge-dark', allowed_reactions: ['+1', 'heart', 'rocket'], custom_emojis: ['gitea', 'codeberg', 'gitlab', 'git', 'github', 'gogs'] });
      const gitea = await w.admin.api.settings.getGeneralApiSettings();
      expect(gitea.data.max_response_items).to.equal(40);
    });
  });
});
