/** Commit statuses: report one, list a commit's statuses, and the combined status. */
import type { Request as ExRequest } from 'express';
import { Body, Controller, Get, Path, Post, Query, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { CombinedStatus, CommitStatus, CreateStatusOption } from '../api/commit';
import type { ApiErrorBody } from '../errors';
import { settings } from '../config';
import { ctxOf, doerOf, viewerOf } from '../middleware/context';
import { listOptions, setPaging } from '../middleware/paging';
import { toCommitStatus } from '../convert/commit';
import { toRepositoryView } from '../convert/repo';
import { toUser } from '../convert/user';
import type { CommitStatusModel } from '../models/commit-status.model';
import { repoAssignment, type RepoContext } from '../services/repo/context';
import { viewOf } from '../services/repo/repo.service';
import { repoUrls } from '../services/content/view';
import { combinedStatus, createCommitStatus, listStatuses, statusCommit, statusCreators } from '../services/history/status.service';

@Route('repos/{owner}/{repo}')
@Tags('repository')
export class StatusController extends Controller {
  private async convert(req: ExRequest, rc: RepoContext, rows: CommitStatusModel[]): Promise<CommitStatus[]> {
    const root = settings().server.rootUrl;
    const creators = await statusCreators(ctxOf(req), rows);
    const urls = repoUrls(root, rc.owner.name, rc.repo.name);
    return rows.map((s) => {
      const u = creators.get(s.creatorId);
      return toCommitStatus(s, urls, u ? toUser(u, viewerOf(req), root) : null);
    });
  }

  private async list(req: ExRequest, owner: string, repo: string, ref: string, sort?: string, state?: string, page?: number, limit?: number): Promise<CommitStatus[]> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    const sha = await statusCommit(rc, ref);
    const opts = listOptions(page, limit);
    const { rows, count } = await listStatuses(ctx, rc, sha, { sort, state, limit: opts.limit, offset: opts.offset });
    setPaging(req, opts, count);
    return this.convert(req, rc, rows);
  }

  /** Report a status for a commit. */
  @Post('statuses/{sha}')
  @Security('signed', ['repository'])
  @SuccessResponse(201, 'created')
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(422, 'invalid state')
  public async repoCreateStatus(@Path() owner: string, @Path() repo: string, @Path() sha: string, @Body() body: CreateStatusOption, @Request() req: ExRequest): Promise<CommitStatus> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    const s = await createCommitStatus(ctx, rc, doerOf(req), sha, body);
    this.setStatus(201);
    return (await this.convert(req, rc, [s]))[0];
  }

  /** A commit's statuses (by commit id). */
  @Get('statuses/{sha}')
  @Security('public', ['repository'])
  @Response<ApiErrorBody>(404, 'not found')
  public async repoListStatuses(
    @Path() owner: string, @Path() repo: string, @Path() sha: string, @Request() req: ExRequest,
    @Query() sort?: string, @Query() state?: string, @Query() page?: number, @Query() limit?: number,
  ): Promise<CommitStatus[]> {
    return this.list(req, owner, repo, sha, sort, state, page, limit);
  }

  /** A commit's statuses (by branch, tag or commit). */
  @Get('commits/{ref}/statuses')
  @Security('public', ['repository'])
  @Response<ApiErrorBody>(404, 'not found')
  public async repoListStatusesByRef(
    @Path() owner: string, @Path() repo: string, @Path() ref: string, @Request() req: ExRequest,
    @Query() sort?: string, @Query() state?: string, @Query() page?: number, @Query() limit?: number,
  ): Promise<CommitStatus[]> {
    return this.list(req, owner, repo, ref, sort, state, page, limit);
  }

  /** The combined status of a commit: its state, sha, count and repository, even when nothing was reported. */
  @Get('commits/{ref}/status')
  @Security('public', ['repository'])
  @Response<ApiErrorBody>(404, 'not found')
  public async repoGetCombinedStatusByRef(@Path() owner: string, @Path() repo: string, @Path() ref: string, @Request() req: ExRequest): Promise<CombinedStatus> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    const sha = await statusCommit(rc, ref);
    const { state, latest } = await combinedStatus(ctx, rc, sha);
    const root = settings().server.rootUrl;
    const urls = repoUrls(root, rc.owner.name, rc.repo.name);
    return {
      state, sha, total_count: latest.length, statuses: await this.convert(req, rc, latest),
      repository: toRepositoryView(await viewOf(ctx, req.principal, rc.repo, rc.owner, rc.perm), viewerOf(req), root),
      commit_url: `${urls.api}/commits/${sha}`, url: `${urls.api}/commits/${sha}/status`,
    };
  }
}
