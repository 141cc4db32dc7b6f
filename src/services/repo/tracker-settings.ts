/**
 * A repository's built-in tracker settings (the issues unit's config): time tracking, who may
 * track time, dependencies; missing keys take the instance's [service] defaults.
 */
import type { DbContext } from '../../db';
import { settings } from '../../config';
import { UnitType } from '../../models/perm';
import { parseIssuesConfig, unitConfigOf, type IssuesConfig } from '../../models/repo-unit.model';

/** What a repository's tracker starts with ([service] DEFAULT_*). */
export function trackerDefaults(): IssuesConfig {
  const s = settings().service;
  return {
    EnableTimetracker: s.defaultEnableTimetracking, AllowOnlyContributorsToTrackTime: s.defaultAllowOnlyContributorsToTrackTime,
    EnableDependencies: s.defaultEnableDependencies,
  };
}

/** The tracker settings of a repository (defaults when its issues unit is off). */
export async function trackerConfigOf(ctx: DbContext, repoId: number): Promise<IssuesConfig> {
  return parseIssuesConfig(await unitConfigOf(ctx, repoId, UnitType.Issues), trackerDefaults());
}

/** Is time tracking on for the repository: on the instance and in its tracker settings. */
export async function timetrackerEnabled(ctx: DbContext, repoId: number): Promise<boolean> {
  return settings().service.enableTimetracking && (await trackerConfigOf(ctx, repoId)).EnableTimetracker;
}

/** Are issue dependencies on for the repository? */
export async function dependenciesEnabled(ctx: DbContext, repoId: number): Promise<boolean> {
  return (await trackerConfigOf(ctx, repoId)).EnableDependencies;
}
