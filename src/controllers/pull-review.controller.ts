/** Reviews of a pull request: list, create, get, submit a pending one, dismiss and undismiss. */
import type { Request as ExRequest } from 'express';
import { Body, Controller, Get, Path, Post, Query, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { CreatePullReviewOptions, DismissPullReviewOptions, PullReview } from '../api/pull';
import type { ApiErrorBody } from '../errors';
import { settings } from '../config';
import { ctxOf, doerOf, viewerOf } from '../middleware/context';
import { listOptions, setPaging } from '../middleware/paging';
import { toPullReview } from '../convert/pull';
import { repoAssignment, type RepoContext } from '../services/repo/context';
import {
  createPullReview, dismissPullReview, getPullReview, listPullReviews, reviewViews, submitPullReview, type ReviewView,
} from '../services/pull/review.service';

@Route('repos/{owner}/{repo}/pulls/{index}/reviews')
@Tags('repository')
export class PullReviewController extends Controller {
  private out(req: ExRequest, rc: RepoContext, index: number, views: ReviewView[]): PullReview[] {
    const root = settings().server.rootUrl;
    const html = `${root}${encodeURIComponent(rc.owner.name)}/${encodeURIComponent(rc.repo.name)}/pulls/${index}`;
    return views.map((v) => toPullReview(v.row, v.reviewer, html, v.entryId, viewerOf(req), root));
  }

  /** The reviews and review requests of a pull request (all of them unless `page` is given, as Gitea). */
  @Get()
  @Security('public', ['repository'])
  @Response<ApiErrorBody>(404, 'not found')
  public async repoListPullReviews(@Path() owner: string, @Path() repo: string, @Path() index: number, @Request() req: ExRequest, @Query() page?: number, @Query() limit?: number): Promise<PullReview[]> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    const r = await listPullReviews(ctx, req.principal.user, rc, index);
    let rows = r.reviews;
    if (page !== undefined) {
      const opts = listOptions(page, limit);
      rows = rows.slice(opts.offset, opts.offset + opts.limit);
    }
    setPaging(req, listOptions(page, limit), r.total);
    return this.out(req, rc, index, await reviewViews(ctx, rows));
  }

  /** Create a review: pending (no event), or submitted with APPROVED, REQUEST_CHANGES or COMMENT. */
  @Post()
  @Security('signed', ['repository'])
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(422, 'the event is not allowed here')
  public async repoCreatePullReview(@Path() owner: string, @Path() repo: string, @Path() index: number, @Body() body: CreatePullReviewOptions, @Request() req: ExRequest): Promise<PullReview> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    const row = await createPullReview(ctx, doerOf(req), rc, index, body);
    return this.out(req, rc, index, await reviewViews(ctx, [row]))[0];
  }

  /** One review. */
  @Get('{id}')
  @Security('public', ['repository'])
  @Response<ApiErrorBody>(404, 'not found')
  public async repoGetPullReview(@Path() owner: string, @Path() repo: string, @Path() index: number, @Path() id: number, @Request() req: ExRequest): Promise<PullReview> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    const { review } = await getPullReview(ctx, req.principal.user, rc, index, id);
    return this.out(req, rc, index, await reviewViews(ctx, [review]))[0];
  }

  /** Submit one's pending review with an event. */
  @Post('{id}')
  @Security('signed', ['repository'])
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(422, 'not pending, or the event is not allowed here')
  public async repoSubmitPullReview(@Path() owner: string, @Path() repo: string, @Path() index: number, @Path() id: number, @Body() body: CreatePullReviewOptions, @Request() req: ExRequest): Promise<PullReview> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    const row = await submitPullReview(ctx, doerOf(req), rc, index, id, body);
    return this.out(req, rc, index, await reviewViews(ctx, [row]))[0];
  }

  /** Dismiss an approval or change request (repository admins). */
  @Post('{id}/dismissals')
  @Security('signed', ['repository'])
  @Response<ApiErrorBody>(403, 'not a repository admin, or nothing to dismiss')
  @Response<ApiErrorBody>(404, 'not found')
  public async repoDismissPullReview(@Path() owner: string, @Path() repo: string, @Path() index: number, @Path() id: number, @Body() body: DismissPullReviewOptions, @Request() req: ExRequest): Promise<PullReview> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    const row = await dismissPullReview(ctx, doerOf(req), rc, index, id, true, body?.message ?? '');
    return this.out(req, rc, index, await reviewViews(ctx, [row]))[0];
  }

  /** Undo a dismissal (repository admins). */
  @Post('{id}/undismissals')
  @Security('signed', ['repository'])
  @Response<ApiErrorBody>(403, 'not a repository admin, or nothing to undismiss')
  @Response<ApiErrorBody>(404, 'not found')
  public async repoUnDismissPullReview(@Path() owner: string, @Path() repo: string, @Path() index: number, @Path() id: number, @Request() req: ExRequest): Promise<PullReview> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    const row = await dismissPullReview(ctx, doerOf(req), rc, index, id, false);
    return this.out(req, rc, index, await reviewViews(ctx, [row]))[0];
  }
}
