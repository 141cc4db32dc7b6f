/** [actions] (Gitea's actions.go): whether Actions run, their logs, artifacts and time limits. */
import path from 'node:path';
import { section } from './spec';

/**
 * [actions]: whether Actions run at all, where job logs are kept (default APP_DATA_PATH/actions_log),
 * where `uses:` actions come from (`github` or `self`), the seconds after which a silent task, a
 * task running too long and a job never picked are given up, how long a runner's FetchTask may
 * wait for a job, the largest log of one task (bytes), how many days an artifact is kept unless
 * its upload asks for fewer, and how many days a finished task's log is kept. Artifacts live in
 * APP_DATA_PATH/actions_artifacts (`artifactPath`, not a setting).
 */
export interface ActionsSettings {
  enabled: boolean; logPath: string; defaultActionsUrl: string; zombieTaskTimeout: number; endlessTaskTimeout: number;
  abandonedJobTimeout: number; runnerLongPollTimeout: number; maxLogSize: number; artifactRetentionDays: number; logRetentionDays: number;
  artifactPath: string;
}

/** [actions]. */
export const actionsSection = section<ActionsSettings>('actions', {
  ENABLED: { kind: 'bool', def: 'true' },
  LOG_PATH: { kind: 'string', def: '' },
  DEFAULT_ACTIONS_URL: { kind: 'string', def: 'github' },
  ZOMBIE_TASK_TIMEOUT: { kind: 'duration', def: '10m', min: 1, max: 30 * 86400 },
  ENDLESS_TASK_TIMEOUT: { kind: 'duration', def: '3h', min: 1, max: 30 * 86400 },
  ABANDONED_JOB_TIMEOUT: { kind: 'duration', def: '24h', min: 1, max: 365 * 86400 },
  RUNNER_LONG_POLL_TIMEOUT: { kind: 'duration', def: '50s', min: 0, max: 600 },
  MAX_LOG_SIZE: { kind: 'int', def: '104857600', min: 1024, max: 1e12 },
  ARTIFACT_RETENTION_DAYS: { kind: 'int', def: '90', min: 1, max: 36500 },
  LOG_RETENTION_DAYS: { kind: 'int', def: '365', min: 1, max: 36500 },
});

/** Job logs default to APP_DATA_PATH/actions_log; artifacts always live in APP_DATA_PATH/actions_artifacts. */
export function resolveActions(appDataPath: string, actions: ActionsSettings): void {
  actions.logPath = path.resolve(appDataPath, actions.logPath || 'actions_log');
  actions.artifactPath = path.resolve(appDataPath, 'actions_artifacts');
}
