/**
 * Teams: `/orgs/{org}/teams` (list, create, search), `/teams/{id}` and `/user/teams`.
 */
import type { Request as ExRequest } from 'express';
import { Body, Controller, Delete, Get, Patch, Path, Post, Query, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { CreateTeamOption, EditTeamOption, Organization, Team, TeamSearchResults } from '../api/org';
import type { ApiErrorBody } from '../errors';
import { ctxOf, doerOf, viewerOf } from '../middleware/context';
import { listOptions, setPaging } from '../middleware/paging';
import { toOrganization, toTeam } from '../convert/org';
import { settings } from '../config';
import type { DbContext } from '../db';
import type { TeamModel } from '../models/team.model';
import { listTeamsOfOrg, searchTeams, listTeamsOfUser } from '../models/team.model';
import { findUsersByIds, visibleUsersSql } from '../models/user.model';
import { visibilityScopeOf } from '../services/user/directory.service';
import { resolveOrg, assertOrgOwner, assertOrgMember, resolveTeam, assertTeamOwner } from '../services/org/guard';
import { createTeam, editTeam, deleteTeam, teamUnits } from '../services/org/team.service';

// Convert teams; `orgs` maps an org id to its API object (absent: organization is null).
async function teamsOut(ctx: DbContext, teams: TeamModel[], orgs: Map<number, Organization> | null): Promise<Team[]> {
  const units = await teamUnits(ctx, teams);
  return teams.map((t) => toTeam(t, units.get(t.id)!, orgs?.get(t.orgId) ?? null));
}

@Route('')
@Tags('organization')
export class TeamController extends Controller {
  /** List an organization's teams (members). */
  @Get('orgs/{org}/teams')
  @Security('signed', ['organization'])
  @Response<ApiErrorBody>(403, 'not a member')
  public async orgListTeams(@Path() org: string, @Request() req: ExRequest, @Query() page?: number, @Query() limit?: number): Promise<Team[]> {
    const ctx = ctxOf(req);
    const o = await resolveOrg(ctx, req.principal, org);
    await assertOrgMember(ctx, req.principal, o);
    const opts = listOptions(page, limit);
    const { rows, count } = await listTeamsOfOrg(ctx, o.id, opts.limit, opts.offset);
    setPaging(req, opts, count);
    return teamsOut(ctx, rows, null);
  }

  /** Create a team (owners). */
  @Post('orgs/{org}/teams')
  @Security('signed', ['organization'])
  @SuccessResponse(201, 'Team')
  @Response<ApiErrorBody>(403, 'not an owner')
  @Response<ApiErrorBody>(422, 'validation error')
  public async orgCreateTeam(@Path() org: string, @Body() body: CreateTeamOption, @Request() req: ExRequest): Promise<Team> {
    const ctx = ctxOf(req);
    const o = await resolveOrg(ctx, req.principal, org);
    await assertOrgMember(ctx, req.principal, o);
    await assertOrgOwner(ctx, req.principal, o);
    const team = await createTeam(ctx, o, body);
    this.setStatus(201);
    const [out] = await teamsOut(ctx, [team], new Map([[o.id, toOrganization(o, viewerOf(req), settings().server.rootUrl)]]));
    return out;
  }

  /** Search an organization's teams; callers other than site admins only find teams they are in. */
  @Get('orgs/{org}/teams/search')
  @Security('signed', ['organization'])
  @Response<ApiErrorBody>(403, 'not a member')
  public async teamSearch(
    @Path() org: string, @Request() req: ExRequest, @Query() q?: string, @Query() include_desc?: boolean, @Query() page?: number, @Query() limit?: number,
  ): Promise<TeamSearchResults> {
    const ctx = ctxOf(req);
    const o = await resolveOrg(ctx, req.principal, org);
    await assertOrgMember(ctx, req.principal, o);
    const doer = doerOf(req);
    const opts = listOptions(page, limit);
    const { rows, count } = await searchTeams(ctx, o.id, { keyword: (q ?? '').trim(), includeDesc: include_desc ?? true, memberId: doer.isAdmin ? null : doer.id }, opts.limit, opts.offset);
    setPaging(req, opts, count);
    return { ok: true, data: await teamsOut(ctx, rows, null) };
  }

  /** Get a team with its organization. */
  @Get('teams/{id}')
  @Security('signed', ['organization'])
  @Response<ApiErrorBody>(403, 'not a team member')
  @Response<ApiErrorBody>(404, 'not found')
  public async orgGetTeam(@Path() id: string, @Request() req: ExRequest): Promise<Team> {
    const ctx = ctxOf(req);
    const t = await resolveTeam(ctx, req.principal, id);
    const [out] = await teamsOut(ctx, [t.team], new Map([[t.org.id, toOrganization(t.org, viewerOf(req), settings().server.rootUrl)]]));
    return out;
  }

  /** Edit a team (owners); omitted fields keep their value. */
  @Patch('teams/{id}')
  @Security('signed', ['organization'])
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(422, 'validation error')
  public async orgEditTeam(@Path() id: string, @Body() body: EditTeamOption, @Request() req: ExRequest): Promise<Team> {
    const ctx = ctxOf(req);
    const t = await resolveTeam(ctx, req.principal, id);
    assertTeamOwner(t);
    const team = await editTeam(ctx, t.team, body);
    const [out] = await teamsOut(ctx, [team], new Map([[t.org.id, toOrganization(t.org, viewerOf(req), settings().server.rootUrl)]]));
    return out;
  }

  /** Delete a team (owners); the Owners team cannot be deleted. */
  @Delete('teams/{id}')
  @Security('signed', ['organization'])
  @SuccessResponse(204, 'empty')
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(422, 'the Owners team')
  public async orgDeleteTeam(@Path() id: string, @Request() req: ExRequest): Promise<void> {
    const ctx = ctxOf(req);
    const t = await resolveTeam(ctx, req.principal, id);
    assertTeamOwner(t);
    await deleteTeam(ctx, t.team);
    this.setStatus(204);
  }

  /** List the caller's teams across organizations, each with its organization. */
  @Get('user/teams')
  @Security('signed', ['user', 'organization'])
  public async userListTeams(@Request() req: ExRequest, @Query() page?: number, @Query() limit?: number): Promise<Team[]> {
    const ctx = ctxOf(req);
    const opts = listOptions(page, limit);
    // why: a public-only token sees the teams of public organizations only, as it sees nothing else of the others.
    const scope = req.principal.scopes?.publicOnly ? visibleUsersSql(visibilityScopeOf(req.principal)) : undefined;
    const { rows, count } = await listTeamsOfUser(ctx, doerOf(req).id, opts.limit, opts.offset, scope);
    setPaging(req, opts, count);
    const orgs = await findUsersByIds(ctx, [...new Set(rows.map((t) => t.orgId))]);
    const rootUrl = settings().server.rootUrl;
    return teamsOut(ctx, rows, new Map(orgs.map((o) => [o.id, toOrganization(o, viewerOf(req), rootUrl)])));
  }
}
