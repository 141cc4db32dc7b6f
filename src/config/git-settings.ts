/** [git] and [git.timeout] (Gitea's git.go): what git children may use and how long they may run. (Not git.ts: the lint forbids this layer importing a path named git.) */
import { ConfigError } from './errors';
import { section } from './spec';

/**
 * Limits on git children: memory (MB of data per process, 0 = none), entries a tree listing
 * reads, and the niceness of background work (archives, commit stats).
 */
export interface GitSettings { processMemoryLimit: number; maxTreeEntries: number; backgroundNiceness: number; pullRequestPushMessage: boolean }

/** Seconds a git command may run unless it has its own bound (clones and pushes end with their client); a migration's clone and a mirror's fetch or push have their own. */
export interface GitTimeoutSettings { default: number; migrate: number; mirror: number }

/** [git]. */
export const gitSection = section<GitSettings>('git', {
  PROCESS_MEMORY_LIMIT: { kind: 'int', def: '4096', min: 0, max: 1e9 },
  MAX_TREE_ENTRIES: { kind: 'int', def: '100000', min: 1, max: 1e9 },
  BACKGROUND_NICENESS: { kind: 'int', def: '19', min: 0, max: 19 },
  PULL_REQUEST_PUSH_MESSAGE: { kind: 'bool', def: 'true' },
});

/** [git.timeout]. */
export const gitTimeoutSection = section<GitTimeoutSettings>('git.timeout', {
  DEFAULT: { kind: 'int', def: '360', min: 1, max: 1e7 },
  MIGRATE: { kind: 'int', def: '600', min: 1, max: 1e7 },
  MIRROR: { kind: 'int', def: '300', min: 1, max: 1e7 },
});

/** Refuse a memory limit git cannot run under. */
export function checkGit(git: GitSettings): void {
  if (git.processMemoryLimit !== 0 && git.processMemoryLimit < 256) {
    throw new ConfigError(`[git] PROCESS_MEMORY_LIMIT: ${git.processMemoryLimit} MB is too small for git and the hooks it runs (0 or at least 256)`);
  }
}
