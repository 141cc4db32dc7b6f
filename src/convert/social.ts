/** Watch, collaborator-permission and topic rows -> API objects. */
import type { RepoCollaboratorPermission, TopicResponse, WatchInfo } from '../api/social';
import type { RepositoryModel } from '../models/repository.model';
import type { TopicModel } from '../models/topic.model';
import type { UserModel } from '../models/user.model';
import { ACCESS_MODE_NAMES, type AccessMode } from '../models/perm';
import { toUser, type Viewer } from './user';
import { isoTime } from './time';

/** The subscription answer for a watched repository owned by `ownerName`. */
export function toWatchInfo(r: RepositoryModel, ownerName: string, rootUrl: string): WatchInfo {
  const repoUrl = `${rootUrl}api/v1/repos/${ownerName}/${r.name}`;
  // why: Gitea reports the repository's creation time here, not the watch's.
  return { subscribed: true, ignored: false, reason: null, created_at: isoTime(r.createdAt), url: `${repoUrl}/subscription`, repository_url: repoUrl };
}

/** A user's access mode on a repository. */
export function toCollaboratorPermission(u: UserModel, mode: AccessMode, viewer: Viewer | null, rootUrl: string): RepoCollaboratorPermission {
  const name = ACCESS_MODE_NAMES[mode];
  return { permission: name, role_name: name, user: toUser(u, viewer, rootUrl) };
}

/** A topic with its repository count. */
export function toTopic(t: TopicModel): TopicResponse {
  return { id: t.id, topic_name: t.name, repo_count: t.repoCount, created: isoTime(t.createdAt), updated: isoTime(t.updatedAt) };
}
