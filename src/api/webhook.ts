/** Webhooks as Gitea's API shows and takes them (structs.Hook, CreateHookOption, EditHookOption). */

/** A hook. `config` holds `url` and `content_type` (and a Slack hook's channel, username, icon_url and color); the secret is never shown. */
export interface Hook {
  id: number; type: string; branch_filter: string; config: Record<string, string>; events: string[]; authorization_header: string;
  active: boolean; updated_at: string; created_at: string;
}

/**
 * The body of a hook's creation: `type` (gitea, gogs, slack, discord, dingtalk, telegram, msteams,
 * feishu, matrix, wechatwork, packagist); `config` with `url` and `content_type` (json or form),
 * optionally `secret` and `is_system_webhook`; the events (push when none).
 */
export interface CreateHookOption {
  type: string; config: Record<string, string>; events?: string[]; branch_filter?: string; authorization_header?: string; active?: boolean;
}

/** The body of a hook's change. */
export interface EditHookOption { config?: Record<string, string>; events?: string[]; branch_filter?: string; authorization_header?: string; active?: boolean }
