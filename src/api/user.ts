/**
 * A user, as Gitea's API shows it (structs.User).
 */
export interface User {
  /** the user's id */
  id: number;
  /** login of the user, same as `username` */
  login: string;
  /** identifier of the user, provided by the external authenticator (if configured) */
  login_name: string;
  /** The ID of the user's Authentication Source */
  source_id: number;
  full_name: string;
  email: string;
  avatar_url: string;
  /** URL to the user's profile page */
  html_url: string;
  /** User locale */
  language: string;
  is_admin: boolean;
  last_login: string;
  created: string;
  /** Is user restricted */
  restricted: boolean;
  /** Is user active */
  active: boolean;
  /** Is user login prohibited */
  prohibit_login: boolean;
  location: string;
  website: string;
  description: string;
  /** User visibility level option: public, limited, private */
  visibility: string;
  followers_count: number;
  following_count: number;
  starred_repos_count: number;
  /** the user's username */
  username: string;
}

/** The answer of `GET /users/search`: Gitea wraps the list in `{ok, data}`. */
export interface UserSearchResults {
  ok: boolean;
  data: User[];
}

/** UpdateUserAvatarUserOption options when updating the user avatar (also an organization's). */
export interface UpdateUserAvatarOption {
  /** image must be base64 encoded */
  image?: string;
}

/** UpdateRepoAvatarUserOption options when updating the repo avatar. */
export interface UpdateRepoAvatarOption {
  /** image must be base64 encoded */
  image?: string;
}

/** UserHeatmapData represents the data needed to create a heatmap. */
export interface UserHeatmapData {
  /** Unix seconds, the start of a 15-minute bucket. */
  timestamp: number;
  contributions: number;
}
