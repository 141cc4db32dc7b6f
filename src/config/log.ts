/** [log] (Gitea's log.go): how much the forge logs. */
import { section } from './spec';

/** [log]. */
export interface LogSettings { level: string }

/** [log]. */
export const logSection = section<LogSettings>('log', {
  LEVEL: { kind: 'string', def: 'info', oneOf: ['trace', 'debug', 'info', 'warn', 'error', 'none'] },
});
