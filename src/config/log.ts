/**
 * [log] (Gitea's log.go): how much the forge logs and where, and its access log. See docs/logging.md.
 */
import path from 'node:path';
import { GITEA_ACCESS_LOG_TEMPLATE, parseAccessLogTemplate } from './access-template';
import { ConfigError } from './errors';
import { section } from './spec';

/** Gitea's levels, least severe first (Critical, of Gitea's older releases, between Error and Fatal). */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'critical', 'fatal', 'none'] as const;

/** A [log] LEVEL. */
export type LogLevel = typeof LOG_LEVELS[number];

/** Where lines go: the process's stdout and stderr, or files under ROOT_PATH. */
export type LogMode = 'console' | 'file';

/**
 * [log]: the least severe level written (an access line is Info, as in Gitea), the outputs
 * (console, file, or both), the directory of forge.log and access.log (default
 * APP_DATA_PATH/log), lines kept in memory per output while the output is slow, whether requests
 * and git operations are logged, the access line's template, and text or JSON lines.
 */
export interface LogSettings {
  level: LogLevel; mode: LogMode[]; rootPath: string; bufferLen: number;
  enableAccessLog: boolean; accessLogTemplate: string; format: 'text' | 'json';
}

/** [log]. */
export const logSection = section<LogSettings>('log', {
  LEVEL: { kind: 'string', def: 'info', oneOf: [...LOG_LEVELS], ignoreCase: true },
  MODE: { kind: 'list', def: 'console' },
  ROOT_PATH: { kind: 'string', def: '' },
  BUFFER_LEN: { kind: 'int', def: '10000', min: 1, max: 10_000_000 },
  // why: on by default, unlike Gitea (whose access logger is off until logger.access.MODE names an output).
  ENABLE_ACCESS_LOG: { kind: 'bool', def: 'true' },
  ACCESS_LOG_TEMPLATE: { kind: 'string', def: GITEA_ACCESS_LOG_TEMPLATE },
  FORMAT: { kind: 'string', def: 'text', oneOf: ['text', 'json'], ignoreCase: true },
});

/** Check MODE and the template, and make ROOT_PATH absolute (relative to APP_DATA_PATH, like the forge's other paths). */
export function resolveLog(appDataPath: string, log: LogSettings): void {
  for (const m of log.mode) {
    if (m !== 'console' && m !== 'file') throw new ConfigError(`[log] MODE: "${m}" is not supported (console, file, or both: "console, file")`);
  }
  if (log.mode.length === 0) throw new ConfigError('[log] MODE: empty; use console, file, or both ("console, file"); LEVEL = None writes nothing');
  log.mode = [...new Set(log.mode)];
  log.rootPath = path.resolve(appDataPath, log.rootPath || 'log');
  parseAccessLogTemplate(log.accessLogTemplate);
}
