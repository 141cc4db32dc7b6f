/** SSH and GPG key shapes (structs.PublicKey, structs.GPGKey and their options). */
import type { User } from './user';

/** An SSH public key. `user`, `key_type`, `read_only` and `last_used_at` are shown to the owner and site admins only. */
export interface PublicKey {
  id: number;
  key: string;
  url?: string;
  title?: string;
  fingerprint?: string;
  created_at: string;
  /** When the SSH server last accepted this key (null: never); owner and admins only. */
  last_used_at?: string | null;
  user?: User;
  /** Omitted when false, as Gitea's omitempty does. */
  read_only?: boolean;
  /** "user", "deploy" or "unknown". */
  key_type?: string;
}

/** Options to add an SSH key. */
export interface CreateKeyOption {
  /** Title of the key to add */
  title: string;
  /** An SSH public key line (`ssh-ed25519 AAAA... comment`) */
  key: string;
  /** Only meaningful for deploy keys */
  read_only?: boolean;
}

/** An email in a GPG key's user IDs; `verified` is true when it is an activated address of the key's owner. */
export interface GPGKeyEmail {
  email: string;
  verified: boolean;
}

/** A GPG key; subkeys carry `emails: null` and `subkeys: null`. */
export interface GPGKey {
  id: number;
  primary_key_id: string;
  key_id: string;
  public_key: string;
  emails: GPGKeyEmail[] | null;
  subkeys: GPGKey[] | null;
  can_sign: boolean;
  can_encrypt_comms: boolean;
  can_encrypt_storage: boolean;
  can_certify: boolean;
  verified: boolean;
  created_at: string;
  expires_at: string;
}

/** Options to add a GPG key. */
export interface CreateGPGKeyOption {
  /** An armored GPG public key */
  armored_public_key: string;
  /** A detached armored signature of the verification token (GET /user/gpg_key_token) */
  armored_signature?: string;
}

/** Options to verify a GPG key with a signed token. */
export interface VerifyGPGKeyOption {
  /** The id of the key to verify */
  key_id: string;
  /** A detached armored signature of the verification token */
  armored_signature: string;
}
