/**
 * Repository collaborators: list, check, add or change (repository admins), remove, a user's
 * permission on the repository, and who may be assigned to issues or asked for reviews.
 */
import type { Request as ExRequest } from 'express';
import { Body, Controller, Delete, Get, Path, Put, Query, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { User } from '../api/user';
import type { AddCollaboratorOption, RepoCollaboratorPermission } from '../api/social';
import type { ApiErrorBody } from '../errors';
import { NotFound } from '../errors';
import { ctxOf, doerOf, viewerOf } from '../middleware/context';
import { listOptions, setPaging } from '../middleware/paging';
import { toUser } from '../convert/user';
import { toCollaboratorPermission } from '../convert/social';
import { settings } from '../config';
import { repoAssignment } from '../services/repo/context';
import { reviewerCandidates } from '../services/pull/review-request.service';
import {
  listCollaborators, isCollaborator, addOrUpdateCollaborator, removeCollaborator, permissionOf, collaboratorUser, assigneesOf,
} from '../services/repo/collaborator.service';

@Route('repos/{owner}/{repo}')
@Tags('repository')
export class CollaboratorController extends Controller {
  /** The repository's collaborators. */
  @Get('collaborators')
  @Security('public', ['repository'])
  @Response<ApiErrorBody>(404, 'not found')
  public async repoListCollaborators(@Path() owner: string, @Path() repo: string, @Request() req: ExRequest, @Query() page?: number, @Query() limit?: number): Promise<User[]> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    const opts = listOptions(page, limit);
    const { rows, count } = await listCollaborators(ctx, rc, opts.limit, opts.offset);
    setPaging(req, opts, count);
    return rows.map((u) => toUser(u, viewerOf(req), settings().server.rootUrl));
  }

  /** Whether a user is a collaborator: 204 yes, 404 no. */
  @Get('collaborators/{collaborator}')
  @Security('public', ['repository'])
  @SuccessResponse(204, 'collaborator')
  @Response<ApiErrorBody>(404, 'not a collaborator')
  @Response<ApiErrorBody>(422, 'no such user')
  public async repoCheckCollaborator(@Path() owner: string, @Path() repo: string, @Path() collaborator: string, @Request() req: ExRequest): Promise<void> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    if (!(await isCollaborator(ctx, rc, await collaboratorUser(ctx, collaborator)))) throw new NotFound();
    this.setStatus(204);
  }

  /** Add a collaborator or change its permission (repository admins). */
  @Put('collaborators/{collaborator}')
  @Security('signed', ['repository'])
  @SuccessResponse(204, 'empty')
  @Response<ApiErrorBody>(403, 'not a repository admin, or user is blocked')
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(422, 'no such user or invalid permission')
  public async repoAddCollaborator(
    @Path() owner: string, @Path() repo: string, @Path() collaborator: string, @Request() req: ExRequest, @Body() body?: AddCollaboratorOption,
  ): Promise<void> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    await addOrUpdateCollaborator(ctx, rc, await collaboratorUser(ctx, collaborator), body?.permission);
    this.setStatus(204);
  }

  /** Remove a collaborator (repository admins). */
  @Delete('collaborators/{collaborator}')
  @Security('signed', ['repository'])
  @SuccessResponse(204, 'empty')
  @Response<ApiErrorBody>(403, 'not a repository admin')
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(422, 'no such user')
  public async repoDeleteCollaborator(@Path() owner: string, @Path() repo: string, @Path() collaborator: string, @Request() req: ExRequest): Promise<void> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    await removeCollaborator(ctx, rc, await collaboratorUser(ctx, collaborator));
    this.setStatus(204);
  }

  /** A user's permission on the repository (admins: anyone; others: themselves). */
  @Get('collaborators/{collaborator}/permission')
  @Security('signed', ['repository'])
  @Response<ApiErrorBody>(403, 'may not query this user')
  @Response<ApiErrorBody>(404, 'not found')
  public async repoGetRepoPermissions(@Path() owner: string, @Path() repo: string, @Path() collaborator: string, @Request() req: ExRequest): Promise<RepoCollaboratorPermission> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    const { user, mode } = await permissionOf(ctx, req.principal, rc, collaborator);
    return toCollaboratorPermission(user, mode, viewerOf(req), settings().server.rootUrl);
  }

  /** The users who may be asked to review pull requests (callers who may choose reviewers). */
  @Get('reviewers')
  @Security('signed', ['repository'])
  @Response<ApiErrorBody>(403, 'may not choose reviewers')
  @Response<ApiErrorBody>(404, 'not found')
  public async repoGetReviewers(@Path() owner: string, @Path() repo: string, @Request() req: ExRequest): Promise<User[]> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    const users = await reviewerCandidates(ctx, req.principal, doerOf(req), rc);
    return users.map((u) => toUser(u, viewerOf(req), settings().server.rootUrl));
  }

  /** The users who may be assigned to issues (write access). */
  @Get('assignees')
  @Security('public', ['repository'])
  @Response<ApiErrorBody>(404, 'not found')
  public async repoGetAssignees(@Path() owner: string, @Path() repo: string, @Request() req: ExRequest): Promise<User[]> {
    const ctx = ctxOf(req);
    const users = await assigneesOf(ctx, await repoAssignment(ctx, req.principal, owner, repo));
    return users.map((u) => toUser(u, viewerOf(req), settings().server.rootUrl));
  }
}
