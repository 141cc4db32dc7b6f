/** Deploy key shapes (structs.DeployKey). */
import type { Repository } from './repo';

/** A deploy key of a repository. */
export interface DeployKey {
  id: number;
  /** The shared public key row this deploy key uses. */
  key_id: number;
  key: string;
  /** `<ROOT_URL>api/v1/repos/{owner}/{repo}/keys/{id}` */
  url: string;
  title: string;
  fingerprint: string;
  created_at: string;
  read_only: boolean;
  /** Shown to site admins and to the repository's owner. */
  repository?: Repository;
}
