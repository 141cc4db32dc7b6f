/** [service] (Gitea's service.go): registration, the defaults of new accounts and repositories. */
import { section } from './spec';

/** [service]. */
export interface ServiceSettings {
  /** Sign a browser in as the user a trusted proxy names in REVERSE_PROXY_AUTHENTICATION_USER. */
  enableReverseProxyAuthentication: boolean;
  disableRegistration: boolean; emailDomainAllowlist: string[]; emailDomainBlocklist: string[];
  defaultKeepEmailPrivate: boolean; defaultAllowCreateOrganization: boolean;
  defaultUserVisibility: string; defaultOrgVisibility: string; requireSigninView: boolean;
  /** Time tracking on the instance, and what a new repository's tracker starts with. */
  enableTimetracking: boolean; defaultEnableTimetracking: boolean; defaultAllowOnlyContributorsToTrackTime: boolean;
  defaultEnableDependencies: boolean; allowCrossRepositoryDependencies: boolean;
  /** The creator of a repository watches it (its notifications and feed). */
  autoWatchNewRepos: boolean;
  /** Mail watchers and participants of what happens (needs [mailer] ENABLED; forced off without it). */
  enableNotifyMail: boolean;
  /** New accounts and added addresses wait for a confirmation by mail (forced off without the mailer). */
  registerEmailConfirm: boolean;
  /** Minutes an activation or address confirmation link lives, and a password reset link. */
  activeCodeLiveMinutes: number; resetPasswdCodeLiveMinutes: number;
  /** Show the contribution calendar on users' profiles (the API's `/users/{username}/heatmap` answers either way, as Gitea's). */
  enableUserHeatmap: boolean;
}

/** [service]. */
export const serviceSection = section<ServiceSettings>('service', {
  DISABLE_REGISTRATION: { kind: 'bool', def: 'false' },
  ENABLE_REVERSE_PROXY_AUTHENTICATION: { kind: 'bool', def: 'false' },
  EMAIL_DOMAIN_ALLOWLIST: { kind: 'list', def: '' },
  EMAIL_DOMAIN_BLOCKLIST: { kind: 'list', def: '' },
  DEFAULT_KEEP_EMAIL_PRIVATE: { kind: 'bool', def: 'false' },
  DEFAULT_ALLOW_CREATE_ORGANIZATION: { kind: 'bool', def: 'true' },
  DEFAULT_USER_VISIBILITY: { kind: 'string', def: 'public', oneOf: ['public', 'limited', 'private'] },
  DEFAULT_ORG_VISIBILITY: { kind: 'string', def: 'public', oneOf: ['public', 'limited', 'private'] },
  REQUIRE_SIGNIN_VIEW: { kind: 'bool', def: 'false' },
  ENABLE_TIMETRACKING: { kind: 'bool', def: 'true' },
  DEFAULT_ENABLE_TIMETRACKING: { kind: 'bool', def: 'true' },
  DEFAULT_ALLOW_ONLY_CONTRIBUTORS_TO_TRACK_TIME: { kind: 'bool', def: 'true' },
  DEFAULT_ENABLE_DEPENDENCIES: { kind: 'bool', def: 'true' },
  ALLOW_CROSS_REPOSITORY_DEPENDENCIES: { kind: 'bool', def: 'true' },
  AUTO_WATCH_NEW_REPOS: { kind: 'bool', def: 'true' },
  ENABLE_NOTIFY_MAIL: { kind: 'bool', def: 'false' },
  REGISTER_EMAIL_CONFIRM: { kind: 'bool', def: 'false' },
  ACTIVE_CODE_LIVE_MINUTES: { kind: 'int', def: '180', min: 1, max: 525600 },
  RESET_PASSWD_CODE_LIVE_MINUTES: { kind: 'int', def: '180', min: 1, max: 525600 },
  ENABLE_USER_HEATMAP: { kind: 'bool', def: 'true' },
});
