/**
 * [packages] (Gitea's packages.go): whether the registries run, where their blobs are kept
 * (STORAGE_PATH or PATH, default APP_DATA_PATH/packages), and the quotas: versions per owner,
 * bytes per owner, and the largest file per package type, each -1 for no limit. Sizes read as
 * Gitea reads them (`500 MiB`, `2 GB`); whether uploaded RPMs are signed by default.
 * [cron.cleanup_packages] removes blobs no file uses.
 */
import path from 'node:path';
import { section } from './spec';

/** The package types this forge serves, by Gitea's names. */
export const PACKAGE_TYPES = ['alpine', 'cran', 'debian', 'go', 'rpm'] as const;

/** One of PACKAGE_TYPES. */
export type PackageType = typeof PACKAGE_TYPES[number];

/** [packages]. */
export interface PackagesSettings {
  enabled: boolean; path: string; limitTotalOwnerCount: number; limitTotalOwnerSize: number;
  /** Sign every uploaded RPM with the owner's key, as `?sign=true` does (DEFAULT_RPM_SIGN_ENABLED). */
  defaultRpmSignEnabled: boolean;
  /** LIMIT_SIZE_<TYPE> by type (-1: none). */
  limitSize: Record<PackageType, number>;
}

/** [cron.cleanup_packages]: whether it runs, how often (seconds), and how old an unused blob must be (seconds) before it goes. */
export interface CleanupPackagesSettings { enabled: boolean; schedule: number; olderThan: number }

const size = { kind: 'bytes' as const, def: '-1', min: -1 };

/** [packages]; the per-type limits are read into `limitSize` by resolvePackages. */
export const packagesSection = section<PackagesSettings>('packages', {
  ENABLED: { kind: 'bool', def: 'true' },
  PATH: { kind: 'string', def: '' },
  DEFAULT_RPM_SIGN_ENABLED: { kind: 'bool', def: 'false' },
  LIMIT_TOTAL_OWNER_COUNT: { kind: 'int', def: '-1', min: -1, max: Number.MAX_SAFE_INTEGER },
  LIMIT_TOTAL_OWNER_SIZE: size,
  ...Object.fromEntries(PACKAGE_TYPES.map((t) => [`LIMIT_SIZE_${t.toUpperCase()}`, size])),
});

/** [cron.cleanup_packages]. why: SCHEDULE is a duration here (Gitea's `@midnight` is written `24h`). */
export const cleanupPackagesSection = section<CleanupPackagesSettings>('cron.cleanup_packages', {
  ENABLED: { kind: 'bool', def: 'true' },
  SCHEDULE: { kind: 'duration', def: '24h', min: 1, max: 30 * 86400 },
  OLDER_THAN: { kind: 'duration', def: '24h', min: 0, max: 3650 * 86400 },
});

/** Gather the per-type limits (read as `limitSizeGo`...) and make the blob path absolute. */
export function resolvePackages(appDataPath: string, p: PackagesSettings): void {
  const read = p as unknown as Record<string, number>;
  p.limitSize = Object.fromEntries(PACKAGE_TYPES.map((t) => [t, read[`limitSize${t[0].toUpperCase()}${t.slice(1)}`]])) as Record<PackageType, number>;
  p.path = path.resolve(appDataPath, p.path || 'packages');
}
