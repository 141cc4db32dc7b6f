/** repository rows -> API Repository (the fields the forge fills today). */
import type { Repository } from '../api/repo';
import type { RepositoryModel } from '../models/repository.model';
import type { UserModel } from '../models/user.model';
import { toUser, type Viewer } from './user';
import { isoTime } from './time';

/** Convert a repository owned by `owner`. */
export function toRepository(r: RepositoryModel, owner: UserModel, viewer: Viewer | null, rootUrl: string): Repository {
  const full = `${owner.name}/${r.name}`;
  return {
    id: r.id,
    owner: toUser(owner, viewer, rootUrl),
    name: r.name,
    full_name: full,
    description: r.description,
    empty: r.isEmpty,
    private: r.isPrivate,
    fork: r.isFork,
    template: r.isTemplate,
    mirror: r.isMirror,
    archived: r.isArchived,
    size: Number(r.size),
    html_url: `${rootUrl}${full}`,
    url: `${rootUrl}api/v1/repos/${full}`,
    clone_url: `${rootUrl}${full}.git`,
    website: r.website,
    stars_count: r.numStars,
    forks_count: r.numForks,
    watchers_count: r.numWatches,
    default_branch: r.defaultBranch,
    object_format_name: r.objectFormatName,
    created_at: isoTime(r.createdAt),
    updated_at: isoTime(r.updatedAt),
  };
}
