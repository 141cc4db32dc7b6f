/** Packagist's update request (Gitea's services/webhook/packagist.go): the package's URL on a push, an empty URL on anything else. */
import type { Convertor } from './text';

/** A Packagist hook's meta. */
export interface PackagistMeta { username: string; api_token: string; package_url: string }

/** Packagist's body. */
export interface PackagistBody { repository: { url: string } }

/** The Packagist convertor of a hook's meta. */
export function packagist(meta: PackagistMeta): Convertor<PackagistBody> {
  const none = (): PackagistBody => ({ repository: { url: '' } });
  return {
    push: () => ({ repository: { url: meta.package_url } }),
    create: none, delete: none, fork: none, issue: none, issueComment: none, pullRequest: none, review: none, repository: none, release: none,
    wiki: none, pkg: none, status: none, workflowJob: none,
  };
}
