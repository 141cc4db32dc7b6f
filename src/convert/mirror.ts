/** Push mirrors as Gitea's API shows them. */
import type { PushMirror } from '../api/mirror';
import type { PushMirrorModel } from '../models/push-mirror.model';
import { formatGoDuration } from '../config';
import { isoTime } from './time';

const at = (unix: number) => isoTime(new Date(Number(unix) * 1000));

/** A push mirror of repository `repoName`; `last_update` is the epoch before its first push, as in Gitea. */
export function toPushMirror(m: PushMirrorModel, repoName: string): PushMirror {
  return {
    repo_name: repoName, remote_name: m.remoteName, remote_address: m.remoteAddress, created: at(m.createdUnix), last_update: at(m.lastUpdateUnix),
    last_error: m.lastError, interval: formatGoDuration(Number(m.interval)), sync_on_commit: m.syncOnCommit,
  };
}
