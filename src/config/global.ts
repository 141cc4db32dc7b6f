/** The keys before any section of app.ini (Gitea's setting.go): the instance's name and run mode. */
import { section } from './spec';

/** APP_NAME and RUN_MODE. */
export interface GlobalSettings {
  appName: string;
  runMode: string;
}

/** The keys before any section. */
export const globalSection = section<GlobalSettings>('', {
  APP_NAME: { kind: 'string', def: 'Forge' },
  RUN_MODE: { kind: 'string', def: 'prod', oneOf: ['prod', 'dev'] },
});
