/** Wraps the version of the server. */
export interface ServerVersion {
  version: string;
}

/** The Gitea API level this server implements; clients compare it to enable features. */
export const GITEA_API_LEVEL = '1.24.0';

/** A periodic task. */
export interface Cron { name: string; schedule: string; next: string; prev: string; exec_times: number }

/** Options of `/markup`: what to render and where its links point. */
export interface MarkupOption {
  /** URL path for rendering issue, media and file links: `/{owner}/{repo}/src/{branch|commit|tag}/{ref}/{dir}`. */
  Context?: string;
  /** File path for detecting the renderer in `file` mode. */
  FilePath?: string;
  /** markdown, gfm, comment, wiki or file. */
  Mode?: string;
  /** The text to render. */
  Text?: string;
  /** Deprecated: use mode `wiki`. */
  Wiki?: boolean;
}

/** Options of `/markdown`. */
export interface MarkdownOption {
  /** URL path for rendering issue, media and file links. */
  Context?: string;
  /** markdown, gfm, comment or wiki. */
  Mode?: string;
  /** The Markdown text to render. */
  Text?: string;
  /** Deprecated: use mode `wiki`. */
  Wiki?: boolean;
}

/** A label of a label template. */
export interface LabelTemplate { name: string; exclusive: boolean; color: string; description: string }

/** Name and text of a gitignore template. */
export interface GitignoreTemplateInfo { name: string; source: string }

/** An entry of the license template list. */
export interface LicensesTemplateListEntry { key: string; name: string; url: string }

/** A license template with its text. */
export interface LicenseTemplateInfo { key: string; name: string; url: string; implementation: string; body: string }
