/**
 * A repository's teams (`/repos/{owner}/{repo}/teams`), as Gitea 1.24 answers them: only for
 * repositories of an organization (405 otherwise); teams named in the path, case-insensitively.
 * Adding or removing a team needs a repository admin (the controller checks it first, as Gitea's
 * reqAdmin), and an organization owner unless the organization lets repository admins change team
 * access. Every refusal is decided before anything is written.
 */
import type { DbContext } from '../../db';
import { Forbidden, MethodNotAllowed, NotFound, Validation } from '../../errors';
import { UserType, type UserModel } from '../../models/user.model';
import { findTeamByName, listTeamsOfRepo, type TeamModel } from '../../models/team.model';
import { deleteTeamRepo, insertTeamRepo } from '../../models/team-repo.model';
import type { RepoContext } from '../repo/context';
import { membershipOf } from './guard';
import { teamHasRepo } from './team.service';

function assertOrgRepo(rc: RepoContext): void {
  if (rc.owner.type !== UserType.Organization) throw new MethodNotAllowed('repo is not owned by an organization');
}

/** The organization's team named `name` (404 in Gitea's words when there is none). */
async function teamNamed(ctx: DbContext, rc: RepoContext, name: string): Promise<TeamModel> {
  const team = await findTeamByName(ctx, rc.owner.id, name);
  if (!team) throw new NotFound(`team does not exist [org_id ${rc.owner.id}, team_id 0, name: ${name}]`);
  return team;
}

/** The teams that reach the repository, the Owners team first. */
export async function listRepoTeams(ctx: DbContext, rc: RepoContext): Promise<TeamModel[]> {
  assertOrgRepo(rc);
  return listTeamsOfRepo(ctx, rc.owner.id, rc.repo.id);
}

/** The named team when it reaches the repository; 404 when it does not (or does not exist). */
export async function repoTeam(ctx: DbContext, rc: RepoContext, name: string): Promise<TeamModel> {
  assertOrgRepo(rc);
  const team = await teamNamed(ctx, rc, name);
  if (!(await teamHasRepo(ctx, team, rc.repo))) throw new NotFound();
  return team;
}

/** Gitea's check for changing a repository's teams: repository admins when the organization allows it, else its owners. */
async function assertMayChangeTeams(ctx: DbContext, doer: UserModel, rc: RepoContext): Promise<void> {
  if (rc.owner.repoAdminChangeTeamAccess || doer.isAdmin) return;
  if ((await membershipOf(ctx, rc.owner.id, doer.id)) !== 'owner') throw new Forbidden('user is nor repo admin nor owner');
}

/** Give a team access to the repository; 422 when it has it already. */
export async function addRepoTeam(ctx: DbContext, doer: UserModel, rc: RepoContext, name: string): Promise<void> {
  assertOrgRepo(rc);
  await assertMayChangeTeams(ctx, doer, rc);
  const team = await teamNamed(ctx, rc, name);
  if (await teamHasRepo(ctx, team, rc.repo)) throw new Validation(`team '${team.name}' is already added to repo`);
  await insertTeamRepo(ctx, team.orgId, team.id, rc.repo.id);
}

/**
 * Take a team's access to the repository away; 422 when it has none, or when it reaches every
 * repository of the organization (the Owners team always does): Gitea answers that one 204 and
 * changes nothing, the forge says why nothing changed.
 */
export async function removeRepoTeam(ctx: DbContext, doer: UserModel, rc: RepoContext, name: string): Promise<void> {
  assertOrgRepo(rc);
  await assertMayChangeTeams(ctx, doer, rc);
  const team = await teamNamed(ctx, rc, name);
  if (!(await teamHasRepo(ctx, team, rc.repo))) throw new Validation(`team '${team.name}' was not added to repo`);
  if (team.includesAllRepositories) throw new Validation(`team '${team.name}' includes all repositories of the organization and cannot be removed from one`);
  await deleteTeamRepo(ctx, team.id, rc.repo.id);
}
