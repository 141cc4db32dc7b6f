/** Who is calling, and with what: the input of every permission decision. */
import type { UserModel } from '../../models/user.model';
import type { ScopeSet } from './scope';

/** The caller of a request. */
export interface Principal {
  /** The acting user (after sudo); null when anonymous. */
  user: UserModel | null;
  /** The token's scopes; null when the caller used a password (full access). */
  scopes: ScopeSet | null;
  tokenId: number | null;
  method: 'anonymous' | 'token' | 'basic-password' | 'basic-token' | 'ssh-key' | 'deploy-key' | 'lfs-token' | 'session';
  /** For a deploy key: the one repository it opens and its mode. */
  deployKey?: { id: number; repoId: number; mode: number };
  /** For an OAuth2 access token: the grant it was issued under (its scopes are in `scopes`). */
  oauth2Grant?: number;
  /** For an Actions task's token (the `gitea-actions` user): the one repository it opens, read-only for a fork's pull request. */
  actionsTask?: { id: number; repoId: number; readOnly: boolean };
}

/** The anonymous caller. */
export const ANONYMOUS: Principal = { user: null, scopes: null, tokenId: null, method: 'anonymous' };

/** A user acting with their full rights (a permission question asked about them, not by them). */
export function asUser(user: UserModel): Principal {
  return { user, scopes: null, tokenId: null, method: 'basic-password' };
}
