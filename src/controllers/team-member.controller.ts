/**
 * Team members and repositories: `/teams/{id}/members` and `/teams/{id}/repos`.
 */
import type { Request as ExRequest } from 'express';
import { Controller, Delete, Get, Path, Put, Query, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { User } from '../api/user';
import type { Repository } from '../api/repo';
import type { ApiErrorBody } from '../errors';
import { NotFound } from '../errors';
import { ctxOf, viewerOf } from '../middleware/context';
import { listOptions, setPaging } from '../middleware/paging';
import { toUser } from '../convert/user';
import { toRepositoryView } from '../convert/repo';
import { settings } from '../config';
import { listTeamMembers, isTeamMember } from '../models/team-user.model';
import { listTeamRepos } from '../models/team-repo.model';
import { lookupUser } from '../services/user/lookup';
import { resolveTeam, assertTeamOwner } from '../services/org/guard';
import { addTeamMember, removeTeamMember, orgRepoByName, teamHasRepo, addTeamRepo, removeTeamRepo } from '../services/org/team.service';
import { viewsOf } from '../services/repo/repo.service';

@Route('teams/{id}')
@Tags('organization')
export class TeamMemberController extends Controller {
  /** List a team's members. */
  @Get('members')
  @Security('signed', ['organization'])
  @Response<ApiErrorBody>(404, 'not found')
  public async orgListTeamMembers(@Path() id: string, @Request() req: ExRequest, @Query() page?: number, @Query() limit?: number): Promise<User[]> {
    const ctx = ctxOf(req);
    const t = await resolveTeam(ctx, req.principal, id);
    if (!t.isOrgMember) throw new NotFound();
    const opts = listOptions(page, limit);
    const { rows, count } = await listTeamMembers(ctx, t.team.id, opts.limit, opts.offset);
    setPaging(req, opts, count);
    return rows.map((u) => toUser(u, viewerOf(req), settings().server.rootUrl));
  }

  /** Get a member of a team; 404 when the user is not in it. */
  @Get('members/{username}')
  @Security('signed', ['organization'])
  @Response<ApiErrorBody>(404, 'not a member')
  public async orgListTeamMember(@Path() id: string, @Path() username: string, @Request() req: ExRequest): Promise<User> {
    const ctx = ctxOf(req);
    const t = await resolveTeam(ctx, req.principal, id);
    const user = await lookupUser(ctx, req.principal, username);
    if (!(await isTeamMember(ctx, t.team.id, user.id))) throw new NotFound(`user is not a member of the team [name: ${username}]`);
    return toUser(user, viewerOf(req), settings().server.rootUrl);
  }

  /** Add a user to a team (owners); the user joins the organization. */
  @Put('members/{username}')
  @Security('signed', ['organization'])
  @SuccessResponse(204, 'empty')
  @Response<ApiErrorBody>(403, 'user is blocked')
  @Response<ApiErrorBody>(404, 'not found')
  public async orgAddTeamMember(@Path() id: string, @Path() username: string, @Request() req: ExRequest): Promise<void> {
    const ctx = ctxOf(req);
    const t = await resolveTeam(ctx, req.principal, id);
    assertTeamOwner(t);
    await addTeamMember(ctx, t.team, await lookupUser(ctx, req.principal, username));
    this.setStatus(204);
  }

  /** Remove a user from a team (owners); the Owners team keeps its last member. */
  @Delete('members/{username}')
  @Security('signed', ['organization'])
  @SuccessResponse(204, 'empty')
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(422, 'last owner')
  public async orgRemoveTeamMember(@Path() id: string, @Path() username: string, @Request() req: ExRequest): Promise<void> {
    const ctx = ctxOf(req);
    const t = await resolveTeam(ctx, req.principal, id);
    assertTeamOwner(t);
    await removeTeamMember(ctx, t.team, await lookupUser(ctx, req.principal, username));
    this.setStatus(204);
  }

  /** List a team's repositories. */
  @Get('repos')
  @Security('signed', ['organization'])
  @Response<ApiErrorBody>(404, 'not found')
  public async orgListTeamRepos(@Path() id: string, @Request() req: ExRequest, @Query() page?: number, @Query() limit?: number): Promise<Repository[]> {
    const ctx = ctxOf(req);
    const t = await resolveTeam(ctx, req.principal, id);
    const opts = listOptions(page, limit);
    const { rows, count } = await listTeamRepos(ctx, t.team, opts.limit, opts.offset);
    setPaging(req, opts, count);
    const s = settings().server;
    // why: the views carry each repository's units and the caller's permissions, so has_* and permissions are real.
    return (await viewsOf(ctx, req.principal, rows.map((repo) => ({ repo, owner: t.org })))).map((v) => toRepositoryView(v, viewerOf(req), s.rootUrl));
  }

  /** Get a repository of the team; `{org}` is ignored, the repository is looked up in the team's organization. */
  @Get('repos/{org}/{repo}')
  @Security('signed', ['organization'])
  @Response<ApiErrorBody>(404, 'not found')
  public async orgListTeamRepo(@Path() id: string, @Path() org: string, @Path() repo: string, @Request() req: ExRequest): Promise<Repository> {
    void org;
    const ctx = ctxOf(req);
    const t = await resolveTeam(ctx, req.principal, id);
    const r = await orgRepoByName(ctx, t.org, repo);
    if (!(await teamHasRepo(ctx, t.team, r))) throw new NotFound(`repository is not in the team [name: ${repo}]`);
    const s = settings().server;
    return toRepositoryView((await viewsOf(ctx, req.principal, [{ repo: r, owner: t.org }]))[0], viewerOf(req), s.rootUrl);
  }

  /** Add a repository to a team; needs admin access to the repository. */
  @Put('repos/{org}/{repo}')
  @Security('signed', ['organization'])
  @SuccessResponse(204, 'empty')
  @Response<ApiErrorBody>(403, 'no admin access to the repository')
  @Response<ApiErrorBody>(404, 'not found')
  public async orgAddTeamRepository(@Path() id: string, @Path() org: string, @Path() repo: string, @Request() req: ExRequest): Promise<void> {
    void org;
    const ctx = ctxOf(req);
    const t = await resolveTeam(ctx, req.principal, id);
    await addTeamRepo(ctx, req.principal, t.team, t.org, await orgRepoByName(ctx, t.org, repo));
    this.setStatus(204);
  }

  /** Remove a repository from a team; needs admin access to the repository. */
  @Delete('repos/{org}/{repo}')
  @Security('signed', ['organization'])
  @SuccessResponse(204, 'empty')
  @Response<ApiErrorBody>(403, 'no admin access to the repository')
  @Response<ApiErrorBody>(404, 'not found')
  public async orgRemoveTeamRepository(@Path() id: string, @Path() org: string, @Path() repo: string, @Request() req: ExRequest): Promise<void> {
    void org;
    const ctx = ctxOf(req);
    const t = await resolveTeam(ctx, req.principal, id);
    await removeTeamRepo(ctx, req.principal, t.team, t.org, await orgRepoByName(ctx, t.org, repo));
    this.setStatus(204);
  }
}
