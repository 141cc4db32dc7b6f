/**
 * Input no handler should see is refused centrally, on every route of the swagger document: a NUL
 * or a malformed escape in a path (404), a NUL in a query value or a body (422), ids and pages past
 * any row. No request ends a worker: a sign-up form with repeated fields is answered and the same
 * worker serves on. `sudo` needs a token scoped `all` or `write:admin`; [security]
 * DISABLE_QUERY_AUTH_TOKEN turns query-string tokens off.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { WebClient } from '../helpers/web';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { serverRepoDir } from '../helpers/repo-fixture';
import { count } from '../helpers/db';

const SWAGGER = path.resolve(__dirname, '..', '..', 'swagger', 'swagger.json');

interface Operation { method: string; path: string; query: string[]; hasBody: boolean }

/** Every operation of our swagger document. */
function operations(): Operation[] {
  const doc = JSON.parse(fs.readFileSync(SWAGGER, 'utf8')) as { paths: Record<string, Record<string, { parameters?: { in: string; name: string }[] }>> };
  const out: Operation[] = [];
  for (const [p, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const params = op.parameters ?? [];
      out.push({ method: method.toUpperCase(), path: p, query: params.filter((x) => x.in === 'query').map((x) => x.name), hasBody: params.some((x) => x.in === 'body') });
    }
  }
  return out;
}

/** The worker processes of a server (children of its primary that are not helpers). */
function workerPids(primary: number): number[] {
  const out = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(primary)]).toString();
  return out.split('\n').map((l) => l.trim()).filter((l) => l && !l.includes('launcher-process')).map((l) => Number(l.split(/\s+/)[0]));
}

describe('hostile input', () => {
  let w: World;
  let alice: TestUser;
  /** What must not change while everything below is refused. */
  let snapshot: () => Promise<string>;

  before(async () => {
    w = await startWorld();
    alice = await w.user('alice');
    expect((await w.raw('POST', '/user/repos', { name: 'proj', auto_init: true }, { token: alice.token })).status).to.equal(201);
    expect((await w.raw('POST', '/orgs', { username: 'acme' }, { token: alice.token })).status).to.equal(201);
    const dir = serverRepoDir(w.server, 'alice', 'proj');
    snapshot = async () => JSON.stringify([
      execFileSync('git', ['--git-dir', dir, 'for-each-ref']).toString(),
      await count(w.server, 'SELECT COUNT(*) AS n FROM users'), await count(w.server, 'SELECT COUNT(*) AS n FROM repository'),
      await count(w.server, 'SELECT COUNT(*) AS n FROM public_key'), await count(w.server, 'SELECT COUNT(*) AS n FROM access_token'),
    ]);
  });
  after(() => w.stop());

  describe('on every route of the swagger document', () => {
    /** Send one request as the site administrator; a 5xx is collected as a failure. */
    const probe = async (failures: string[], method: string, url: string, body?: unknown, want?: number) => {
      const r = await w.raw(method, url, body, { token: w.admin.token });
      if (r.status >= 500 || (want !== undefined && r.status !== want)) failures.push(`${method} ${url} -> ${r.status} ${r.text.slice(0, 120)}`);
    };
    const fill = (p: string, value: (name: string) => string) => p.replace(/\{(\w+)\}/g, (_, name: string) => value(name));
    const VALID: Record<string, string> = {
      owner: 'alice', repo: 'proj', username: 'alice', org: 'acme', template_owner: 'alice', template_repo: 'proj', target: 'alice',
      collaborator: 'alice', id: '1', attachment_id: '1', sha: 'main', ref: 'main', branch: 'main', tag: 'v1', filepath: 'README.md',
      archive: 'main.zip', basehead: 'main...main', pageName: 'Home', topic: 'x', token: '1', diffType: 'diff',
    };

    it('refuses a NUL or a malformed escape in any path parameter with 404, and changes nothing', async () => {
      const before = await snapshot();
      const failures: string[] = [];
      for (const op of operations()) {
        if (!op.path.includes('{')) continue;
        for (const bad of ['%00', 'a%00b', '%ff', '%E0%A4%A', '%']) {
          await probe(failures, op.method, fill(op.path, () => bad), op.hasBody ? {} : undefined, 404);
        }
      }
      expect(failures).to.deep.equal([]);
      expect(await snapshot()).to.equal(before);
    });

    it('refuses a NUL in any query parameter with 422, and changes nothing', async () => {
      const before = await snapshot();
      const failures: string[] = [];
      for (const op of operations()) {
        for (const q of op.query) {
          await probe(failures, op.method, `${fill(op.path, (n) => VALID[n] ?? 'x')}?${q}=a%00b`, op.hasBody ? {} : undefined, 422);
        }
      }
      expect(failures).to.deep.equal([]);
      expect(await snapshot()).to.equal(before);
    });

    it('refuses a NUL in any JSON body with 422 naming the field, and changes nothing', async () => {
      const before = await snapshot();
      const failures: string[] = [];
      const hostile = { name: 'a\u0000b', title: 'x\u0000', username: 'u\u0000', key: 'k\u0000', content: '\u0000', nested: { deep: ['ok', 'bad\u0000'] } };
      for (const op of operations().filter((o) => o.hasBody)) {
        const r = await w.raw(op.method, fill(op.path, (n) => VALID[n] ?? 'x'), hostile, { token: w.admin.token });
        if (r.status !== 422 || !/^name: must not contain a NUL character$/.test(r.body?.message ?? '')) failures.push(`${op.method} ${op.path} -> ${r.status} ${r.text.slice(0, 120)}`);
      }
      expect(failures).to.deep.equal([]);
      expect(await snapshot()).to.equal(before);
      const nested = await w.raw('POST', '/user/repos', { name: 'fine', description: ['ok', 'b\u0000'] }, { token: alice.token });
      expect(nested.status).to.equal(422);
      expect(nested.body.message).to.equal('description[1]: must not contain a NUL character');
    });

    it('answers pages and ids past any row without a 5xx', async () => {
      const failures: string[] = [];
      for (const op of operations().filter((o) => o.method === 'GET')) {
        const base = fill(op.path, (n) => (n === 'id' || n === 'attachment_id' ? '99999999999999999999' : VALID[n] ?? 'x'));
        await probe(failures, 'GET', base);
        if (op.query.includes('page')) await probe(failures, 'GET', `${fill(op.path, (n) => VALID[n] ?? 'x')}?page=99999999999999999999&limit=99999999999999999999`);
      }
      expect(failures).to.deep.equal([]);
      const past = await w.raw('GET', '/repos/search?page=99999999999999999999', undefined, { token: alice.token });
      expect(past.status).to.equal(200);
      expect(past.body.data).to.deep.equal([]);
      expect((await w.raw('GET', '/repositories/99999999999999999999', undefined, { token: alice.token })).status).to.equal(404);
    });
  });

  it('answers a NUL in a Basic sign-in name with 401', async () => {
    const r = await w.raw('GET', '/user', undefined, { basic: ['ali\u0000ce', 'password-123456'] });
    expect(r.status, r.text).to.equal(401);
  });

  it('keeps the worker serving when a sign-up form repeats its fields', async () => {
    const workers = workerPids(w.server.proc!.pid!);
    expect(workers).to.have.length(w.server.workers);
    let web = new WebClient(w);
    await web.get('user/sign_up');
    const form = (fields: [string, string][]) => web.request('POST', 'user/sign_up', {
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams([...fields, ['_csrf', web.csrf]]).toString(),
    });
    const pw = 'a-long-password-1';
    // the first value of a repeated field counts, as Go's FormValue has it for Gitea
    const made = await form([['user_name', 'rep1'], ['user_name', 'rep2'], ['email', 'rep1@example.com'], ['email', 'rep2@example.com'], ['password', pw], ['retype', pw]]);
    expect(made.status).to.equal(303);
    const u = await w.raw('GET', '/users/rep1', undefined, { token: w.admin.token });
    expect(u.status).to.equal(200);
    expect(u.body.email).to.equal('rep1@example.com');
    expect((await w.raw('GET', '/users/rep2', undefined, { token: w.admin.token })).status).to.equal(404);
    // why: the sign-up signed that browser in; the repeats come from a visitor's form.
    web = new WebClient(w);
    await web.get('user/sign_up');
    // repeated again and again, each answered, by the same worker
    for (let i = 0; i < 20; i++) {
      const r = await form([['user_name', 'rep1'], ['user_name', `x${i}`], ['email', 'e@example.com'], ['email', 'f@example.com'], ['password', pw], ['retype', pw]]);
      expect(r.status).to.equal(422);
      expect(r.text).to.include('user already exists');
    }
    expect(workerPids(w.server.proc!.pid!)).to.deep.equal(workers);
    expect(w.server.output).to.not.match(/died|uncaught|unhandled/);
  });

  describe('sudo', () => {
    it('is refused to an administrator token without the all or write:admin scope, and nothing is done as the other user', async () => {
      const narrow = await w.raw('POST', '/users/root/tokens', { name: 'narrow', scopes: ['read:repository', 'read:user'] }, { basic: ['root', w.admin.password] });
      expect(narrow.status).to.equal(201);
      const r = await w.raw('GET', '/user?sudo=alice', undefined, { token: narrow.body.sha1 });
      expect(r.status, r.text).to.equal(403);
      expect(r.body.message).to.equal('sudo needs a token with the "all" or "write:admin" scope');
      const h = await w.raw('GET', '/user', undefined, { token: narrow.body.sha1, headers: { Sudo: 'alice' } });
      expect(h.status).to.equal(403);
      const keys = await count(w.server, 'SELECT COUNT(*) AS n FROM public_key');
      expect((await w.raw('POST', '/user/keys?sudo=alice', { title: 'x', key: 'ssh-ed25519 AAAA' }, { token: narrow.body.sha1 })).status).to.equal(403);
      expect(await count(w.server, 'SELECT COUNT(*) AS n FROM public_key')).to.equal(keys);
    });

    it('works with an all or write:admin token', async () => {
      const admin = await w.raw('POST', '/users/root/tokens', { name: 'adm', scopes: ['write:admin', 'read:user'] }, { basic: ['root', w.admin.password] });
      for (const token of [w.admin.token, admin.body.sha1]) {
        const r = await w.raw('GET', '/user?sudo=alice', undefined, { token });
        expect(r.status, r.text).to.equal(200);
        expect(r.body.login).to.equal('alice');
      }
    });
  });

  describe('query-string tokens', () => {
    it('are accepted by default, with Gitea\'s deprecation warning', async () => {
      const r = await fetch(`${w.server.api}/user?token=${alice.token}`);
      expect(r.status).to.equal(200);
      expect(r.headers.get('x-gitea-warning')).to.match(/deprecated/);
    });

    it('are ignored with [security] DISABLE_QUERY_AUTH_TOKEN (the caller is anonymous); headers still work', async () => {
      const strict = await startWorld({ env: { FORGE__SECURITY__DISABLE_QUERY_AUTH_TOKEN: 'true' } });
      try {
        const bob = await strict.user('bob');
        for (const q of ['token', 'access_token']) {
          const r = await fetch(`${strict.server.api}/user?${q}=${bob.token}`);
          expect(r.status, q).to.equal(401);
        }
        expect((await strict.raw('GET', '/user', undefined, { token: bob.token })).status).to.equal(200);
        expect(strict.server.output).to.include('DISABLE_QUERY_AUTH_TOKEN=true: ignored');
      } finally {
        await strict.stop();
      }
    });
  });
});
