/**
 * The access log ([log] in app.ini, docs/logging.md) of a real server: an API call's line in
 * Gitea's shape with the caller, the request id its answer names and the time taken; clones over
 * HTTP and SSH and a refused SSH command as git operation lines; MODE = file writing access.log
 * under ROOT_PATH (and the ready line still on the console); FORMAT = json with the same facts and
 * the number of database statements the request sent.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { apiRepo, waitFor } from '../helpers/refs';
import { git, gitHome } from '../helpers/repo-fixture';
import { gitSshCommand, sshKeyFile, type SshKeyFile } from '../helpers/ssh';

/** Gitea's default template, then the request id and the milliseconds: remote - user [time] "METHOD URI PROTO" status size "referrer" "agent" "id" Nms */
const ACCESS = /^(\S+) - (\S+) \[(\d{2}\/\w{3}\/\d{4}:\d{2}:\d{2}:\d{2} [+-]\d{4})\] "(\S+) (\S+) (HTTP\/[\d.]+)" (\d{3}) (\d+) "([^"]*)" "([^"]*)" "([^"]*)" (\d+\.\d)ms$/;
/** A git operation: remote - user [time] "TRANSPORT command repo" result "id" Nms */
const GIT_OP = /^(\S+) - (\S+) \[[^\]]+\] "(HTTP|SSH) (\S+) (\S+)" (exit=\d+|signal=\w+|aborted|refused="[^"]*"|error="[^"]*") "([^"]*)" (\d+\.\d)ms$/;

/** The lines of `text` that match `re`, as their matches. */
function matching(text: string, re: RegExp): RegExpExecArray[] {
  return text.split('\n').map((l) => re.exec(l)).filter((m): m is RegExpExecArray => m !== null);
}

describe('access log', () => {
  describe('on the console, as text (the default)', () => {
    let w: World;
    let alice: TestUser;
    let home: string;
    let tmp: string;
    let key: SshKeyFile;

    before(async () => {
      w = await startWorld({ env: { FORGE__LOG__LEVEL: 'Info' } });
      alice = await w.user();
      await apiRepo(w, alice, 'logged', { auto_init: true, private: true });
      key = sshKeyFile();
      expect((await w.raw('POST', '/user/keys', { title: 'laptop', key: key.pub }, { token: alice.token })).status).to.equal(201);
      home = gitHome();
      tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'forge-access-log-'));
    });
    after(async () => { await w?.stop(); });

    it('writes an API call in Gitea\'s shape, with the token\'s user, the request id of the answer and the time taken', async () => {
      const res = await w.raw('GET', '/user?fields=1', undefined, { token: alice.token, headers: { 'User-Agent': 'access-test/1.0', Referer: 'https://example.com/x' } });
      expect(res.status).to.equal(200);
      const id = res.headers.get('x-request-id')!;
      expect(id).to.match(/^[0-9a-f-]{36}$/);
      let line: RegExpExecArray | undefined;
      await waitFor('the access line', async () => !!(line = matching(w.server.output, ACCESS).find((m) => m[11] === id)));
      const [, remote, user, , method, uri, proto, status, size, referrer, agent] = line!;
      expect({ remote, user, method, uri, proto, status, referrer, agent }).to.deep.equal({
        remote: '127.0.0.1', user: alice.name, method: 'GET', uri: '/api/v1/user?fields=1', proto: 'HTTP/1.1', status: '200',
        referrer: 'https://example.com/x', agent: 'access-test/1.0',
      });
      expect(Number(size)).to.equal(Buffer.byteLength(res.text));
    });

    it('names no user for an anonymous call, keeps a client\'s request id, and cannot be given a forged field', async () => {
      const res = await w.raw('GET', '/repos/nobody/nothing', undefined, { headers: { 'X-Request-Id': 'client-id-1', 'User-Agent': 'evil" 200 1 "x' } });
      expect(res.status).to.equal(404);
      let line: RegExpExecArray | undefined;
      await waitFor('the access line', async () => !!(line = matching(w.server.output, ACCESS).find((m) => m[11] === 'client-id-1')));
      expect(line![2]).to.equal('-');
      expect(line![7]).to.equal('404');
      expect(line![10]).to.equal('evil\\x22 200 1 \\x22x');
    });

    it('writes a clone over HTTP as a git operation, with its user, and its requests as access lines', async () => {
      const url = `http://${alice.name}:${alice.token}@${new URL(w.server.url).host}/${alice.name}/logged.git`;
      const r = await git(['clone', '-q', url, path.join(tmp, 'http')], { home });
      expect(r.code, r.stderr).to.equal(0);
      const repo = `${alice.name}/logged`;
      let op: RegExpExecArray | undefined;
      await waitFor('the git line', async () => !!(op = matching(w.server.output, GIT_OP).find((m) => m[3] === 'HTTP' && m[5] === repo && m[4] === 'git-upload-pack')));
      expect(op![2]).to.equal(alice.name);
      expect(op![6]).to.equal('exit=0');
      // the same request id as the POST's access line
      expect(matching(w.server.output, ACCESS).some((m) => m[11] === op![7] && m[4] === 'POST' && m[5] === `/${repo}.git/git-upload-pack`)).to.equal(true);
    });

    it('writes a clone over SSH, and a refused SSH command with its reason', async () => {
      const env = { GIT_SSH_COMMAND: gitSshCommand(w.server.sshPort, key) };
      const ok = await git(['clone', '-q', `ssh://git@127.0.0.1:${w.server.sshPort}/${alice.name}/logged.git`, path.join(tmp, 'ssh')], { home, env });
      expect(ok.code, ok.stderr).to.equal(0);
      const refused = await git(['clone', '-q', `ssh://git@127.0.0.1:${w.server.sshPort}/${alice.name}/missing.git`, path.join(tmp, 'none')], { home, env });
      expect(refused.code).to.not.equal(0);
      let clone: RegExpExecArray | undefined;
      let refusal: RegExpExecArray | undefined;
      await waitFor('the SSH lines', async () => {
        const ops = matching(w.server.output, GIT_OP).filter((m) => m[3] === 'SSH' && m[4] === 'git-upload-pack');
        clone = ops.find((m) => m[5] === `${alice.name}/logged`);
        refusal = ops.find((m) => m[5] === `${alice.name}/missing`);
        return !!clone && !!refusal;
      });
      expect([clone![1], clone![2], clone![6]]).to.deep.equal(['127.0.0.1', alice.name, 'exit=0']);
      expect(refusal![2]).to.equal(alice.name);
      expect(refusal![6]).to.equal(`refused="repository does not exist [owner: ${alice.name}, name: missing]"`);
    });
  });

  describe('in files (MODE = file)', () => {
    let w: World;
    let alice: TestUser;

    before(async () => {
      w = await startWorld({ env: { FORGE__LOG__LEVEL: 'info', FORGE__LOG__MODE: 'file' } });
      alice = await w.user();
    });
    after(async () => { await w?.stop(); });

    it('appends access lines to ROOT_PATH/access.log (default APP_DATA_PATH/log), not to the console, which keeps the ready line', async () => {
      const res = await w.raw('GET', '/user', undefined, { token: alice.token });
      expect(res.status).to.equal(200);
      const id = res.headers.get('x-request-id')!;
      const file = path.join(w.server.dataDir, 'log', 'access.log');
      let line: RegExpExecArray | undefined;
      await waitFor('the line in access.log', async () => fs.existsSync(file) && !!(line = matching(fs.readFileSync(file, 'utf8'), ACCESS).find((m) => m[11] === id)));
      expect([line![2], line![4], line![5], line![7]]).to.deep.equal([alice.name, 'GET', '/api/v1/user', '200']);
      expect(w.server.output).to.not.include(id);
      expect(w.server.output).to.include('forge is listening');
      expect(fs.readFileSync(path.join(w.server.dataDir, 'log', 'forge.log'), 'utf8')).to.include('forge is listening');
    });
  });

  describe('as JSON (FORMAT = json)', () => {
    let w: World;
    let alice: TestUser;

    before(async () => {
      w = await startWorld({ env: { FORGE__LOG__LEVEL: 'info', FORGE__LOG__FORMAT: 'json' } });
      alice = await w.user();
    });
    after(async () => { await w?.stop(); });

    it('writes one JSON object per request with the same facts', async () => {
      const res = await w.raw('GET', '/user', undefined, { token: alice.token, headers: { 'User-Agent': 'json-test' } });
      const id = res.headers.get('x-request-id')!;
      let entry: Record<string, unknown> | undefined;
      await waitFor('the JSON line', async () => {
        entry = w.server.output.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>)
          .find((e) => e.type === 'access' && e.request_id === id);
        return !!entry;
      });
      const { time, duration_ms: duration, pid, queries, ...facts } = entry!;
      expect(facts).to.deep.equal({
        level: 'info', type: 'access', remote_addr: '127.0.0.1', user: alice.name, method: 'GET', uri: '/api/v1/user', proto: 'HTTP/1.1',
        status: 200, size: Buffer.byteLength(res.text), referrer: '', user_agent: 'json-test', request_id: id,
      });
      expect(new Date(time as string).toISOString()).to.equal(time);
      expect(duration).to.be.a('number');
      expect(pid).to.be.a('number');
      // the statements the request sent to the database (none when its reads were cached)
      expect(queries).to.be.a('number');
    });
  });
});
