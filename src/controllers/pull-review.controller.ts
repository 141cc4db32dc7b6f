/** Reviews of a pull request (list, create, get, submit a pending one, delete, dismiss, undismiss, line comments) and its review requests. */
import type { Request as ExRequest } from 'express';
import { Body, Controller, Delete, Get, Path, Post, Query, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { CreatePullReviewOptions, DismissPullReviewOptions, PullReview, PullReviewComment, PullReviewRequestOptions } from '../api/pull';
import type { ApiErrorBody } from '../errors';
import { settings } from '../config';
import { ctxOf, doerOf, viewerOf } from '../middleware/context';
import { listOptions, setPaging } from '../middleware/paging';
import { toPullReview, toPullReviewComment } from '../convert/pull';
import { repoAssignment, type RepoContext } from '../services/repo/context';
import {
  createPullReview, deletePullReview, dismissPullReview, getPullReview, listPullReviews, listReviewComments, reviewViews, submitPullReview, type ReviewView,
} from '../services/pull/review.service';
import { changeReviewRequests } from '../services/pull/review-request.service';
import { usersById } from '../services/issue/view';
import { ReviewType } from '../models/review.model';

function pullHtml(rc: RepoContext, index: number): string {
  return `${settings().server.rootUrl}${encodeURIComponent(rc.owner.name)}/${encodeURIComponent(rc.repo.name)}/pulls/${index}`;
}

@Route('repos/{owner}/{repo}/pulls/{index}')
@Tags('repository')
export class PullReviewController extends Controller {
  private out(req: ExRequest, rc: RepoContext, index: number, views: ReviewView[]): PullReview[] {
    return views.map((v) => toPullReview(v, pullHtml(rc, index), viewerOf(req), settings().server.rootUrl));
  }

  /** The reviews and review requests of a pull request (all of them unless `page` is given, as Gitea). */
  @Get('reviews')
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
  @Post('reviews')
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
  @Get('reviews/{id}')
  @Security('public', ['repository'])
  @Response<ApiErrorBody>(404, 'not found')
  public async repoGetPullReview(@Path() owner: string, @Path() repo: string, @Path() index: number, @Path() id: number, @Request() req: ExRequest): Promise<PullReview> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    const { review } = await getPullReview(ctx, req.principal.user, rc, index, id);
    return this.out(req, rc, index, await reviewViews(ctx, [review]))[0];
  }

  /** Submit one's pending review with an event. */
  @Post('reviews/{id}')
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
  @Post('reviews/{id}/dismissals')
  @Security('signed', ['repository'])
  @Response<ApiErrorBody>(403, 'not a repository admin, or nothing to dismiss')
  @Response<ApiErrorBody>(404, 'not found')
  public async repoDismissPullReview(@Path() owner: string, @Path() repo: string, @Path() index: number, @Path() id: number, @Body() body: DismissPullReviewOptions, @Request() req: ExRequest): Promise<PullReview> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    const row = await dismissPullReview(ctx, doerOf(req), rc, index, id, true, body?.message ?? '', body?.priors === true);
    return this.out(req, rc, index, await reviewViews(ctx, [row]))[0];
  }

  /** Undo a dismissal (repository admins). */
  @Post('reviews/{id}/undismissals')
  @Security('signed', ['repository'])
  @Response<ApiErrorBody>(403, 'not a repository admin, or nothing to undismiss')
  @Response<ApiErrorBody>(404, 'not found')
  public async repoUnDismissPullReview(@Path() owner: string, @Path() repo: string, @Path() index: number, @Path() id: number, @Request() req: ExRequest): Promise<PullReview> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    const row = await dismissPullReview(ctx, doerOf(req), rc, index, id, false);
    return this.out(req, rc, index, await reviewViews(ctx, [row]))[0];
  }

  /** Delete a review (its reviewer or a site admin), with its line comments. */
  @Delete('reviews/{id}')
  @Security('signed', ['repository'])
  @SuccessResponse(204, 'deleted')
  @Response<ApiErrorBody>(403, 'neither the reviewer nor a site admin')
  @Response<ApiErrorBody>(404, 'not found')
  public async repoDeletePullReview(@Path() owner: string, @Path() repo: string, @Path() index: number, @Path() id: number, @Request() req: ExRequest): Promise<void> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    await deletePullReview(ctx, doerOf(req), rc, index, id);
    this.setStatus(204);
  }

  /** The line comments of a review. */
  @Get('reviews/{id}/comments')
  @Security('public', ['repository'])
  @Response<ApiErrorBody>(404, 'not found')
  public async repoGetPullReviewComments(@Path() owner: string, @Path() repo: string, @Path() index: number, @Path() id: number, @Request() req: ExRequest): Promise<PullReviewComment[]> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    const { review, comments } = await listReviewComments(ctx, req.principal.user, rc, index, id);
    const user = await usersById(ctx, comments.flatMap((c) => [c.posterId, c.resolveDoerId]));
    const root = settings().server.rootUrl;
    return comments.map((c) => toPullReviewComment(c, user(c.posterId), c.resolveDoerId ? user(c.resolveDoerId) : null, review.type === ReviewType.Pending, pullHtml(rc, index), viewerOf(req), root));
  }

  /** Ask users and teams to review; answers the new requests. */
  @Post('requested_reviewers')
  @Security('signed', ['repository'])
  @SuccessResponse(201, 'requested')
  @Response<ApiErrorBody>(403, 'blocked, or a re-review of a closed pull request')
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(422, 'the reviewer cannot be asked, or the caller cannot ask')
  public async repoCreatePullReviewRequests(@Path() owner: string, @Path() repo: string, @Path() index: number, @Body() body: PullReviewRequestOptions, @Request() req: ExRequest): Promise<PullReview[]> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    const rows = await changeReviewRequests(ctx, doerOf(req), rc, index, body ?? {}, true);
    this.setStatus(201);
    return this.out(req, rc, index, await reviewViews(ctx, rows));
  }

  /** Withdraw review requests. */
  @Delete('requested_reviewers')
  @Security('signed', ['repository'])
  @SuccessResponse(204, 'withdrawn')
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(422, 'the caller cannot withdraw the request')
  public async repoDeletePullReviewRequests(@Path() owner: string, @Path() repo: string, @Path() index: number, @Body() body: PullReviewRequestOptions, @Request() req: ExRequest): Promise<void> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    await changeReviewRequests(ctx, doerOf(req), rc, index, body ?? {}, false);
    this.setStatus(204);
  }
}
