/**
 * [mirror], [migrations] and [cron.update_mirrors] (Gitea's mirror.go and migrations.go): whether
 * mirrors may be made, how often they sync, and which servers a migration or mirror may reach.
 */
import { section } from './spec';

/**
 * [mirror]: ENABLED off turns both kinds of mirror off; DISABLE_NEW_PULL and DISABLE_NEW_PUSH refuse
 * new ones; intervals in seconds (DEFAULT_INTERVAL for a new pull mirror that names none, and the
 * least MIN_INTERVAL a mirror may sync at).
 */
export interface MirrorSettings { enabled: boolean; disableNewPull: boolean; disableNewPush: boolean; defaultInterval: number; minInterval: number }

/**
 * [migrations]: the hosts a migration, a mirror sync or a push mirror may reach (Gitea's globs in
 * ALLOWED_DOMAINS and BLOCKED_DOMAINS; private and loopback addresses only with ALLOW_LOCALNETWORKS),
 * attempts and seconds between them for reads of a source's API, and TLS verification.
 */
export interface MigrationsSettings {
  maxAttempts: number; retryBackoff: number; allowedDomains: string[]; blockedDomains: string[]; allowLocalnetworks: boolean; skipTlsVerify: boolean;
}

/** [cron.update_mirrors]: whether scheduled syncs run, how often the schedule is looked at (seconds), and how many mirrors of each kind one look starts. */
export interface UpdateMirrorsSettings { enabled: boolean; schedule: number; pullLimit: number; pushLimit: number }

/** [mirror]. */
export const mirrorSection = section<MirrorSettings>('mirror', {
  ENABLED: { kind: 'bool', def: 'true' },
  DISABLE_NEW_PULL: { kind: 'bool', def: 'false' },
  DISABLE_NEW_PUSH: { kind: 'bool', def: 'false' },
  DEFAULT_INTERVAL: { kind: 'duration', def: '8h', min: 0, max: 10 * 365 * 86400 },
  MIN_INTERVAL: { kind: 'duration', def: '10m', min: 0, max: 10 * 365 * 86400 },
});

/** [migrations]. */
export const migrationsSection = section<MigrationsSettings>('migrations', {
  MAX_ATTEMPTS: { kind: 'int', def: '3', min: 1, max: 100 },
  RETRY_BACKOFF: { kind: 'int', def: '3', min: 0, max: 3600 },
  ALLOWED_DOMAINS: { kind: 'list', def: '' },
  BLOCKED_DOMAINS: { kind: 'list', def: '' },
  ALLOW_LOCALNETWORKS: { kind: 'bool', def: 'false' },
  SKIP_TLS_VERIFY: { kind: 'bool', def: 'false' },
});

/** [cron.update_mirrors]. why: SCHEDULE is a duration here (Gitea's `@every 10m` is written `10m`), not a cron line. */
export const updateMirrorsSection = section<UpdateMirrorsSettings>('cron.update_mirrors', {
  ENABLED: { kind: 'bool', def: 'true' },
  SCHEDULE: { kind: 'duration', def: '10m', min: 1, max: 86400 },
  PULL_LIMIT: { kind: 'int', def: '50', min: 1, max: 100000 },
  PUSH_LIMIT: { kind: 'int', def: '50', min: 1, max: 100000 },
});

/** Gitea's corrections: ENABLED off disables new mirrors, MIN_INTERVAL is at least a minute, DEFAULT_INTERVAL not below it. */
export function resolveMirror(m: MirrorSettings): void {
  if (!m.enabled) m.disableNewPull = m.disableNewPush = true;
  if (m.minInterval < 60) m.minInterval = 60;
  if (m.defaultInterval < m.minInterval) m.defaultInterval = Math.max(8 * 3600, m.minInterval);
}
