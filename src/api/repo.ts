/**
 * A repository as Gitea's API shows it (structs.Repository). The fields the forge fills today;
 * the repository area extends this.
 */
import type { User } from './user';

/** A repository. */
export interface Repository {
  id: number;
  owner: User;
  name: string;
  full_name: string;
  description: string;
  empty: boolean;
  private: boolean;
  fork: boolean;
  template: boolean;
  mirror: boolean;
  archived: boolean;
  size: number;
  html_url: string;
  url: string;
  clone_url: string;
  website: string;
  stars_count: number;
  forks_count: number;
  watchers_count: number;
  default_branch: string;
  object_format_name: string;
  created_at: string;
  updated_at: string;
}
