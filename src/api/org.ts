/**
 * Organizations and teams as Gitea's API shows them (structs.Organization, structs.Team and their options).
 */

/** An organization. */
export interface Organization {
  id: number;
  name: string;
  full_name: string;
  email: string;
  avatar_url: string;
  description: string;
  website: string;
  location: string;
  /** public, limited or private */
  visibility: string;
  repo_admin_change_team_access: boolean;
  /** deprecated, same as `name` */
  username: string;
}

/** Options to edit an organization; omitted fields keep their value. */
export interface EditOrgOption {
  /** @maxLength 100 */
  full_name?: string;
  /** @maxLength 255 */
  email?: string;
  /** @maxLength 255 */
  description?: string;
  /** @maxLength 255 */
  website?: string;
  /** @maxLength 50 */
  location?: string;
  /** possible values are `public` (the default at creation), `limited` or `private` */
  visibility?: '' | 'public' | 'limited' | 'private';
  repo_admin_change_team_access?: boolean;
}

/** Options to rename an organization. */
export interface RenameOrgOption {
  /** New username for this org. This name cannot be in use yet by any other user. */
  new_name: string;
}

/** Options to create an organization: its name and the editable fields. */
export interface CreateOrgOption extends EditOrgOption {
  /** @maxLength 40 */
  username: string;
}

/** What a user may do in an organization. */
export interface OrganizationPermissions {
  is_owner: boolean;
  is_admin: boolean;
  can_write: boolean;
  can_read: boolean;
  can_create_repository: boolean;
}

/** A team of an organization. */
export interface Team {
  id: number;
  name: string;
  description: string;
  /** the team's organization; null where Gitea does not load it (lists of an organization's teams) */
  organization: Organization | null;
  includes_all_repositories: boolean;
  /** none, read, write, admin or owner */
  permission: string;
  /** deprecated: the unit keys the team has */
  units: string[];
  /** unit key -> access mode */
  units_map: Record<string, string>;
  can_create_org_repo: boolean;
}

/** Options to edit a team; omitted fields keep their value. */
export interface EditTeamOption {
  /** @maxLength 255 */
  name?: string;
  /** @maxLength 255 */
  description?: string;
  includes_all_repositories?: boolean;
  permission?: 'read' | 'write' | 'admin';
  /** deprecated, use units_map */
  units?: string[];
  units_map?: Record<string, string>;
  can_create_org_repo?: boolean;
}

/** Options to create a team: the editable fields, with the name required. */
export interface CreateTeamOption extends EditTeamOption {
  /** @maxLength 255 */
  name: string;
}

/** The answer of a team search. */
export interface TeamSearchResults {
  ok: boolean;
  data: Team[];
}
