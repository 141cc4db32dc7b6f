/**
 * The real OpenSSH client against a test server: key files made by ssh-keygen, the ssh command
 * line git uses (GIT_SSH_COMMAND), and a runner that never throws (look at `code`).
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { tempDir } from './keys';

/** A private key file (0600) with its public line and fingerprint. */
export interface SshKeyFile { file: string; pub: string; fingerprint: string }

/** Generate a key with ssh-keygen (`type`: ed25519, ecdsa, rsa). */
export function sshKeyFile(type = 'ed25519', bits?: number): SshKeyFile {
  const file = path.join(tempDir('forge-ssh-key-'), 'id');
  execFileSync('ssh-keygen', ['-q', '-t', type, ...(bits ? ['-b', String(bits)] : []), '-N', '', '-C', `${type}@test`, '-f', file]);
  const fingerprint = execFileSync('ssh-keygen', ['-l', '-E', 'sha256', '-f', `${file}.pub`]).toString().split(/\s+/)[1];
  return { file, pub: fs.readFileSync(`${file}.pub`, 'utf8').trim(), fingerprint };
}

/** The options every test connection uses: this key only, no host key checks, never prompt. */
export function sshOptions(port: number, key: SshKeyFile): string[] {
  return ['-i', key.file, '-p', String(port), '-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null',
    '-o', 'IdentitiesOnly=yes', '-o', 'BatchMode=yes', '-o', 'LogLevel=ERROR', '-o', 'ConnectTimeout=20'];
}

/** GIT_SSH_COMMAND for `key`. */
export function gitSshCommand(port: number, key: SshKeyFile): string {
  return ['ssh', ...sshOptions(port, key)].join(' ');
}

/** What an ssh run produced. */
export interface SshResult { code: number; stdout: string; stderr: string }

/**
 * Run `ssh [extra] [options] git@127.0.0.1 [remote...]` (stdin closed unless `input` is given) and collect
 * its output; killed after `timeoutMs`.
 */
export function runSsh(port: number, key: SshKeyFile, remote: string[], opts: { extra?: string[]; user?: string; input?: string; timeoutMs?: number } = {}): Promise<SshResult> {
  // why: ssh keeps the first value of each option, so `extra` comes first and may override the defaults.
  const args = [...(opts.extra ?? []), ...sshOptions(port, key), `${opts.user ?? 'git'}@127.0.0.1`, ...remote];
  return new Promise((resolve) => {
    const child = spawn('ssh', args, { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, LANG: 'C' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => { stdout += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 30_000);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(opts.input ?? '');
  });
}
