/** deploy_key rows -> API DeployKey. */
import type { DeployKey } from '../api/deploy-key';
import type { Repository } from '../api/repo';
import type { DeployKeyModel } from '../models/deploy-key.model';
import { AccessMode } from '../models/perm';
import { isoTime } from './time';

/** The API link prefix of a repository's deploy keys (Gitea's composeDeployKeysAPILink). */
export function deployKeysLink(rootUrl: string, owner: string, repo: string): string {
  return `${rootUrl}api/v1/repos/${encodeURIComponent(owner)}/${encodeURIComponent(repo)}/keys/`;
}

/** Convert a deploy key with its key content; `repository` only when given (owner and site admins). */
export function toDeployKey(dk: DeployKeyModel, content: string, apiLink: string, repository?: Repository): DeployKey {
  return {
    id: dk.id,
    key_id: dk.keyId,
    key: content,
    url: `${apiLink}${dk.id}`,
    title: dk.name,
    fingerprint: dk.fingerprint,
    created_at: isoTime(dk.createdAt),
    read_only: dk.mode === AccessMode.Read,
    ...(repository ? { repository } : {}),
  };
}
