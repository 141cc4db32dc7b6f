/** Feed events -> API Activity. */
import type { Activity } from '../api/activity';
import { opTypeName, type ActionModel } from '../models/action.model';
import type { CommentModel } from '../models/comment.model';
import type { IssueModel } from '../models/issue.model';
import type { UserModel } from '../models/user.model';
import { toComment, unixTime } from './issue';
import { toRepositoryView, type RepoViewData } from './repo';
import { toUser, type Viewer } from './user';

/** An event with what its JSON shows besides its row. */
export interface ActivityData {
  row: ActionModel; userId: number; actUser: UserModel | null; repo: RepoViewData | null;
  comment: { row: CommentModel; issue: IssueModel } | null;
}

/** Convert an event; as Gitea, its comment without poster or attachments, and comment_id 0 once the comment is gone. */
export function toActivity(a: ActivityData, viewer: Viewer | null, rootUrl: string): Activity {
  const repo = a.repo;
  const comment = a.comment && repo
    ? toComment(a.comment.row, null, a.comment.issue, { rootUrl, repoId: repo.repo.id, owner: repo.owner.name, repo: repo.repo.name }, viewer, [])
    : null;
  return {
    id: Number(a.row.id), user_id: a.userId, op_type: opTypeName(a.row.opType), act_user_id: a.row.actUserId,
    act_user: a.actUser ? toUser(a.actUser, viewer, rootUrl) : null, repo_id: a.row.repoId, repo: repo ? toRepositoryView(repo, viewer, rootUrl) : null,
    comment_id: comment ? comment.id : 0, comment, ref_name: a.row.refName, is_private: Boolean(a.row.isPrivate), content: a.row.content,
    created: unixTime(Number(a.row.createdUnix)),
  };
}
