/**
 * The public half of the instance's OpenPGP signing key, as git's gpg sees it: `gpg --export
 * --armor` of `[repository.signing] SIGNING_KEY`, run with the environment git's children get
 * (the same HOME, so the same keyring the server signs with).
 */
import { execFile } from 'node:child_process';
import { gitEnv } from './run';

/** The armored public key of `keyId` in git's keyring ('' when the keyring has no such key). */
export function exportArmoredKey(keyId: string): Promise<string> {
  return new Promise((resolve, reject) => {
    // why: argv, no shell; `--` keeps a key id that starts with a dash from being read as an option.
    execFile('gpg', ['--batch', '--no-tty', '--armor', '--export', '--', keyId], { env: gitEnv(), timeout: 10_000, maxBuffer: 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`gpg --export ${keyId} failed: ${String(stderr).trim() || err.message}`));
      else resolve(String(stdout));
    });
  });
}
