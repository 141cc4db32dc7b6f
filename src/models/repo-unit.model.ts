/** An enabled unit of a repository (code, issues, pulls ...), with its JSON config. */
import { Table, Column, Model, DataType } from 'sequelize-typescript';
import type { DbContext } from '../db';
import { TableCache } from './table-cache';

@Table({ tableName: 'repo_unit', underscored: true, timestamps: true })
export class RepoUnitModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare repoId: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare type: number;
  @Column({ type: DataType.TEXT, allowNull: false, defaultValue: '{}' }) declare config: string;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare anonymousAccessMode: number;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare everyoneAccessMode: number;
}

/**
 * The pull-request unit's settings, stored in repo_unit.config as JSON with Gitea's field names
 * (its PullRequestsConfig), so the rows read the same as Gitea's.
 */
export interface PullRequestsConfig {
  IgnoreWhitespaceConflicts: boolean;
  AllowMerge: boolean;
  AllowRebase: boolean;
  AllowRebaseMerge: boolean;
  AllowSquash: boolean;
  AllowFastForwardOnly: boolean;
  AllowManualMerge: boolean;
  AutodetectManualMerge: boolean;
  AllowRebaseUpdate: boolean;
  DefaultDeleteBranchAfterMerge: boolean;
  DefaultMergeStyle: string;
  DefaultAllowMaintainerEdit: boolean;
}

/** What a repository's pull-request unit starts with when the repository is created (as Gitea). */
export const NEW_REPO_PULLS_CONFIG: PullRequestsConfig = {
  IgnoreWhitespaceConflicts: false, AllowMerge: true, AllowRebase: true, AllowRebaseMerge: true, AllowSquash: true,
  AllowFastForwardOnly: true, AllowManualMerge: false, AutodetectManualMerge: false, AllowRebaseUpdate: true,
  DefaultDeleteBranchAfterMerge: false, DefaultMergeStyle: 'merge', DefaultAllowMaintainerEdit: false,
};

/**
 * The settings stored in a config text; keys that are missing (rows written before the settings
 * were stored hold `{}`) take the values a new repository starts with.
 */
export function parsePullsConfig(json: string): PullRequestsConfig {
  let stored: Record<string, unknown> = {};
  try {
    const v: unknown = JSON.parse(json);
    if (v && typeof v === 'object' && !Array.isArray(v)) stored = v as Record<string, unknown>;
  } catch { /* unreadable config: defaults */ }
  const out: Record<string, unknown> = { ...NEW_REPO_PULLS_CONFIG };
  for (const [k, def] of Object.entries(NEW_REPO_PULLS_CONFIG)) {
    if (typeof stored[k] === typeof def && !(k === 'DefaultMergeStyle' && stored[k] === '')) out[k] = stored[k];
  }
  return out as unknown as PullRequestsConfig;
}

const configCache = new TableCache<string | null>('repo-unit-config', ['repo_unit']);

/** The config text of an enabled unit, or null when the unit is disabled. */
export function unitConfigOf(ctx: DbContext, repoId: number, type: number): Promise<string | null> {
  return configCache.get(ctx, `${repoId}/${type}`, async () => {
    const row = await RepoUnitModel.findOne({ where: { repoId, type }, attributes: ['config'], transaction: ctx.tx });
    return row ? row.config : null;
  });
}

/** Store the config text of an enabled unit. */
export async function setUnitConfig(ctx: DbContext, repoId: number, type: number, config: string): Promise<void> {
  await RepoUnitModel.update({ config }, { where: { repoId, type }, transaction: ctx.tx });
}

/** The issues unit's settings (Gitea's IssuesConfig), stored in its config as JSON. */
export interface IssuesConfig { EnableTimetracker: boolean; AllowOnlyContributorsToTrackTime: boolean; EnableDependencies: boolean }

/** The external tracker unit's settings (Gitea's ExternalTrackerConfig). */
export interface ExternalTrackerConfig {
  ExternalTrackerURL: string; ExternalTrackerFormat: string; ExternalTrackerStyle: string; ExternalTrackerRegexpPattern: string;
}

function storedObject(json: string | null): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(json ?? '{}');
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** The issues unit's settings; keys not stored take `defaults` (the instance's [service] DEFAULT_* values). */
export function parseIssuesConfig(json: string | null, defaults: IssuesConfig): IssuesConfig {
  const stored = storedObject(json);
  const pick = (k: keyof IssuesConfig) => (typeof stored[k] === 'boolean' ? (stored[k] as boolean) : defaults[k]);
  return { EnableTimetracker: pick('EnableTimetracker'), AllowOnlyContributorsToTrackTime: pick('AllowOnlyContributorsToTrackTime'), EnableDependencies: pick('EnableDependencies') };
}

/** The external tracker's settings. */
export function parseExternalTrackerConfig(json: string | null): ExternalTrackerConfig {
  const stored = storedObject(json);
  const str = (k: keyof ExternalTrackerConfig) => (typeof stored[k] === 'string' ? (stored[k] as string) : '');
  return {
    ExternalTrackerURL: str('ExternalTrackerURL'), ExternalTrackerFormat: str('ExternalTrackerFormat'),
    ExternalTrackerStyle: str('ExternalTrackerStyle') || 'numeric', ExternalTrackerRegexpPattern: str('ExternalTrackerRegexpPattern'),
  };
}

/** Which projects a repository's issues may join (Gitea's ProjectsMode): its own, its owner's, both, or none. */
export type ProjectsMode = 'repo' | 'owner' | 'all' | 'none';

/** The modes the projects unit takes. */
export const PROJECTS_MODES: readonly ProjectsMode[] = ['repo', 'owner', 'all', 'none'];

/** The projects unit's mode stored in its config (Gitea's ProjectsConfig); `all` when none is stored, as Gitea's GetProjectsMode. */
export function parseProjectsMode(json: string | null): ProjectsMode {
  const v = storedObject(json).ProjectsMode;
  return typeof v === 'string' && (PROJECTS_MODES as readonly string[]).includes(v) ? v as ProjectsMode : 'all';
}
