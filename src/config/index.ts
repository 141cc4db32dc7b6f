/**
 * Typed settings read once at boot from a Gitea-style app.ini, overridden by
 * FORGE__SECTION__KEY environment variables (a dot in a section is written _0X2E_, as Gitea's env-to-ini does).
 *
 * Each section (or a few closely related ones) has its file here, as Gitea's modules/setting does:
 * its keys with their kinds and defaults, the typed shape they read into, and what is worked out
 * from them once everything is read (paths under APP_DATA_PATH, checks across keys). This file
 * puts them together.
 */
import path from 'node:path';
import { ConfigError, StartupError } from './errors';
import { readIniFile, readSections } from './loader';
import type { SectionSpec } from './spec';
import { globalSection, type GlobalSettings } from './global';
import { resolveServer, serverSection, type ServerSettings } from './server';
import {
  attachmentSection, lfsSection, pictureSection, repoArchiveSection, resolveStorage,
  type AttachmentSettings, type LfsSettings, type PictureSettings, type RepoArchiveSettings,
} from './storage';
import { checkGit, gitSection, gitTimeoutSection, type GitSettings, type GitTimeoutSettings } from './git-settings';
import { databaseSection, redisSection, resolveDatabase, type DatabaseSettings, type RedisSettings } from './database';
import { securitySection, type SecuritySettings } from './security';
import { serviceSection, type ServiceSettings } from './service';
import { apiSection, checkApi, type ApiSettings } from './api';
import { uiSection, type UiSettings } from './ui';
import { markupSection, type MarkupSettings } from './markup';
import {
  repositoryIssueSection, repositoryPullRequestSection, repositoryReleaseSection, repositorySection, repositoryUploadSection, resolveRepository, signingSection,
  type RepositoryIssueSettings, type RepositoryPullRequestSettings, type RepositoryReleaseSettings, type RepositorySettings, type RepositoryUploadSettings, type SigningSettings,
} from './repository';
import { sshMinimumKeySizesSection, userSection, type SshMinimumKeySizesSettings, type UserSettings } from './user';
import { hookTaskCleanupSection, webhookSection, type HookTaskCleanupSettings, type WebhookSettings } from './webhook';
import { actionsSection, resolveActions, type ActionsSettings } from './actions';
import { logSection, resolveLog, type LogSettings } from './log';
import {
  migrationsSection, mirrorSection, resolveMirror, updateMirrorsSection, type MigrationsSettings, type MirrorSettings, type UpdateMirrorsSettings,
} from './mirror';
import { checkFederation, federationSection, type FederationSettings } from './federation';
import { adminSection, mailerSection, resolveMailer, type AdminSettings, type MailerSettings } from './mailer';
import { cleanupPackagesSection, packagesSection, resolvePackages, type CleanupPackagesSettings, type PackagesSettings } from './packages';
import { oauth2Section, resolveOAuth2, type OAuth2Settings } from './oauth2';
import { projectSection, type ProjectSettings } from './project';

export { ConfigError, StartupError };
export { LOG_LEVELS, type LogLevel, type LogMode } from './log';
export {
  ACCESS_PLACEHOLDERS, ACCESS_TIME_LAYOUTS, GITEA_ACCESS_LOG_TEMPLATE, parseAccessLogTemplate, type AccessField, type AccessTemplatePart,
} from './access-template';
export type {
  GlobalSettings, ServerSettings, LfsSettings, RepoArchiveSettings, AttachmentSettings, PictureSettings, GitSettings, GitTimeoutSettings,
  DatabaseSettings, RedisSettings, SecuritySettings, ServiceSettings, ApiSettings, UiSettings, MarkupSettings, RepositorySettings,
  SigningSettings, RepositoryUploadSettings, RepositoryReleaseSettings, RepositoryIssueSettings, RepositoryPullRequestSettings,
  SshMinimumKeySizesSettings, UserSettings, WebhookSettings, HookTaskCleanupSettings, ActionsSettings, LogSettings,
  MirrorSettings, MigrationsSettings, UpdateMirrorsSettings, FederationSettings, PackagesSettings, CleanupPackagesSettings,
  MailerSettings, AdminSettings, OAuth2Settings, ProjectSettings,
};
export { EMAIL_PREFERENCES, type EmailPreference, type MailProtocol } from './mailer';
export { PACKAGE_TYPES, type PackageType } from './packages';
export { JWT_ALGORITHMS, isSymmetricAlgorithm, validJwtSecret } from './oauth2';
export { formatGoDuration, parseGoDuration } from './duration';
export { parseByteSize } from './spec';

// why: one table of every section we read, so an unknown value fails start-up with the key's name;
// the order is the order of the unknown-key warnings.
const SECTIONS: SectionSpec<unknown>[] = [
  globalSection, serverSection, lfsSection, repoArchiveSection, gitSection, gitTimeoutSection, databaseSection, redisSection,
  securitySection, serviceSection, apiSection, uiSection, markupSection, repositorySection, signingSection, repositoryUploadSection,
  sshMinimumKeySizesSection, attachmentSection, repositoryReleaseSection, repositoryIssueSection, repositoryPullRequestSection,
  pictureSection, hookTaskCleanupSection, webhookSection, actionsSection, userSection, logSection, mirrorSection, migrationsSection,
  updateMirrorsSection, federationSection, packagesSection, cleanupPackagesSection, mailerSection, adminSection, oauth2Section, projectSection,
];

/** Every setting the forge reads, typed. */
export interface Settings extends GlobalSettings {
  configPath: string | null;
  server: ServerSettings;
  lfs: LfsSettings;
  repoArchive: RepoArchiveSettings;
  git: GitSettings;
  gitTimeout: GitTimeoutSettings;
  database: DatabaseSettings;
  redis: RedisSettings;
  security: SecuritySettings;
  service: ServiceSettings;
  api: ApiSettings;
  ui: UiSettings;
  markup: MarkupSettings;
  repository: RepositorySettings;
  /** [repository.signing]. */
  signing: SigningSettings;
  repositoryUpload: RepositoryUploadSettings;
  sshMinimumKeySizes: SshMinimumKeySizesSettings;
  user: UserSettings;
  attachment: AttachmentSettings;
  repositoryRelease: RepositoryReleaseSettings;
  repositoryIssue: RepositoryIssueSettings;
  repositoryPullRequest: RepositoryPullRequestSettings;
  picture: PictureSettings;
  webhook: WebhookSettings;
  /** [cron.cleanup_hook_task_table]. */
  hookTaskCleanup: HookTaskCleanupSettings;
  actions: ActionsSettings;
  log: LogSettings;
  mirror: MirrorSettings;
  migrations: MigrationsSettings;
  /** [cron.update_mirrors]. */
  updateMirrors: UpdateMirrorsSettings;
  federation: FederationSettings;
  packages: PackagesSettings;
  /** [cron.cleanup_packages]. */
  cleanupPackages: CleanupPackagesSettings;
  mailer: MailerSettings;
  admin: AdminSettings;
  /** [oauth2]: the OAuth2 / OpenID Connect provider. */
  oauth2: OAuth2Settings;
  project: ProjectSettings;
  /** Keys found in the ini file or the environment, in sections the forge reads, that it does not know. */
  warnings: string[];
}

/**
 * Load settings from the ini file (if any) and the environment. Throws ConfigError naming the key on a bad value.
 */
export function loadSettings(configPath: string | null, env: NodeJS.ProcessEnv = process.env): Settings {
  const read = readSections(SECTIONS, readIniFile(configPath), env);
  const { appName, runMode } = read.get(globalSection);
  const s: Settings = {
    appName,
    runMode,
    configPath,
    server: read.get(serverSection),
    database: read.get(databaseSection),
    redis: read.get(redisSection),
    security: read.get(securitySection),
    service: read.get(serviceSection),
    lfs: read.get(lfsSection),
    repoArchive: read.get(repoArchiveSection),
    git: read.get(gitSection),
    gitTimeout: read.get(gitTimeoutSection),
    api: read.get(apiSection),
    ui: read.get(uiSection),
    markup: read.get(markupSection),
    repository: read.get(repositorySection),
    signing: read.get(signingSection),
    repositoryUpload: read.get(repositoryUploadSection),
    sshMinimumKeySizes: read.get(sshMinimumKeySizesSection),
    user: read.get(userSection),
    attachment: read.get(attachmentSection),
    repositoryRelease: read.get(repositoryReleaseSection),
    repositoryIssue: read.get(repositoryIssueSection),
    repositoryPullRequest: read.get(repositoryPullRequestSection),
    picture: read.get(pictureSection),
    webhook: read.get(webhookSection),
    hookTaskCleanup: read.get(hookTaskCleanupSection),
    actions: read.get(actionsSection),
    log: read.get(logSection),
    mirror: read.get(mirrorSection),
    migrations: read.get(migrationsSection),
    updateMirrors: read.get(updateMirrorsSection),
    federation: read.get(federationSection),
    packages: read.get(packagesSection),
    cleanupPackages: read.get(cleanupPackagesSection),
    mailer: read.get(mailerSection),
    admin: read.get(adminSection),
    oauth2: read.get(oauth2Section),
    project: read.get(projectSection),
    warnings: read.warnings,
  };
  // why: the data dir first: every other default path lies under it.
  resolveServer(s.server);
  const data = s.server.appDataPath;
  resolveStorage(data, s);
  resolveActions(data, s.actions);
  resolveDatabase(data, s.database);
  resolveRepository(data, s.repository);
  checkGit(s.git);
  checkApi(s.api);
  resolveLog(data, s.log);
  resolveMirror(s.mirror);
  checkFederation(s.federation);
  resolvePackages(data, s.packages);
  resolveOAuth2(data, s.oauth2);
  s.warnings.push(...resolveMailer(s.mailer));
  // why: as Gitea, mail that cannot be sent is not asked for: without the mailer no account waits
  // for a confirmation it would never receive, and no notification mail is queued.
  if (!s.mailer.enabled && (s.service.registerEmailConfirm || s.service.enableNotifyMail)) {
    s.warnings.push('[mailer] is not enabled: REGISTER_EMAIL_CONFIRM and ENABLE_NOTIFY_MAIL are turned off');
    s.service.registerEmailConfirm = false;
    s.service.enableNotifyMail = false;
  }
  return s;
}

let current: Settings | null = null;

/** The settings of this process; loaded on first use from --config / FORGE_CONFIG and the environment. */
export function settings(): Settings {
  if (!current) current = loadSettings(configPathFromArgs());
  return current;
}

/** Replace the process settings (used by the CLI after parsing flags). */
export function useSettings(s: Settings): void {
  current = s;
}

/** The ini path named by --config/-c or FORGE_CONFIG, or null. */
export function configPathFromArgs(argv: string[] = process.argv, env: NodeJS.ProcessEnv = process.env): string | null {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if ((a === '--config' || a === '-c') && argv[i + 1]) return path.resolve(argv[i + 1]);
    if (a.startsWith('--config=')) return path.resolve(a.slice('--config='.length));
  }
  return env.FORGE_CONFIG ? path.resolve(env.FORGE_CONFIG) : null;
}
