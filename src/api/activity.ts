/** Activity feeds as Gitea's API shows them (structs.Activity). */
import type { Comment } from './issue';
import type { Repository } from './repo';
import type { User } from './user';

/** One event of a feed. */
export interface Activity {
  id: number;
  /** The feed's owner (a user, an organization for its and its teams' feeds; the actor in a repository's feed). */
  user_id: number;
  /** create_repo, commit_repo, create_issue, comment_issue, merge_pull_request, publish_release, ... */
  op_type: string;
  act_user_id: number;
  act_user: User | null;
  repo_id: number;
  repo: Repository | null;
  comment_id: number;
  comment: Comment | null;
  /** The full ref of a push, tag or release. */
  ref_name: string;
  is_private: boolean;
  /** `index|text` for issue events, the commits as JSON for pushes, a title or a former name. */
  content: string;
  created: string;
}
