/**
 * A repository's teams: `/repos/{owner}/{repo}/teams` (list) and `/teams/{team}` (check, add,
 * remove), for repositories of organizations.
 */
import type { Request as ExRequest } from 'express';
import { Controller, Delete, Get, Path, Put, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { Team } from '../api/org';
import type { ApiErrorBody } from '../errors';
import { ctxOf, doerOf } from '../middleware/context';
import { toTeam } from '../convert/org';
import type { DbContext } from '../db';
import type { TeamModel } from '../models/team.model';
import { repoAssignment } from '../services/repo/context';
import { assertRepoAdmin } from '../services/repo/repo.service';
import { teamUnits } from '../services/org/team.service';
import { addRepoTeam, listRepoTeams, removeRepoTeam, repoTeam } from '../services/org/repo-team.service';

// why: as Gitea's ToTeams without its organization, the teams of a repository carry `organization: null`.
async function teamsOut(ctx: DbContext, teams: TeamModel[]): Promise<Team[]> {
  const units = await teamUnits(ctx, teams);
  return teams.map((t) => toTeam(t, units.get(t.id)!, null));
}

@Route('repos/{owner}/{repo}/teams')
@Tags('repository')
export class RepoTeamController extends Controller {
  /** List a repository's teams. */
  @Get()
  @Security('signed', ['repository'])
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(405, 'repo is not owned by an organization')
  public async repoListTeams(@Path() owner: string, @Path() repo: string, @Request() req: ExRequest): Promise<Team[]> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    return teamsOut(ctx, await listRepoTeams(ctx, rc));
  }

  /** Check if a team is assigned to a repository: the team, or 404. */
  @Get('{team}')
  @Security('signed', ['repository'])
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(405, 'repo is not owned by an organization')
  public async repoCheckTeam(@Path() owner: string, @Path() repo: string, @Path() team: string, @Request() req: ExRequest): Promise<Team> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    const [out] = await teamsOut(ctx, [await repoTeam(ctx, rc, team)]);
    return out;
  }

  /** Add a team to a repository (repository admins; organization owners unless repository admins may change team access). */
  @Put('{team}')
  @Security('signed', ['repository'])
  @SuccessResponse(204, 'empty')
  @Response<ApiErrorBody>(403, 'not allowed')
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(405, 'repo is not owned by an organization')
  @Response<ApiErrorBody>(422, 'the team is already added')
  public async repoAddTeam(@Path() owner: string, @Path() repo: string, @Path() team: string, @Request() req: ExRequest): Promise<void> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    assertRepoAdmin(rc);
    await addRepoTeam(ctx, doerOf(req), rc, team);
    this.setStatus(204);
  }

  /** Delete a team from a repository (same rules as adding; a team that includes every repository stays). */
  @Delete('{team}')
  @Security('signed', ['repository'])
  @SuccessResponse(204, 'empty')
  @Response<ApiErrorBody>(403, 'not allowed')
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(405, 'repo is not owned by an organization')
  @Response<ApiErrorBody>(422, 'the team was not added, or includes every repository')
  public async repoDeleteTeam(@Path() owner: string, @Path() repo: string, @Path() team: string, @Request() req: ExRequest): Promise<void> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    assertRepoAdmin(rc);
    await removeRepoTeam(ctx, doerOf(req), rc, team);
    this.setStatus(204);
  }
}
