/** Options an administrator gives to create a user (structs.CreateUserOption). */
export interface CreateUserOption {
  source_id?: number;
  login_name?: string;
  /** @maxLength 40 */
  username: string;
  /** @maxLength 100 */
  full_name?: string;
  /** @maxLength 254 */
  email: string;
  /** @maxLength 255 */
  password?: string;
  /** defaults to true */
  must_change_password?: boolean;
  send_notify?: boolean;
  restricted?: boolean;
  /** public, limited or private */
  visibility?: string;
  /** For explicitly setting the user creation timestamp. Useful when users are migrated from other systems. */
  created_at?: string;
}

/** Options an administrator gives to edit a user (structs.EditUserOption). Absent fields stay as they are. */
export interface EditUserOption {
  /** The ID of the user's authentication source; 0 or absent keeps it. */
  source_id?: number;
  /** identifier of the user, provided by the external authenticator; required, as in Gitea */
  login_name: string;
  /**
   * becomes the primary address
   * @maxLength 254
   */
  email?: string;
  /** @maxLength 100 */
  full_name?: string;
  /**
   * set only when non-empty
   * @maxLength 255
   */
  password?: string;
  must_change_password?: boolean;
  /**
   * an http(s) URL or empty
   * @maxLength 255
   */
  website?: string;
  /** @maxLength 50 */
  location?: string;
  /** @maxLength 255 */
  description?: string;
  active?: boolean;
  admin?: boolean;
  allow_git_hook?: boolean;
  allow_import_local?: boolean;
  /** @isInt */
  max_repo_creation?: number;
  prohibit_login?: boolean;
  allow_create_organization?: boolean;
  restricted?: boolean;
  /** public, limited or private; empty keeps it */
  visibility?: string;
}

/** New name for a user (structs.RenameUserOption). */
export interface RenameUserOption {
  /** New username for this user. This name cannot be in use yet by any other user. */
  new_username: string;
}

/**
 * A badge (api.Badge).
 * why: Gitea 1.24 lists badges by serializing its database struct, which has no json tags, so its
 * wire keys are PascalCase (`ID`, `Slug`, `ImageURL`) by accident. Its own swagger, gitea-js and
 * go-sdk all describe snake_case keys; we follow the documented contract.
 */
export interface Badge {
  id: number;
  slug: string;
  description: string;
  image_url: string;
}

/** Badges to add to or remove from a user, by slug (api.UserBadgeOption). */
export interface UserBadgeOption {
  /** @example ["badge1","badge2"] */
  badge_slugs?: string[];
}
