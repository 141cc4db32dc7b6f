/**
 * The instance settings clients read (Gitea's GeneralAPISettings, GeneralAttachmentSettings,
 * GeneralRepoSettings, GeneralUISettings).
 */

/** GET /settings/api. */
export interface GeneralAPISettings {
  default_paging_num: number;
  max_response_items: number;
  default_git_trees_per_page: number;
  /** bytes */
  default_max_blob_size: number;
  /** bytes */
  default_max_response_size: number;
}

/** GET /settings/attachment. */
export interface GeneralAttachmentSettings {
  enabled: boolean;
  allowed_types: string;
  /** bytes */
  max_size: number;
  max_files: number;
}

/** GET /settings/repository. */
export interface GeneralRepoSettings {
  http_git_disabled: boolean;
  lfs_disabled: boolean;
  migrations_disabled: boolean;
  mirrors_disabled: boolean;
  stars_disabled: boolean;
  time_tracking_disabled: boolean;
}

/** GET /settings/ui. */
export interface GeneralUISettings {
  default_theme: string;
  allowed_reactions: string[];
  custom_emojis: string[];
}
