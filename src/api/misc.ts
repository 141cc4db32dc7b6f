/** Wraps the version of the server. */
export interface ServerVersion {
  version: string;
}

/** The Gitea API level this server implements; clients compare it to enable features. */
export const GITEA_API_LEVEL = '1.24.0';

/** A periodic task. */
export interface Cron { name: string; schedule: string; next: string; prev: string; exec_times: number }
