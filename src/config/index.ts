/**
 * Typed settings read once at boot from a Gitea-style app.ini, overridden by
 * FORGE__SECTION__KEY environment variables (a dot in a section is written _0X2E_, as Gitea's env-to-ini does).
 */
import fs from 'node:fs';
import path from 'node:path';
import ini from 'ini';

type Kind = 'string' | 'int' | 'bool' | 'list' | 'url' | 'duration';
interface KeySpec {
  kind: Kind;
  def: string;
  /** Allowed values for an enum-like string key. */
  oneOf?: string[];
  min?: number;
  max?: number;
  /** Keep the case of list items (paths); other lists are lower-cased. */
  keepCase?: boolean;
}

// why: one table of every key we read, so an unknown value fails start-up with the key's name.
const SPEC: Record<string, Record<string, KeySpec>> = {
  '': { APP_NAME: { kind: 'string', def: 'Forge' }, RUN_MODE: { kind: 'string', def: 'prod', oneOf: ['prod', 'dev'] } },
  server: {
    ROOT_URL: { kind: 'url', def: '' },
    HTTP_ADDR: { kind: 'string', def: '0.0.0.0' },
    HTTP_PORT: { kind: 'int', def: '3000', min: 0, max: 65535 },
    SSH_PORT: { kind: 'int', def: '2222', min: 0, max: 65535 },
    SSH_LISTEN_PORT: { kind: 'int', def: '', min: 0, max: 65535 },
    DISABLE_SSH: { kind: 'bool', def: 'false' },
    START_SSH_SERVER: { kind: 'bool', def: 'true' },
    APP_DATA_PATH: { kind: 'string', def: 'data' },
    LFS_START_SERVER: { kind: 'bool', def: 'true' },
    LFS_MAX_FILE_SIZE: { kind: 'int', def: '0', min: 0, max: 1e15 },
    LOCAL_ROOT_URL: { kind: 'url', def: '' },
    SSH_DOMAIN: { kind: 'string', def: '' },
    SSH_LISTEN_HOST: { kind: 'string', def: '0.0.0.0' },
    SSH_USER: { kind: 'string', def: 'git' },
    SSH_SERVER_HOST_KEYS: { kind: 'list', def: 'ssh/forge.ed25519,ssh/forge.rsa', keepCase: true },
    LFS_MAX_BATCH_SIZE: { kind: 'int', def: '1000', min: 0, max: 1e7 },
    GRACEFUL_HAMMER_TIME: { kind: 'duration', def: '60s', min: 0, max: 86400 },
  },
  lfs: { PATH: { kind: 'string', def: '' } },
  'repo-archive': {
    PATH: { kind: 'string', def: '' },
    MAX_SIZE: { kind: 'int', def: '2048', min: 1, max: 1e9 },
    MAX_ARCHIVE_SIZE: { kind: 'int', def: '1024', min: 0, max: 1e9 },
  },
  git: {
    PROCESS_MEMORY_LIMIT: { kind: 'int', def: '4096', min: 0, max: 1e9 },
    MAX_TREE_ENTRIES: { kind: 'int', def: '100000', min: 1, max: 1e9 },
    BACKGROUND_NICENESS: { kind: 'int', def: '19', min: 0, max: 19 },
    PULL_REQUEST_PUSH_MESSAGE: { kind: 'bool', def: 'true' },
  },
  'git.timeout': { DEFAULT: { kind: 'int', def: '360', min: 1, max: 1e7 } },
  database: {
    DB_TYPE: { kind: 'string', def: 'sqlite3', oneOf: ['sqlite3', 'postgres'] },
    PATH: { kind: 'string', def: '' },
    HOST: { kind: 'string', def: '127.0.0.1:5432' },
    NAME: { kind: 'string', def: 'forge' },
    USER: { kind: 'string', def: 'forge' },
    PASSWD: { kind: 'string', def: '' },
    SSL_MODE: { kind: 'string', def: 'disable', oneOf: ['disable', 'require', 'verify-full'] },
    MAX_OPEN_CONNS: { kind: 'int', def: '10', min: 1, max: 1000 },
    LOG_SQL: { kind: 'bool', def: 'false' },
  },
  redis: { CONN_STR: { kind: 'string', def: '' } },
  security: {
    SECRET_KEY: { kind: 'string', def: '' },
    INTERNAL_TOKEN: { kind: 'string', def: '' },
    INSTALL_LOCK: { kind: 'bool', def: 'true' },
    TWO_FACTOR_AUTH: { kind: 'string', def: '', oneOf: ['', 'enforced'] },
    MIN_PASSWORD_LENGTH: { kind: 'int', def: '8', min: 1, max: 256 },
    LOGIN_MAX_FAILURES: { kind: 'int', def: '10', min: 1, max: 100000 },
    LOGIN_FAILURE_WINDOW: { kind: 'int', def: '300', min: 1, max: 86400 },
    DISABLE_QUERY_AUTH_TOKEN: { kind: 'bool', def: 'false' },
    DISABLE_WEBHOOKS: { kind: 'bool', def: 'false' },
    REVERSE_PROXY_TRUSTED_PROXIES: { kind: 'list', def: '127.0.0.0/8,::1/128' },
    REVERSE_PROXY_LIMIT: { kind: 'int', def: '1', min: 0, max: 100 },
    REVERSE_PROXY_AUTHENTICATION_USER: { kind: 'string', def: 'X-WEBAUTH-USER' },
  },
  service: {
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
  },
  api: {
    ENABLE_SWAGGER: { kind: 'bool', def: 'true' },
    DEFAULT_PAGING_NUM: { kind: 'int', def: '30', min: 1, max: 10000 },
    MAX_RESPONSE_ITEMS: { kind: 'int', def: '50', min: 1, max: 10000 },
    DEFAULT_GIT_TREES_PER_PAGE: { kind: 'int', def: '1000', min: 1, max: 100000 },
    DEFAULT_MAX_BLOB_SIZE: { kind: 'int', def: '10485760', min: 0, max: 1e12 },
    DEFAULT_MAX_RESPONSE_SIZE: { kind: 'int', def: '104857600', min: 0, max: 1e12 },
  },
  ui: {
    DEFAULT_THEME: { kind: 'string', def: 'gitea-auto' },
    REACTIONS: { kind: 'list', def: '+1, -1, laugh, hooray, confused, heart, rocket, eyes', keepCase: true },
    CUSTOM_EMOJIS: { kind: 'list', def: 'gitea, codeberg, gitlab, git, github, gogs', keepCase: true },
  },
  markup: {
    ENABLE_HARD_LINE_BREAK_IN_COMMENTS: { kind: 'bool', def: 'true' },
    ENABLE_HARD_LINE_BREAK_IN_DOCUMENTS: { kind: 'bool', def: 'false' },
    MAX_INPUT_SIZE: { kind: 'int', def: '4194304', min: 1024, max: 1e9 },
    RENDER_TIMEOUT: { kind: 'duration', def: '10s', min: 1, max: 600 },
  },
  repository: {
    ROOT: { kind: 'string', def: '' },
    MAX_CREATION_LIMIT: { kind: 'int', def: '-1', min: -1, max: 1e9 },
    FORCE_PRIVATE: { kind: 'bool', def: 'false' },
    DISABLE_FORKS: { kind: 'bool', def: 'false' },
    ALLOW_FORK_WITHOUT_MAXIMUM_LIMIT: { kind: 'bool', def: 'true' },
    MAX_PUSH_SIZE: { kind: 'int', def: '2048', min: 0, max: 1e9 },
    MAX_PUSH_REFS: { kind: 'int', def: '5000', min: 0, max: 1e9 },
  },
  'repository.signing': {
    SIGNING_KEY: { kind: 'string', def: 'none' },
    SIGNING_NAME: { kind: 'string', def: '' },
    SIGNING_EMAIL: { kind: 'string', def: '' },
    SIGNING_FORMAT: { kind: 'string', def: 'openpgp', oneOf: ['openpgp', 'ssh'] },
    TRUSTED_SSH_KEYS: { kind: 'list', def: '', keepCase: true },
  },
  // why: Gitea's key for the largest uploaded file (MB); the contents API applies it to each file it commits.
  'repository.upload': { FILE_MAX_SIZE: { kind: 'int', def: '50', min: 1, max: 1e6 } },
  'ssh.minimum_key_sizes': {
    ED25519: { kind: 'int', def: '256', min: -1, max: 65536 },
    ECDSA: { kind: 'int', def: '256', min: -1, max: 65536 },
    RSA: { kind: 'int', def: '2047', min: -1, max: 65536 },
  },
  attachment: {
    ENABLED: { kind: 'bool', def: 'true' },
    PATH: { kind: 'string', def: '' },
    ALLOWED_TYPES: { kind: 'string', def: '.cpio,.csv,.doc,.docx,.gif,.gz,.jpeg,.jpg,.json,.jsonl,.log,.md,.mov,.mp4,.odf,.odg,.odp,.ods,.odt,.patch,.pdf,.png,.pptx,.svg,.tgz,.txt,.webm,.webp,.xls,.xlsx,.zip' },
    MAX_SIZE: { kind: 'int', def: '2048', min: -1, max: 1e9 },
    MAX_FILES: { kind: 'int', def: '5', min: 0, max: 1e6 },
  },
  'repository.release': { ALLOWED_TYPES: { kind: 'string', def: '' } },
  'repository.issue': { MAX_PINNED: { kind: 'int', def: '3', min: 0, max: 1e6 } },
  'repository.pull-request': {
    WORK_IN_PROGRESS_PREFIXES: { kind: 'list', def: 'WIP:,[WIP]', keepCase: true },
    RETARGET_CHILDREN_ON_MERGE: { kind: 'bool', def: 'true' },
    CLOSE_KEYWORDS: { kind: 'list', def: 'close,closes,closed,fix,fixes,fixed,resolve,resolves,resolved' },
    REOPEN_KEYWORDS: { kind: 'list', def: 'reopen,reopens,reopened' },
  },
  picture: { AVATAR_UPLOAD_PATH: { kind: 'string', def: '' } },
  'cron.cleanup_hook_task_table': {
    ENABLED: { kind: 'bool', def: 'true' },
    RUN_AT_START: { kind: 'bool', def: 'false' },
    CLEANUP_TYPE: { kind: 'string', def: 'OlderThan' },
    OLDER_THAN: { kind: 'duration', def: '168h', min: 0, max: 10 * 365 * 86400 },
    NUMBER_TO_KEEP: { kind: 'int', def: '10', min: 0, max: 1e9 },
  },
  webhook: {
    ALLOWED_HOST_LIST: { kind: 'string', def: 'external' },
    DELIVER_TIMEOUT: { kind: 'int', def: '5', min: 1, max: 3600 },
    SKIP_TLS_VERIFY: { kind: 'bool', def: 'false' },
    PROXY_URL: { kind: 'url', def: '' },
    PROXY_HOSTS: { kind: 'list', def: '' },
    MAX_ATTEMPTS: { kind: 'int', def: '8', min: 1, max: 100 },
    RETRY_FIRST_DELAY: { kind: 'int', def: '10', min: 1, max: 86400 },
    PAGING_NUM: { kind: 'int', def: '10', min: 1, max: 1000 },
  },
  actions: {
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
  },
  user: { ENABLE_SSH_KEYS: { kind: 'bool', def: 'true' }, ENABLE_GPG_KEYS: { kind: 'bool', def: 'true' } },
  log: { LEVEL: { kind: 'string', def: 'info', oneOf: ['trace', 'debug', 'info', 'warn', 'error', 'none'] } },
};

/** A problem that stops start-up; its one-line message names the setting or path and what to do. */
export class StartupError extends Error {}

/** A start-up configuration problem; the message names the offending key. */
export class ConfigError extends StartupError {}

function envName(section: string, key: string): string {
  const sec = section === '' ? 'DEFAULT' : section.toUpperCase().replace(/\./g, '_0X2E_');
  return `FORGE__${sec}__${key}`;
}

function convert(section: string, key: string, spec: KeySpec, raw: string): unknown {
  const where = section === '' ? key : `[${section}] ${key}`;
  const value = raw.trim();
  switch (spec.kind) {
    case 'int': {
      if (value === '') return undefined;
      if (!/^-?\d+$/.test(value)) throw new ConfigError(`${where}: "${raw}" is not an integer`);
      const n = Number(value);
      if ((spec.min !== undefined && n < spec.min) || (spec.max !== undefined && n > spec.max)) {
        throw new ConfigError(`${where}: ${n} is outside ${spec.min}..${spec.max}`);
      }
      return n;
    }
    case 'bool': {
      const v = value.toLowerCase();
      if (['true', '1', 'yes', 'on'].includes(v)) return true;
      if (['false', '0', 'no', 'off', ''].includes(v)) return false;
      throw new ConfigError(`${where}: "${raw}" is not a boolean (true/false)`);
    }
    case 'list':
      return value === '' ? [] : value.split(',').map((s) => (spec.keepCase ? s.trim() : s.trim().toLowerCase())).filter(Boolean);
    case 'duration': {
      // why: Gitea writes durations as Go does ("60s", "1m30s"); a bare number is seconds.
      if (value === '') return undefined;
      const m = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/.exec(value);
      const n = /^\d+$/.test(value) ? Number(value) : m && value !== '' ? Number(m[1] ?? 0) * 3600 + Number(m[2] ?? 0) * 60 + Number(m[3] ?? 0) : NaN;
      if (!Number.isFinite(n)) throw new ConfigError(`${where}: "${raw}" is not a duration (e.g. 60s, 5m, 1h)`);
      if ((spec.min !== undefined && n < spec.min) || (spec.max !== undefined && n > spec.max)) {
        throw new ConfigError(`${where}: ${n}s is outside ${spec.min}..${spec.max} seconds`);
      }
      return n;
    }
    case 'url':
      if (value !== '') {
        try {
          const u = new URL(value);
          if (!['http:', 'https:'].includes(u.protocol)) throw new Error('scheme');
        } catch {
          throw new ConfigError(`${where}: "${raw}" is not an http(s) URL`);
        }
      }
      return value;
    default:
      if (spec.oneOf && !spec.oneOf.includes(value)) {
        throw new ConfigError(`${where}: "${raw}" is not one of ${spec.oneOf.map((v) => v || '""').join(', ')}`);
      }
      return value;
  }
}

/** Every setting the forge reads, typed. */
export interface Settings {
  appName: string;
  runMode: string;
  configPath: string | null;
  server: {
    rootUrl: string; httpAddr: string; httpPort: number; sshPort: number; sshListenPort: number;
    disableSsh: boolean; startSshServer: boolean; appDataPath: string; lfsStartServer: boolean;
    lfsMaxFileSize: number;
    /** Where the hooks of a push reach the internal API; by default the worker's own loopback listener. */
    localRootUrl: string;
    sshDomain: string; sshListenHost: string; sshUser: string;
    /** Host key files, relative to APP_DATA_PATH unless absolute; generated on first start when missing. */
    sshServerHostKeys: string[];
    /** Objects one LFS batch request may name (0 = no limit); more is a 413. */
    lfsMaxBatchSize: number;
    /** Seconds a stopping worker lets running clones, pushes and requests finish. */
    gracefulHammerTime: number;
  };
  lfs: { path: string };
  /** Where built archives are cached, and the cache's bound in MB (least recently served are evicted). */
  repoArchive: { path: string; maxSize: number; maxArchiveSize: number };
  /**
   * Limits on git children: memory (MB of data per process, 0 = none), entries a tree listing
   * reads, and the niceness of background work (archives, commit stats).
   */
  git: { processMemoryLimit: number; maxTreeEntries: number; backgroundNiceness: number; pullRequestPushMessage: boolean };
  /** Seconds a git command may run unless it has its own bound (clones and pushes end with their client). */
  gitTimeout: { default: number };
  database: {
    dbType: 'sqlite3' | 'postgres'; path: string; host: string; name: string; user: string; passwd: string;
    sslMode: string; maxOpenConns: number; logSql: boolean;
  };
  redis: { connStr: string };
  security: {
    secretKey: string; internalToken: string; installLock: boolean; twoFactorAuth: string;
    minPasswordLength: number; loginMaxFailures: number; loginFailureWindow: number;
    /** Gitea's key: ignore `token`/`access_token` in the query string. */
    disableQueryAuthToken: boolean;
    /** No webhooks: their routes answer 403 (admin hooks excepted, as Gitea) and no event is delivered. */
    disableWebhooks: boolean;
    /** Proxies (CIDRs) whose X-Forwarded-For and X-WEBAUTH-USER are believed, and how many hops of them. */
    reverseProxyTrustedProxies: string[]; reverseProxyLimit: number; reverseProxyAuthenticationUser: string;
  };
  service: {
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
  };
  api: {
    enableSwagger: boolean; defaultPagingNum: number; maxResponseItems: number; defaultGitTreesPerPage: number;
    /** Bytes (Gitea's [api] DEFAULT_MAX_BLOB_SIZE and DEFAULT_MAX_RESPONSE_SIZE). */
    defaultMaxBlobSize: number; defaultMaxResponseSize: number;
  };
  /** [ui]: what /settings/ui reports. */
  ui: { defaultTheme: string; reactions: string[]; customEmojis: string[] };
  /** [markup]: line breaks as Gitea's defaults; a document's size cap (bytes) and render time limit (seconds). */
  markup: { enableHardLineBreakInComments: boolean; enableHardLineBreakInDocuments: boolean; maxInputSize: number; renderTimeout: number };
  repository: {
    root: string; maxCreationLimit: number; forcePrivate: boolean; disableForks: boolean;
    /** Gitea's default: forks do not count against MAX_CREATION_LIMIT / max_repo_creation. */
    allowForkWithoutMaximumLimit: boolean;
    /** The largest pack a push may send, in MB (git's receive.maxInputSize; 0 = no limit). */
    maxPushSize: number;
    /** The most refs one push may change (0 = no limit). */
    maxPushRefs: number;
  };
  /** Commit signing: the instance signer's name and email, its key format, and SSH keys trusted for every user. */
  signing: {
    /** The key the server signs its own commits with: 'none', or (format ssh) the path of a private key, (openpgp) a key id. */
    signingKey: string; signingName: string; signingEmail: string; signingFormat: 'openpgp' | 'ssh'; trustedSshKeys: string[];
  };
  /** [repository.upload]: FILE_MAX_SIZE in MB. */
  repositoryUpload: { fileMaxSize: number };
  sshMinimumKeySizes: { ed25519: number; ecdsa: number; rsa: number };
  user: { enableSshKeys: boolean; enableGpgKeys: boolean };
  /** Uploaded files (release assets); MAX_SIZE in MiB, -1 or 0 for no limit. */
  attachment: { enabled: boolean; path: string; allowedTypes: string; maxSize: number; maxFiles: number };
  /** [repository.release]: ALLOWED_TYPES of release assets (empty = any). */
  repositoryRelease: { allowedTypes: string };
  /** [repository.issue]: how many issues (and, apart, pull requests) a repository may pin. */
  repositoryIssue: { maxPinned: number };
  /**
   * [repository.pull-request]: title prefixes that mark a draft; whether merging retargets the pull
   * requests based on the deleted head; the words before an issue reference that close or reopen it.
   */
  repositoryPullRequest: { workInProgressPrefixes: string[]; retargetChildrenOnMerge: boolean; closeKeywords: string[]; reopenKeywords: string[] };
  /** [picture]: where uploaded avatars are kept (default APP_DATA_PATH/avatars). */
  picture: { avatarUploadPath: string };
  /**
   * [webhook]: the hosts hooks may call (Gitea's hostmatcher list), the seconds a delivery may take,
   * TLS verification, the proxy and the hosts that use it, the attempts before a delivery is given
   * up, the seconds before its first retry (each later wait 4.4 times the one before: 8 attempts
   * span about a day), and the history page size.
   */
  webhook: {
    allowedHostList: string; deliverTimeout: number; skipTlsVerify: boolean; proxyUrl: string; proxyHosts: string[];
    maxAttempts: number; retryFirstDelay: number; pagingNum: number;
  };
  /**
   * [cron.cleanup_hook_task_table]: pruning finished deliveries, hourly (and at start with
   * RUN_AT_START), by age (`OlderThan`: older than OLDER_THAN seconds) or by count (`PerWebhook`:
   * all but the newest NUMBER_TO_KEEP of each hook).
   */
  hookTaskCleanup: { enabled: boolean; runAtStart: boolean; cleanupType: string; olderThan: number; numberToKeep: number };
  /**
   * [actions]: whether Actions run at all, where job logs are kept (default APP_DATA_PATH/actions_log),
   * where `uses:` actions come from (`github` or `self`), the seconds after which a silent task, a
   * task running too long and a job never picked are given up, how long a runner's FetchTask may
   * wait for a job, the largest log of one task (bytes), how many days an artifact is kept unless
   * its upload asks for fewer, and how many days a finished task's log is kept. Artifacts live in
   * APP_DATA_PATH/actions_artifacts (`artifactPath`, not a setting).
   */
  actions: {
    enabled: boolean; logPath: string; defaultActionsUrl: string; zombieTaskTimeout: number; endlessTaskTimeout: number;
    abandonedJobTimeout: number; runnerLongPollTimeout: number; maxLogSize: number; artifactRetentionDays: number; logRetentionDays: number;
    artifactPath: string;
  };
  log: { level: string };
  /** Keys found in the ini file or the environment, in sections the forge reads, that it does not know. */
  warnings: string[];
}

function camel(key: string): string {
  return key.toLowerCase().replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/**
 * Load settings from the ini file (if any) and the environment. Throws ConfigError naming the key on a bad value.
 */
export function loadSettings(configPath: string | null, env: NodeJS.ProcessEnv = process.env): Settings {
  let file: Record<string, unknown> = {};
  if (configPath) {
    if (!fs.existsSync(configPath)) throw new ConfigError(`config file ${configPath} does not exist`);
    file = ini.parse(fs.readFileSync(configPath, 'utf8'));
  }
  const out: Record<string, Record<string, unknown>> = {};
  const warnings = unknownKeys(file, env);
  for (const [section, keys] of Object.entries(SPEC)) {
    const fromFile = (section === '' ? file : (file[section] as Record<string, unknown>)) ?? {};
    const target: Record<string, unknown> = {};
    for (const [key, spec] of Object.entries(keys)) {
      const fv = fromFile[key];
      let raw = spec.def;
      if (fv !== undefined && typeof fv !== 'object') raw = String(fv);
      const ev = env[envName(section, key)];
      if (ev !== undefined) raw = ev;
      target[camel(key)] = convert(section, key, spec, raw);
    }
    out[section] = target;
  }
  const s = {
    appName: out[''].appName,
    runMode: out[''].runMode,
    configPath,
    server: out.server,
    database: out.database,
    redis: out.redis,
    security: out.security,
    service: out.service,
    lfs: out.lfs,
    repoArchive: out['repo-archive'],
    git: out.git,
    gitTimeout: out['git.timeout'],
    api: out.api,
    ui: out.ui,
    markup: out.markup,
    repository: out.repository,
    signing: out['repository.signing'],
    repositoryUpload: out['repository.upload'],
    sshMinimumKeySizes: out['ssh.minimum_key_sizes'],
    user: out.user,
    attachment: out.attachment,
    repositoryRelease: out['repository.release'],
    repositoryIssue: out['repository.issue'],
    repositoryPullRequest: out['repository.pull-request'],
    picture: out.picture,
    webhook: out.webhook,
    hookTaskCleanup: out['cron.cleanup_hook_task_table'],
    actions: out.actions,
    log: out.log,
    warnings,
  } as unknown as Settings;

  s.server.appDataPath = path.resolve(s.server.appDataPath);
  if (s.server.sshListenPort === undefined) s.server.sshListenPort = s.server.sshPort;
  if (!s.server.rootUrl) {
    const host = s.server.httpAddr === '0.0.0.0' || s.server.httpAddr === '' ? 'localhost' : s.server.httpAddr;
    s.server.rootUrl = `http://${host}:${s.server.httpPort}/`;
  }
  if (!s.server.rootUrl.endsWith('/')) s.server.rootUrl += '/';
  // why: empty means "this worker's private loopback listener" (src/server.ts sets it at start).
  if (s.server.localRootUrl && !s.server.localRootUrl.endsWith('/')) s.server.localRootUrl += '/';
  if (!s.server.sshDomain) s.server.sshDomain = new URL(s.server.rootUrl).hostname;
  s.server.sshServerHostKeys = s.server.sshServerHostKeys.map((k) => path.resolve(s.server.appDataPath, k));
  if (!s.lfs.path) s.lfs.path = path.join(s.server.appDataPath, 'lfs');
  s.lfs.path = path.resolve(s.lfs.path);
  s.repoArchive.path = path.resolve(s.repoArchive.path || path.join(s.server.appDataPath, 'repo-archive'));
  s.attachment.path = path.resolve(s.server.appDataPath, s.attachment.path || 'attachments');
  s.picture.avatarUploadPath = path.resolve(s.server.appDataPath, s.picture.avatarUploadPath || 'avatars');
  s.actions.logPath = path.resolve(s.server.appDataPath, s.actions.logPath || 'actions_log');
  s.actions.artifactPath = path.resolve(s.server.appDataPath, 'actions_artifacts');
  if (!s.database.path) s.database.path = path.join(s.server.appDataPath, 'forge.db');
  if (!s.repository.root) s.repository.root = path.join(s.server.appDataPath, 'repositories');
  if (s.git.processMemoryLimit !== 0 && s.git.processMemoryLimit < 256) {
    throw new ConfigError(`[git] PROCESS_MEMORY_LIMIT: ${s.git.processMemoryLimit} MB is too small for git and the hooks it runs (0 or at least 256)`);
  }
  if (s.api.defaultPagingNum > s.api.maxResponseItems) {
    throw new ConfigError(`[api] DEFAULT_PAGING_NUM: ${s.api.defaultPagingNum} is larger than MAX_RESPONSE_ITEMS`);
  }
  return s;
}

/** The known key nearest to `key` (a typo of it), if any. */
function nearestKey(key: string, known: string[]): string | null {
  const distance = (a: string, b: string): number => {
    let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
    for (let i = 1; i <= a.length; i++) {
      const row = [i];
      for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = row;
    }
    return prev[b.length];
  };
  let best: string | null = null;
  let bestD = 3;
  for (const k of known) {
    const d = distance(key.toUpperCase(), k);
    if (d < bestD) [best, bestD] = [k, d];
  }
  return best;
}

/**
 * Warnings for keys that sections the forge reads do not have, in the ini file and in
 * FORGE__SECTION__KEY variables, as Gitea warns of unknown keys: a typo is otherwise silently ignored.
 */
function unknownKeys(file: Record<string, unknown>, env: NodeJS.ProcessEnv): string[] {
  const out: string[] = [];
  const warn = (section: string, key: string, where: string) => {
    const known = Object.keys(SPEC[section]);
    const hint = nearestKey(key, known);
    const name = section === '' ? key : `[${section}] ${key}`;
    out.push(`${where}: unknown key ${name} is ignored${hint ? ` (did you mean ${hint}?)` : ''}`);
  };
  for (const [section, keys] of Object.entries(SPEC)) {
    const fromFile = section === '' ? file : file[section];
    if (!fromFile || typeof fromFile !== 'object') continue;
    for (const [key, value] of Object.entries(fromFile as Record<string, unknown>)) {
      if (section === '' && typeof value === 'object') continue;
      if (!(key in keys)) warn(section, key, 'app.ini');
    }
  }
  const sections = new Map(Object.keys(SPEC).map((sec) => [sec === '' ? 'DEFAULT' : sec.toUpperCase().replace(/\./g, '_0X2E_'), sec]));
  for (const name of Object.keys(env)) {
    const m = /^FORGE__(.+?)__(.+)$/.exec(name);
    const section = m ? sections.get(m[1]) : undefined;
    if (m && section !== undefined && !(m[2] in SPEC[section])) warn(section, m[2], name);
  }
  return out;
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
