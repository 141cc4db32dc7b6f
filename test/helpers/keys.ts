/**
 * Real keys for tests: `ssh-keygen` and `gpg` (in a throw-away GNUPGHOME) run as child processes.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** A fresh temporary directory. */
export function tempDir(prefix = 'forge-keys-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** An SSH key pair made by ssh-keygen. */
export interface SshPair { pub: string; priv: string; fingerprint: string }

/** Generate an SSH key (`type`: ed25519, ecdsa, rsa; `bits` for ecdsa/rsa). */
export function sshKeygen(type: string, bits?: number, comment = 'test@forge'): SshPair {
  const dir = tempDir();
  const file = path.join(dir, 'key');
  execFileSync('ssh-keygen', ['-q', '-t', type, ...(bits ? ['-b', String(bits)] : []), '-N', '', '-C', comment, '-f', file]);
  const fp = execFileSync('ssh-keygen', ['-l', '-E', 'sha256', '-f', `${file}.pub`]).toString().split(/\s+/)[1];
  return { pub: fs.readFileSync(`${file}.pub`, 'utf8'), priv: fs.readFileSync(file, 'utf8'), fingerprint: fp };
}

/** A GPG home with helpers to make keys, export them and sign text. */
export class GpgHome {
  readonly home = tempDir('forge-gpg-');
  constructor() { fs.chmodSync(this.home, 0o700); }

  private gpg(args: string[], input?: string): string {
    return execFileSync('gpg', ['--batch', '--quiet', '--no-tty', '--pinentry-mode', 'loopback', '--passphrase', '', ...args], {
      env: { ...process.env, GNUPGHOME: this.home }, input, stdio: ['pipe', 'pipe', 'pipe'],
    }).toString();
  }

  /** An ed25519 signing key for `uid` ("Name <email>") with a cv25519 encryption subkey; returns its fingerprint. */
  generate(uid: string, extraUids: string[] = []): string {
    this.gpg(['--quick-gen-key', uid, 'ed25519', 'sign', '0']);
    const fpr = this.fingerprint(uid);
    this.gpg(['--quick-add-key', fpr, 'cv25519', 'encr', '1y']);
    for (const u of extraUids) this.gpg(['--quick-add-uid', fpr, u]);
    return fpr;
  }

  /** Fingerprint of the key matching `who`. */
  fingerprint(who: string): string {
    const out = this.gpg(['--with-colons', '--list-keys', who]);
    return out.split('\n').find((l) => l.startsWith('fpr:'))!.split(':')[9];
  }

  /** The long key id (16 hex) of `fpr` and of its subkeys. */
  keyIds(fpr: string): { primary: string; subkeys: string[] } {
    const lines = this.gpg(['--with-colons', '--list-keys', fpr]).split('\n');
    const primary = lines.find((l) => l.startsWith('pub:'))!.split(':')[4];
    return { primary, subkeys: lines.filter((l) => l.startsWith('sub:')).map((l) => l.split(':')[4]) };
  }

  /** Armored public key. */
  exportPublic(fpr: string): string { return this.gpg(['--armor', '--export', fpr]); }
  /** Armored secret key. */
  exportSecret(fpr: string): string { return this.gpg(['--armor', '--export-secret-keys', fpr]); }
  /** Detached armored signature of `text` by `fpr`. */
  sign(fpr: string, text: string): string { return this.gpg(['--armor', '--local-user', fpr, '--detach-sign'], text); }
}
