/**
 * The SSH server's host keys ([server] SSH_SERVER_HOST_KEYS, in the data dir by default): read
 * when present, generated on first start otherwise (mode 0600, with a `.pub` beside each), so the
 * host fingerprint stays the same across restarts and across the nodes sharing the data dir.
 * Several workers start at once: each writes a complete key to a private temp file and hard-links
 * it into place, which fails if another got there first; the loser throws its key away and reads
 * the winner's, so nobody ever sees a half-written or replaced key.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { utils } from 'ssh2';

const run = promisify(execFile);

/** Host key families we generate. */
export type HostKeyType = 'ed25519' | 'ecdsa' | 'rsa';

/** A loaded host key. */
export interface HostKey {
  file: string;
  /** The private key as stored (OpenSSH format). */
  pem: Buffer;
  /** e.g. `ssh-ed25519`. */
  type: string;
  /** `SHA256:...` as ssh-keygen -l prints it. */
  fingerprint: string;
  /** The `.pub` line. */
  publicLine: string;
}

/** The key type a file name asks for: `...ed25519`, `...ecdsa`, anything else RSA (as Gitea's gitea.rsa). */
export function keyTypeFor(file: string): { type: HostKeyType; bits?: number } {
  const base = path.basename(file).toLowerCase();
  if (base.includes('ed25519')) return { type: 'ed25519' };
  if (base.includes('ecdsa')) return { type: 'ecdsa', bits: 256 };
  return { type: 'rsa', bits: 3072 };
}

/**
 * A new key pair made by ssh-keygen in a private temporary directory.
 * why: ssh2's own generator sometimes writes an ed25519 public key without its leading zero byte,
 * a key ssh2 then refuses to read; ssh-keygen (OpenSSH, installed with the server) writes them right.
 */
async function generate(file: string): Promise<{ private: string; public: string }> {
  const { type, bits } = keyTypeFor(file);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'forge-hostkey-'));
  try {
    const out = path.join(dir, 'key');
    await run('ssh-keygen', ['-q', '-t', type, ...(bits ? ['-b', String(bits)] : []), '-N', '', '-C', 'forge host key', '-f', out]);
    return { private: fs.readFileSync(out, 'utf8'), public: fs.readFileSync(`${out}.pub`, 'utf8') };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function tempName(file: string): string {
  return `${file}.${process.pid}.${crypto.randomBytes(6).toString('hex')}.tmp`;
}

/** Write `data` at `file` only if nothing is there yet; false when another process won. */
function linkInto(file: string, data: string | Buffer, mode: number): boolean {
  const tmp = tempName(file);
  fs.writeFileSync(tmp, data, { mode, flag: 'wx' });
  try {
    fs.linkSync(tmp, file);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}

function load(file: string): HostKey {
  const pem = fs.readFileSync(file);
  const parsed = utils.parseKey(pem);
  const key = Array.isArray(parsed) ? parsed[0] : parsed;
  if (!key || key instanceof Error || !key.isPrivateKey()) {
    throw new Error(`SSH host key ${file} is not an unencrypted private key${key instanceof Error ? `: ${key.message}` : ''}`);
  }
  const blob = key.getPublicSSH();
  const fingerprint = `SHA256:${crypto.createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
  return { file, pem, type: key.type, fingerprint, publicLine: `${key.type} ${blob.toString('base64')}` };
}

/** Read one host key, generating it first when the file does not exist. */
export async function loadOrCreateHostKey(file: string): Promise<HostKey> {
  if (!fs.existsSync(file)) {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    const pair = await generate(file);
    linkInto(file, pair.private, 0o600);
  }
  const key = load(file);
  // why: the .pub is for administrators (ssh-keygen -lf); rebuilt from the private key when missing.
  if (!fs.existsSync(`${file}.pub`)) linkInto(`${file}.pub`, `${key.publicLine} forge host key\n`, 0o644);
  return key;
}

/** Read (or create) every configured host key, in order. */
export async function loadHostKeys(files: string[]): Promise<HostKey[]> {
  if (files.length === 0) throw new Error('[server] SSH_SERVER_HOST_KEYS names no key');
  const out: HostKey[] = [];
  for (const f of files) out.push(await loadOrCreateHostKey(f));
  return out;
}
