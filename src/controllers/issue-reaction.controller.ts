/** Reactions on issues and on comments. */
import type { Request as ExRequest } from 'express';
import { Body, Controller, Delete, Get, Path, Post, Query, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { EditReactionOption, Reaction } from '../api/issue';
import type { ApiErrorBody } from '../errors';
import { settings } from '../config';
import { ctxOf, doerOf, viewerOf } from '../middleware/context';
import { listOptions, setPaging } from '../middleware/paging';
import { toReaction } from '../convert/issue';
import { repoAssignment } from '../services/repo/context';
import { addReaction, listReactionsOf, removeReaction, type ReactionPlace, type ReactionView } from '../services/issue/reaction.service';

@Route('repos/{owner}/{repo}/issues')
@Tags('issue')
export class IssueReactionController extends Controller {
  private out(req: ExRequest, items: ReactionView[]): Reaction[] | null {
    // why: Gitea answers null, not [], when there are none.
    return items.length ? items.map((v) => toReaction(v.row, v.user, viewerOf(req), settings().server.rootUrl)) : null;
  }

  private async add(req: ExRequest, owner: string, repo: string, place: ReactionPlace, body: EditReactionOption): Promise<Reaction> {
    const ctx = ctxOf(req);
    const { view, created } = await addReaction(ctx, doerOf(req), await repoAssignment(ctx, req.principal, owner, repo), place, body.content);
    this.setStatus(created ? 201 : 200);
    return toReaction(view.row, view.user, viewerOf(req), settings().server.rootUrl);
  }

  private async remove(req: ExRequest, owner: string, repo: string, place: ReactionPlace, body: EditReactionOption): Promise<void> {
    const ctx = ctxOf(req);
    await removeReaction(ctx, doerOf(req), await repoAssignment(ctx, req.principal, owner, repo), place, body.content);
    this.setStatus(200);
  }

  /** The reactions on a comment. */
  @Get('comments/{id}/reactions')
  @Security('public', ['issue'])
  @Response<ApiErrorBody>(404, 'not found')
  public async issueGetCommentReactions(@Path() owner: string, @Path() repo: string, @Path() id: number, @Request() req: ExRequest): Promise<Reaction[] | null> {
    const ctx = ctxOf(req);
    const { items } = await listReactionsOf(ctx, await repoAssignment(ctx, req.principal, owner, repo), { commentId: id });
    return this.out(req, items);
  }

  /** React to a comment (201; 200 with the existing reaction when the caller has it already). */
  @Post('comments/{id}/reactions')
  @Security('signed', ['issue'])
  @SuccessResponse(201, 'Reaction')
  @Response<ApiErrorBody>(403, 'locked or blocked')
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(422, 'not an allowed reaction')
  public async issuePostCommentReaction(@Path() owner: string, @Path() repo: string, @Path() id: number, @Body() body: EditReactionOption, @Request() req: ExRequest): Promise<Reaction> {
    return this.add(req, owner, repo, { commentId: id }, body);
  }

  /** Remove the caller's reaction from a comment. */
  @Delete('comments/{id}/reactions')
  @Security('signed', ['issue'])
  @SuccessResponse(200, 'empty')
  @Response<ApiErrorBody>(403, 'locked')
  @Response<ApiErrorBody>(404, 'not found')
  public async issueDeleteCommentReaction(@Path() owner: string, @Path() repo: string, @Path() id: number, @Body() body: EditReactionOption, @Request() req: ExRequest): Promise<void> {
    return this.remove(req, owner, repo, { commentId: id }, body);
  }

  /** The reactions on an issue (all of them without `page`). */
  @Get('{index}/reactions')
  @Security('public', ['issue'])
  @Response<ApiErrorBody>(404, 'not found')
  public async issueGetIssueReactions(
    @Path() owner: string, @Path() repo: string, @Path() index: number, @Request() req: ExRequest, @Query() page?: number, @Query() limit?: number,
  ): Promise<Reaction[] | null> {
    const ctx = ctxOf(req);
    const opts = page ? listOptions(page, limit) : undefined;
    const { items, total } = await listReactionsOf(ctx, await repoAssignment(ctx, req.principal, owner, repo), { index }, opts);
    if (opts) setPaging(req, opts, total);
    else req.res!.setHeader('X-Total-Count', String(total));
    return this.out(req, items);
  }

  /** React to an issue (201; 200 with the existing reaction when the caller has it already). */
  @Post('{index}/reactions')
  @Security('signed', ['issue'])
  @SuccessResponse(201, 'Reaction')
  @Response<ApiErrorBody>(403, 'locked or blocked')
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(422, 'not an allowed reaction')
  public async issuePostIssueReaction(@Path() owner: string, @Path() repo: string, @Path() index: number, @Body() body: EditReactionOption, @Request() req: ExRequest): Promise<Reaction> {
    return this.add(req, owner, repo, { index }, body);
  }

  /** Remove the caller's reaction from an issue. */
  @Delete('{index}/reactions')
  @Security('signed', ['issue'])
  @SuccessResponse(200, 'empty')
  @Response<ApiErrorBody>(403, 'locked')
  @Response<ApiErrorBody>(404, 'not found')
  public async issueDeleteIssueReaction(@Path() owner: string, @Path() repo: string, @Path() index: number, @Body() body: EditReactionOption, @Request() req: ExRequest): Promise<void> {
    return this.remove(req, owner, repo, { index }, body);
  }
}
