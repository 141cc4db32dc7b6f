/**
 * [repository] and its sub-sections (Gitea's repository.go): where repositories live, creation and
 * push limits, commit signing, uploads, release assets, pins and pull request keywords.
 */
import path from 'node:path';
import { section } from './spec';

/** [repository]. */
export interface RepositorySettings {
  root: string; maxCreationLimit: number; forcePrivate: boolean; disableForks: boolean;
  /** Gitea's default: forks do not count against MAX_CREATION_LIMIT / max_repo_creation. */
  allowForkWithoutMaximumLimit: boolean;
  /** The largest pack a push may send, in MB (git's receive.maxInputSize; 0 = no limit). */
  maxPushSize: number;
  /** The most refs one push may change (0 = no limit). */
  maxPushRefs: number;
  /** No migrations: POST /repos/migrate answers 403. */
  disableMigrations: boolean;
}

/** Commit signing: the instance signer's name and email, its key format, and SSH keys trusted for every user. */
export interface SigningSettings {
  /** The key the server signs its own commits with: 'none', or (format ssh) the path of a private key, (openpgp) a key id. */
  signingKey: string; signingName: string; signingEmail: string; signingFormat: 'openpgp' | 'ssh'; trustedSshKeys: string[];
}

/** [repository.upload]: FILE_MAX_SIZE in MB. */
export interface RepositoryUploadSettings { fileMaxSize: number }

/** [repository.release]: ALLOWED_TYPES of release assets (empty = any). */
export interface RepositoryReleaseSettings { allowedTypes: string }

/** [repository.issue]: how many issues (and, apart, pull requests) a repository may pin. */
export interface RepositoryIssueSettings { maxPinned: number }

/**
 * [repository.pull-request]: title prefixes that mark a draft; whether merging retargets the pull
 * requests based on the deleted head; the words before an issue reference that close or reopen it.
 */
export interface RepositoryPullRequestSettings { workInProgressPrefixes: string[]; retargetChildrenOnMerge: boolean; closeKeywords: string[]; reopenKeywords: string[] }

/** [repository]. */
export const repositorySection = section<RepositorySettings>('repository', {
  ROOT: { kind: 'string', def: '' },
  MAX_CREATION_LIMIT: { kind: 'int', def: '-1', min: -1, max: 1e9 },
  FORCE_PRIVATE: { kind: 'bool', def: 'false' },
  DISABLE_FORKS: { kind: 'bool', def: 'false' },
  ALLOW_FORK_WITHOUT_MAXIMUM_LIMIT: { kind: 'bool', def: 'true' },
  MAX_PUSH_SIZE: { kind: 'int', def: '2048', min: 0, max: 1e9 },
  MAX_PUSH_REFS: { kind: 'int', def: '5000', min: 0, max: 1e9 },
  DISABLE_MIGRATIONS: { kind: 'bool', def: 'false' },
});

/** [repository.signing]. */
export const signingSection = section<SigningSettings>('repository.signing', {
  SIGNING_KEY: { kind: 'string', def: 'none' },
  SIGNING_NAME: { kind: 'string', def: '' },
  SIGNING_EMAIL: { kind: 'string', def: '' },
  SIGNING_FORMAT: { kind: 'string', def: 'openpgp', oneOf: ['openpgp', 'ssh'] },
  TRUSTED_SSH_KEYS: { kind: 'list', def: '', keepCase: true },
});

/** [repository.upload]. why: Gitea's key for the largest uploaded file (MB); the contents API applies it to each file it commits. */
export const repositoryUploadSection = section<RepositoryUploadSettings>('repository.upload', { FILE_MAX_SIZE: { kind: 'int', def: '50', min: 1, max: 1e6 } });

/** [repository.release]. */
export const repositoryReleaseSection = section<RepositoryReleaseSettings>('repository.release', { ALLOWED_TYPES: { kind: 'string', def: '' } });

/** [repository.issue]. */
export const repositoryIssueSection = section<RepositoryIssueSettings>('repository.issue', { MAX_PINNED: { kind: 'int', def: '3', min: 0, max: 1e6 } });

/** [repository.pull-request]. */
export const repositoryPullRequestSection = section<RepositoryPullRequestSettings>('repository.pull-request', {
  WORK_IN_PROGRESS_PREFIXES: { kind: 'list', def: 'WIP:,[WIP]', keepCase: true },
  RETARGET_CHILDREN_ON_MERGE: { kind: 'bool', def: 'true' },
  CLOSE_KEYWORDS: { kind: 'list', def: 'close,closes,closed,fix,fixes,fixed,resolve,resolves,resolved' },
  REOPEN_KEYWORDS: { kind: 'list', def: 'reopen,reopens,reopened' },
});

/** Repositories live under APP_DATA_PATH/repositories unless ROOT says otherwise. */
export function resolveRepository(appDataPath: string, repository: RepositorySettings): void {
  if (!repository.root) repository.root = path.join(appDataPath, 'repositories');
}
