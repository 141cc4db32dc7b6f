/** [webhook] and [cron.cleanup_hook_task_table] (Gitea's webhook.go and cron.go): delivering hooks and pruning their history. */
import { section } from './spec';

/**
 * [webhook]: the hosts hooks may call (Gitea's hostmatcher list), the seconds a delivery may take,
 * TLS verification, the proxy and the hosts that use it, the attempts before a delivery is given
 * up, the seconds before its first retry (each later wait 4.4 times the one before: 8 attempts
 * span about a day), and the history page size.
 */
export interface WebhookSettings {
  allowedHostList: string; deliverTimeout: number; skipTlsVerify: boolean; proxyUrl: string; proxyHosts: string[];
  maxAttempts: number; retryFirstDelay: number; pagingNum: number;
}

/**
 * [cron.cleanup_hook_task_table]: pruning finished deliveries, hourly (and at start with
 * RUN_AT_START), by age (`OlderThan`: older than OLDER_THAN seconds) or by count (`PerWebhook`:
 * all but the newest NUMBER_TO_KEEP of each hook).
 */
export interface HookTaskCleanupSettings { enabled: boolean; runAtStart: boolean; cleanupType: string; olderThan: number; numberToKeep: number }

/** [cron.cleanup_hook_task_table]. */
export const hookTaskCleanupSection = section<HookTaskCleanupSettings>('cron.cleanup_hook_task_table', {
  ENABLED: { kind: 'bool', def: 'true' },
  RUN_AT_START: { kind: 'bool', def: 'false' },
  CLEANUP_TYPE: { kind: 'string', def: 'OlderThan' },
  OLDER_THAN: { kind: 'duration', def: '168h', min: 0, max: 10 * 365 * 86400 },
  NUMBER_TO_KEEP: { kind: 'int', def: '10', min: 0, max: 1e9 },
});

/** [webhook]. */
export const webhookSection = section<WebhookSettings>('webhook', {
  ALLOWED_HOST_LIST: { kind: 'string', def: 'external' },
  DELIVER_TIMEOUT: { kind: 'int', def: '5', min: 1, max: 3600 },
  SKIP_TLS_VERIFY: { kind: 'bool', def: 'false' },
  PROXY_URL: { kind: 'url', def: '' },
  PROXY_HOSTS: { kind: 'list', def: '' },
  MAX_ATTEMPTS: { kind: 'int', def: '8', min: 1, max: 100 },
  RETRY_FIRST_DELAY: { kind: 'int', def: '10', min: 1, max: 86400 },
  PAGING_NUM: { kind: 'int', def: '10', min: 1, max: 1000 },
});
