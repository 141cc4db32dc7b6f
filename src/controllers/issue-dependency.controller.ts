/** Dependencies between issues: the issues blocking one (`dependencies`) and the ones it blocks (`blocks`). */
import type { Request as ExRequest } from 'express';
import { Body, Controller, Delete, Get, Path, Post, Query, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { Issue, IssueMeta } from '../api/issue';
import type { ApiErrorBody } from '../errors';
import { ctxOf, viewerOf } from '../middleware/context';
import { listOptions } from '../middleware/paging';
import { toIssueOf } from '../convert/issue';
import { repoAssignment } from '../services/repo/context';
import { changeDependency, listDependencies } from '../services/issue/dependency.service';

@Route('repos/{owner}/{repo}/issues/{index}')
@Tags('issue')
export class IssueDependencyController extends Controller {
  private async list(req: ExRequest, owner: string, repo: string, index: number, side: 'blockers' | 'blocked', page?: number, limit?: number): Promise<Issue[]> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    const views = await listDependencies(ctx, req.principal, rc, index, side, listOptions(page, limit));
    return views.map((v) => toIssueOf(v, viewerOf(req)));
  }

  private async change(req: ExRequest, owner: string, repo: string, index: number, meta: IssueMeta, side: 'blockers' | 'blocked', add: boolean): Promise<Issue> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    const v = await changeDependency(ctx, req.principal, rc, index, meta, side, add);
    // why: Gitea answers 201 for removals too.
    this.setStatus(201);
    return toIssueOf(v, viewerOf(req));
  }

  /** The issues that block this one (readable ones, same repository first). */
  @Get('dependencies')
  @Security('public', ['issue'])
  @Response<ApiErrorBody>(404, 'not found or dependencies disabled')
  public async issueListIssueDependencies(
    @Path() owner: string, @Path() repo: string, @Path() index: number, @Request() req: ExRequest, @Query() page?: number, @Query() limit?: number,
  ): Promise<Issue[]> {
    return this.list(req, owner, repo, index, 'blockers', page, limit);
  }

  /** Make this issue depend on the one in the body; answers this issue. */
  @Post('dependencies')
  @Security('signed', ['issue'])
  @SuccessResponse(201, 'Issue')
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(422, 'self-dependency, cycle or duplicate')
  public async issueCreateIssueDependencies(@Path() owner: string, @Path() repo: string, @Path() index: number, @Body() body: IssueMeta, @Request() req: ExRequest): Promise<Issue> {
    return this.change(req, owner, repo, index, body, 'blockers', true);
  }

  /** Remove this issue's dependency on the one in the body; answers this issue (201, as Gitea). */
  @Delete('dependencies')
  @Security('signed', ['issue'])
  @SuccessResponse(201, 'Issue')
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(422, 'no such dependency')
  public async issueRemoveIssueDependencies(@Path() owner: string, @Path() repo: string, @Path() index: number, @Body() body: IssueMeta, @Request() req: ExRequest): Promise<Issue> {
    return this.change(req, owner, repo, index, body, 'blockers', false);
  }

  /** The issues this one blocks (readable ones). */
  @Get('blocks')
  @Security('public', ['issue'])
  @Response<ApiErrorBody>(404, 'not found')
  public async issueListBlocks(
    @Path() owner: string, @Path() repo: string, @Path() index: number, @Request() req: ExRequest, @Query() page?: number, @Query() limit?: number,
  ): Promise<Issue[]> {
    return this.list(req, owner, repo, index, 'blocked', page, limit);
  }

  /** Make the issue in the body depend on this one; answers this issue. */
  @Post('blocks')
  @Security('signed', ['issue'])
  @SuccessResponse(201, 'Issue')
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(422, 'self-dependency, cycle or duplicate')
  public async issueCreateIssueBlocking(@Path() owner: string, @Path() repo: string, @Path() index: number, @Body() body: IssueMeta, @Request() req: ExRequest): Promise<Issue> {
    return this.change(req, owner, repo, index, body, 'blocked', true);
  }

  /** Stop this issue from blocking the one in the body; answers this issue (201, as Gitea). */
  @Delete('blocks')
  @Security('signed', ['issue'])
  @SuccessResponse(201, 'Issue')
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(422, 'no such dependency')
  public async issueRemoveIssueBlocking(@Path() owner: string, @Path() repo: string, @Path() index: number, @Body() body: IssueMeta, @Request() req: ExRequest): Promise<Issue> {
    return this.change(req, owner, repo, index, body, 'blocked', false);
  }
}
