/**
 * Hostile input over SSH with the real OpenSSH client: shell commands and shell syntax, option-like,
 * traversing and absolute paths, extra arguments, bad quoting, unknown verbs and LFS operations,
 * `env` requests other than GIT_PROTOCOL, pty, sftp and other subsystems, and TCP forwarding both
 * ways. Each is refused (non-zero exit, the reason on stderr) and nothing changes on the server.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { expect } from 'chai';
import { Client, utils, type AnyAuthMethod, type ParsedKey } from 'ssh2';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { freePort } from '../helpers/server';
import { git, gitHome, serverRepoDir, type GitResult } from '../helpers/repo-fixture';
import { gitSshCommand, runSsh, sshKeyFile, sshOptions, type SshKeyFile } from '../helpers/ssh';

describe('SSH hostile input', () => {
  let w: World;
  let alice: TestUser;
  let key: SshKeyFile;
  let home: string;
  let tmp: string;
  let marker: string;

  const port = () => w.server.sshPort;
  const ok = (r: GitResult) => { expect(r.code, r.stderr).to.equal(0); return r; };
  const g = (args: string[], cwd?: string, env: Record<string, string> = {}) =>
    git(args, { cwd, home, env: { GIT_SSH_COMMAND: gitSshCommand(port(), key), ...env } });

  /** Every ref of every repository and the layout of the storage root, to prove nothing changed. */
  const snapshot = async () => {
    const root = path.join(w.server.dataDir, 'repositories');
    const out: Record<string, string> = {};
    for (const owner of fs.readdirSync(root).sort()) {
      for (const repo of fs.readdirSync(path.join(root, owner)).sort()) {
        const r = ok(await git(['--git-dir', path.join(root, owner, repo), 'for-each-ref', '--format=%(refname) %(objectname)'], { home }));
        out[`${owner}/${repo}`] = r.stdout;
      }
    }
    return out;
  };

  before(async () => {
    w = await startWorld();
    alice = await w.user('alice');
    await w.user('bob');
    key = sshKeyFile('ed25519');
    expect((await alice.api.user.userCurrentPostKey({ title: 'k', key: key.pub })).status).to.equal(201);
    for (const [name, priv] of [['repo', false], ['secret', true]] as const) {
      expect((await alice.api.user.createCurrentUserRepo({ name, private: priv, auto_init: true })).status).to.equal(201);
    }
    home = gitHome();
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'forge-ssh-hostile-'));
    marker = path.join(tmp, 'pwned');
  });
  after(async () => { await w?.stop(); });

  const refusedCommands: [string, RegExp][] = [
    ['sh', /^Forge: Unknown git command: sh$/],
    ['bash -i', /^Forge: Unknown git command: bash$/],
    ['/bin/sh -c id', /^Forge: Unknown git command: \/bin\/sh$/],
    [`git-upload-pack 'alice/repo'; touch MARK`, /^Forge: Error parsing arguments: unexpected ";" after a quoted argument$/],
    ['git-upload-pack alice/repo;id', /^Forge: Error parsing arguments: character ";" is not allowed$/],
    ['git-upload-pack `touch MARK`', /^Forge: Error parsing arguments: character "`" is not allowed$/],
    ['git-upload-pack $(touch MARK)', /^Forge: Error parsing arguments: character "\$" is not allowed$/],
    ['git-upload-pack alice/repo | touch MARK', /^Forge: Error parsing arguments: character "\|" is not allowed$/],
    ["git-upload-pack '../x'", /^Forge: Invalid repository path: \.\.\/x$/],
    ["git-upload-pack '../../etc'", /^Forge: Invalid repository path/],
    ["git-upload-pack '-x'", /^Forge: Invalid repository path: -x$/],
    ["git-upload-pack '--help'", /^Forge: Invalid repository path: --help$/],
    ["git-receive-pack '--receive-pack=touch MARK'", /^Forge: Error parsing arguments: character "=" is not allowed$/],
    ["git-upload-pack 'alice/repo' 'alice/secret'", /^Forge: Too many arguments$/],
    ["git-upload-pack 'alice/repo' --upload-pack=id", /^Forge: Error parsing arguments: character "=" is not allowed$/],
    ["git-receive-pack 'alice/repo' extra", /^Forge: Too many arguments$/],
    ['git-upload-pack', /^Forge: Too few arguments$/],
    ["git-upload-pack 'alice/repo", /^Forge: Error parsing arguments: unterminated quote$/],
    ['git-upload-pack "alice/repo"', /^Forge: Error parsing arguments: character "\\"" is not allowed$/],
    ["git-upload-pack 'alice/repo'\\''x'", /^Forge: Error parsing arguments/],
    ["git-receive-pack 'alice/repo.git/../../bob/x.git'", /^Forge: Invalid repository path/],
    ["git-receive-pack 'alice/.git'", /^Forge: Invalid repository path: alice\/\.git$/],
    ["git-receive-pack 'alice/..'", /^Forge: Invalid repository path: alice\/\.\.$/],
    ["git-upload-pack '/home/git/alice/repo.git'", /^Forge: Invalid repository path/],
    ["git-upload-pack '//alice/repo'", /^Forge: Invalid repository path/],
    ["git-upload-pack '/etc/passwd'", /^Forge: repository does not exist \[owner: etc, name: passwd\]$/],
    ["git upload-pack 'alice/repo'", /^Forge: Unknown git command: git$/],
    ["git-lfs-transfer 'alice/repo' upload", /^Forge: Unknown git command: git-lfs-transfer$/],
    ["git-lfs-authenticate 'alice/secret' foo", /^Forge: Unknown LFS operation: foo$/],
    ["git-lfs-authenticate 'alice/secret'", /^Forge: Too few arguments$/],
    ["scp -t /tmp", /^Forge: Unknown git command: scp$/],
    ['rsync --server -e.LsfxC . /tmp', /^Forge: Unknown git command: rsync$/],
  ];

  it('refuses every hostile exec with a one-line reason, exit 1, no output, and changes nothing', async () => {
    const before = await snapshot();
    for (const [raw, want] of refusedCommands) {
      const r = await runSsh(port(), key, [raw.replace(/MARK/g, marker)]);
      expect(r.code, raw).to.equal(1);
      expect(r.stdout, raw).to.equal('');
      expect(r.stderr.endsWith('\n') && r.stderr.split('\n').length === 2, `${raw}: ${r.stderr}`).to.equal(true);
      expect(r.stderr.trim(), raw).to.match(want);
    }
    // why: each command would write the marker under this test's own directory, never a shared path
    // (another program's /tmp/x once failed this test).
    expect(fs.existsSync(marker)).to.equal(false);
    expect(await snapshot()).to.deep.equal(before);
  });

  it('refuses a session that sent an env other than GIT_PROTOCOL; locale variables pass without effect', async () => {
    const before = await snapshot();
    const trace = path.join(tmp, 'trace');
    for (const env of ['LD_PRELOAD=/nonexistent/x.so', 'GIT_CONFIG_COUNT=1', 'GIT_CONFIG_PARAMETERS=x', `GIT_TRACE=${trace}`, 'PATH=/tmp', 'GIT_PROTOCOL=version=2;x']) {
      const name = env.split('=')[0];
      const r = await runSsh(port(), key, ["git-upload-pack 'alice/repo'"], { extra: ['-o', `SetEnv=${env}`] });
      expect(r.code, env).to.equal(1);
      expect(r.stdout, env).to.equal('');
      expect(r.stderr, env).to.equal(name === 'GIT_PROTOCOL' ? 'Forge: Invalid GIT_PROTOCOL value\n' : `Forge: Environment variable ${name} is not accepted (only GIT_PROTOCOL)\n`);
      const clone = await g(['clone', '-q', `ssh://git@127.0.0.1:${port()}/alice/repo.git`, path.join(tmp, `c-${name}`)], undefined,
        { GIT_SSH_COMMAND: `${gitSshCommand(port(), key)} -o 'SetEnv=${env}'` });
      expect(clone.code, env).to.not.equal(0);
      expect(clone.stderr).to.contain('Forge: ');
    }
    expect(fs.existsSync(trace)).to.equal(false);
    // LANG is sent by Debian's default ssh_config (SendEnv LANG LC_*): ignored, the clone works.
    ok(await g(['clone', '-q', `ssh://git@127.0.0.1:${port()}/alice/repo.git`, path.join(tmp, 'c-lang')], undefined,
      { GIT_SSH_COMMAND: `${gitSshCommand(port(), key)} -o SendEnv=LANG -o SendEnv=LC_ALL`, LC_ALL: 'C' }));
    expect(await snapshot()).to.deep.equal(before);
  });

  it('rejects a pty: `ssh -tt` fails with OpenSSH\'s "PTY allocation request failed"', async () => {
    const r = await runSsh(port(), key, [], { extra: ['-tt'] });
    expect(r.code).to.equal(255);
    expect(r.stderr).to.contain('PTY allocation request failed on channel 0');
    expect(r.stdout).to.not.contain('Hi there');
    const withCmd = await runSsh(port(), key, ['sh'], { extra: ['-tt'] });
    expect(withCmd.code).to.equal(255);
    expect(withCmd.stderr).to.contain('PTY allocation request failed');
  });

  it('rejects sftp and any other subsystem', async () => {
    const before = await snapshot();
    const sftp = await new Promise<{ code: number; stderr: string }>((resolve) => {
      const child = spawn('sftp', ['-b', '-', '-P', String(port()), ...sshOptions(port(), key).filter((_, i, a) => a[i] !== '-p' && a[i - 1] !== '-p'), 'git@127.0.0.1'],
        { stdio: ['pipe', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
      child.stdout.resume();
      child.once('close', (code) => resolve({ code: code ?? -1, stderr }));
      child.stdin.end(`put ${marker} /tmp/uploaded\nls /\n`);
    });
    expect(sftp.code).to.not.equal(0);
    expect(sftp.stderr).to.contain('subsystem request failed on channel 0');
    const sub = await runSsh(port(), key, ['netconf'], { extra: ['-s'] });
    expect(sub.code).to.equal(255);
    expect(sub.stderr).to.contain('subsystem request failed on channel 0');
    expect(await snapshot()).to.deep.equal(before);
  });

  it('refuses TCP forwarding: -W and -L are administratively prohibited, -R fails', async () => {
    const stdio = await runSsh(port(), key, [], { extra: ['-o', 'LogLevel=INFO', '-W', `127.0.0.1:${w.server.httpPort}`] });
    expect(stdio.code).to.equal(255);
    expect(stdio.stderr).to.contain('administratively prohibited');

    const localPort = await freePort();
    const fwd = spawn('ssh', ['-o', 'LogLevel=INFO', ...sshOptions(port(), key), '-o', 'ExitOnForwardFailure=yes', '-N', '-L', `${localPort}:127.0.0.1:${w.server.httpPort}`, 'git@127.0.0.1'],
      { stdio: ['ignore', 'ignore', 'pipe'] });
    let fwdErr = '';
    fwd.stderr.on('data', (d: Buffer) => { fwdErr += d.toString(); });
    try {
      // Poll until ssh listens locally; a connection that gets through must be closed without data.
      let received: { connected: boolean; data: string } = { connected: false, data: '' };
      for (let i = 0; i < 300 && !received.connected; i++) {
        received = await new Promise((resolve) => {
          const sock = net.connect(localPort, '127.0.0.1');
          let data = '';
          let connected = false;
          sock.on('connect', () => { connected = true; sock.write('GET /api/v1/version HTTP/1.0\r\n\r\n'); });
          sock.on('data', (d) => { data += d.toString(); });
          sock.on('close', () => resolve({ connected, data }));
          sock.on('error', () => undefined);
        });
        if (!received.connected) await new Promise((r) => setTimeout(r, 100));
      }
      expect(received.connected).to.equal(true);
      expect(received.data).to.equal('');
      for (let i = 0; i < 50 && !fwdErr.includes('administratively prohibited'); i++) await new Promise((r) => setTimeout(r, 100));
      expect(fwdErr).to.contain('administratively prohibited');
    } finally {
      fwd.kill('SIGKILL');
    }

    const remote = await runSsh(port(), key, [], { extra: ['-o', 'ExitOnForwardFailure=yes', '-N', '-R', '0:127.0.0.1:22'] });
    expect(remote.code).to.equal(255);
    expect(remote.stderr).to.contain('remote port forwarding failed');
  });

  it('x11 and agent forwarding requests are rejected; the session itself is just the greeting', async () => {
    const r = await runSsh(port(), key, [], { extra: ['-o', 'ForwardX11=yes', '-o', 'ForwardAgent=yes'] });
    expect(r.code).to.equal(0);
    expect(r.stderr).to.contain('Forge does not provide shell access');
  });

  it('checks possession: a registered public key offered with a forged signature is refused', async () => {
    const login = (forge: boolean) => new Promise<string>((resolve) => {
      const parsed = utils.parseKey(fs.readFileSync(key.file)) as ParsedKey;
      // why: the key is accepted as "known" (PK_OK) first; only the signature proves the private half.
      if (forge) parsed.sign = () => Buffer.alloc(64, 7);
      let tried = false;
      const c = new Client();
      c.on('ready', () => { c.end(); resolve('ready'); });
      c.on('error', (err) => resolve(err.message));
      c.connect({
        host: '127.0.0.1', port: port(), username: 'git', readyTimeout: 20_000,
        authHandler: (_methods, _partial, next) => {
          if (tried) return next(false as unknown as AnyAuthMethod);
          tried = true;
          next({ type: 'publickey', username: 'git', key: parsed });
        },
      });
    });
    expect(await login(true)).to.equal('All configured authentication methods failed');
    expect(await login(false)).to.equal('ready');
  });

  it('refuses a repository path that names another user\'s private repository like a missing one', async () => {
    const bobKey = sshKeyFile('ed25519');
    const bob = await w.raw('POST', '/admin/users/bob/keys', { title: 'b', key: bobKey.pub }, { token: w.admin.token });
    expect(bob.status).to.equal(201);
    const secret = await runSsh(port(), bobKey, ["git-upload-pack 'alice/secret.git'"]);
    const missing = await runSsh(port(), bobKey, ["git-upload-pack 'alice/nothing.git'"]);
    expect([secret.code, secret.stderr]).to.deep.equal([1, 'Forge: repository does not exist [owner: alice, name: secret]\n']);
    expect([missing.code, missing.stderr]).to.deep.equal([1, 'Forge: repository does not exist [owner: alice, name: nothing]\n']);
    expect(fs.existsSync(serverRepoDir(w.server, 'alice', 'nothing'))).to.equal(false);
  });
});
