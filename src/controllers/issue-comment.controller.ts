/**
 * Comments on issues (per issue and per repository) and an issue's timeline. Registered before the
 * issue routes, so `issues/comments` is never taken for an issue number.
 */
import type { Request as ExRequest } from 'express';
import { Body, Controller, Delete, Get, Patch, Path, Post, Query, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { Comment, CreateIssueCommentOption, EditIssueCommentOption, TimelineComment } from '../api/issue';
import type { ApiErrorBody } from '../errors';
import { settings } from '../config';
import { ctxOf, doerOf, viewerOf } from '../middleware/context';
import { listOptions, setPaging } from '../middleware/paging';
import { toComment, toTimelineComment } from '../convert/issue';
import { unixSeconds } from '../convert/time';
import { repoAssignment } from '../services/repo/context';
import {
  createComment, deleteComment, editComment, getComment, listCommentsOfIssue, listCommentsOfRepo, type CommentView,
} from '../services/issue/comment.service';
import { timeline } from '../services/issue/timeline.service';


function out(req: ExRequest, owner: string, repo: string, repoId: number, v: CommentView): Comment {
  return toComment(v.row, v.poster, v.issue, { rootUrl: settings().server.rootUrl, repoId, owner, repo }, viewerOf(req), v.assets);
}

@Route('repos/{owner}/{repo}/issues')
@Tags('issue')
export class IssueCommentController extends Controller {
  /** List the comments of a repository's issues and pull requests, oldest first. */
  @Get('comments')
  @Security('public', ['issue'])
  @Response<ApiErrorBody>(404, 'not found')
  public async issueGetRepoComments(
    @Path() owner: string, @Path() repo: string, @Request() req: ExRequest,
    @Query() since?: Date, @Query() before?: Date, @Query() page?: number, @Query() limit?: number,
  ): Promise<Comment[]> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    const opts = listOptions(page, limit);
    const { items, total } = await listCommentsOfRepo(ctx, rc, { since: unixSeconds(since), before: unixSeconds(before) }, opts);
    setPaging(req, opts, total);
    return items.map((v) => out(req, rc.owner.name, rc.repo.name, rc.repo.id, v));
  }

  /** Get a comment (204 for a history entry, as Gitea). */
  @Get('comments/{id}')
  @Security('public', ['issue'])
  @Response<ApiErrorBody>(404, 'not found')
  public async issueGetComment(@Path() owner: string, @Path() repo: string, @Path() id: number, @Request() req: ExRequest): Promise<Comment | void> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    const v = await getComment(ctx, rc, id);
    if (!v) return this.setStatus(204);
    return out(req, rc.owner.name, rc.repo.name, rc.repo.id, v);
  }

  /** Edit a comment (its poster or a writer). */
  @Patch('comments/{id}')
  @Security('signed', ['issue'])
  @Response<ApiErrorBody>(403, 'forbidden')
  @Response<ApiErrorBody>(404, 'not found')
  public async issueEditComment(
    @Path() owner: string, @Path() repo: string, @Path() id: number, @Body() body: EditIssueCommentOption, @Request() req: ExRequest,
  ): Promise<Comment | void> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    const v = await editComment(ctx, doerOf(req), rc, id, body.body);
    if (!v) return this.setStatus(204);
    return out(req, rc.owner.name, rc.repo.name, rc.repo.id, v);
  }

  /** Delete a comment (its poster or a writer). */
  @Delete('comments/{id}')
  @Security('signed', ['issue'])
  @SuccessResponse(204, 'empty')
  @Response<ApiErrorBody>(403, 'forbidden')
  @Response<ApiErrorBody>(404, 'not found')
  public async issueDeleteComment(@Path() owner: string, @Path() repo: string, @Path() id: number, @Request() req: ExRequest): Promise<void> {
    const ctx = ctxOf(req);
    await deleteComment(ctx, doerOf(req), await repoAssignment(ctx, req.principal, owner, repo), id);
    this.setStatus(204);
  }

  /** List the comments of an issue, oldest first. */
  @Get('{index}/comments')
  @Security('public', ['issue'])
  @Response<ApiErrorBody>(404, 'not found')
  public async issueGetComments(
    @Path() owner: string, @Path() repo: string, @Path() index: number, @Request() req: ExRequest, @Query() since?: Date, @Query() before?: Date,
  ): Promise<Comment[]> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    const items = await listCommentsOfIssue(ctx, rc, index, { since: unixSeconds(since), before: unixSeconds(before) });
    req.res!.setHeader('X-Total-Count', String(items.length));
    return items.map((v) => out(req, rc.owner.name, rc.repo.name, rc.repo.id, v));
  }

  /** Comment on an issue. */
  @Post('{index}/comments')
  @Security('signed', ['issue'])
  @SuccessResponse(201, 'Comment')
  @Response<ApiErrorBody>(403, 'locked or blocked')
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(423, 'archived')
  public async issueCreateComment(
    @Path() owner: string, @Path() repo: string, @Path() index: number, @Body() body: CreateIssueCommentOption, @Request() req: ExRequest,
  ): Promise<Comment> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    const v = await createComment(ctx, doerOf(req), rc, index, body.body);
    this.setStatus(201);
    return out(req, rc.owner.name, rc.repo.name, rc.repo.id, v);
  }

  /** Edit a comment (the older path with the issue number). */
  @Patch('{index}/comments/{id}')
  @Security('signed', ['issue'])
  @Response<ApiErrorBody>(403, 'forbidden')
  @Response<ApiErrorBody>(404, 'not found')
  public async issueEditCommentDeprecated(
    @Path() owner: string, @Path() repo: string, @Path() index: number, @Path() id: number, @Body() body: EditIssueCommentOption, @Request() req: ExRequest,
  ): Promise<Comment | void> {
    void index;
    return this.issueEditComment(owner, repo, id, body, req);
  }

  /** Delete a comment (the older path with the issue number). */
  @Delete('{index}/comments/{id}')
  @Security('signed', ['issue'])
  @SuccessResponse(204, 'empty')
  @Response<ApiErrorBody>(403, 'forbidden')
  @Response<ApiErrorBody>(404, 'not found')
  public async issueDeleteCommentDeprecated(@Path() owner: string, @Path() repo: string, @Path() index: number, @Path() id: number, @Request() req: ExRequest): Promise<void> {
    void index;
    return this.issueDeleteComment(owner, repo, id, req);
  }

  /** List the comments and history entries of an issue, oldest first (all of them without `page`). */
  @Get('{index}/timeline')
  @Security('public', ['issue'])
  @Response<ApiErrorBody>(404, 'not found')
  public async issueGetCommentsAndTimeline(
    @Path() owner: string, @Path() repo: string, @Path() index: number, @Request() req: ExRequest,
    @Query() since?: Date, @Query() before?: Date, @Query() page?: number, @Query() limit?: number,
  ): Promise<TimelineComment[] | null> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    const window = page ? listOptions(page, limit) : undefined;
    const items = await timeline(ctx, req.principal, rc, index, { since: unixSeconds(since), before: unixSeconds(before) }, window);
    req.res!.setHeader('X-Total-Count', String(items.length));
    // why: Gitea answers null, not [], for an empty timeline.
    return items.length ? items.map((v) => toTimelineComment(v, viewerOf(req))) : null;
  }
}
