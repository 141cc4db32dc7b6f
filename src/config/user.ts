/** [user] and [ssh.minimum_key_sizes] (Gitea's ssh.go): the keys users may add. */
import { section } from './spec';

/** [user]: whether users may add SSH and GPG keys. */
export interface UserSettings { enableSshKeys: boolean; enableGpgKeys: boolean }

/** [ssh.minimum_key_sizes]: bits per key type (-1 refuses the type). */
export interface SshMinimumKeySizesSettings { ed25519: number; ecdsa: number; rsa: number }

/** [ssh.minimum_key_sizes]. */
export const sshMinimumKeySizesSection = section<SshMinimumKeySizesSettings>('ssh.minimum_key_sizes', {
  ED25519: { kind: 'int', def: '256', min: -1, max: 65536 },
  ECDSA: { kind: 'int', def: '256', min: -1, max: 65536 },
  RSA: { kind: 'int', def: '2047', min: -1, max: 65536 },
});

/** [user]. */
export const userSection = section<UserSettings>('user', { ENABLE_SSH_KEYS: { kind: 'bool', def: 'true' }, ENABLE_GPG_KEYS: { kind: 'bool', def: 'true' } });
