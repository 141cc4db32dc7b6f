/**
 * Topics: a repository's topics (read by anyone who can see it, changed by its admins) and the
 * site-wide topic search.
 */
import type { Request as ExRequest } from 'express';
import { Body, Controller, Delete, Get, Path, Put, Query, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { RepoTopicOptions, TopicListResponse, TopicName } from '../api/social';
import type { ApiErrorBody } from '../errors';
import { ctxOf } from '../middleware/context';
import { listOptions, setPaging } from '../middleware/paging';
import { toTopic } from '../convert/social';
import { repoAssignment } from '../services/repo/context';
import { repoTopicNames, replaceTopics, addTopic, removeTopic, searchTopics } from '../services/repo/topic.service';

@Route('')
@Tags('repository')
export class TopicController extends Controller {
  /** The repository's topics. */
  @Get('repos/{owner}/{repo}/topics')
  @Security('public', ['repository'])
  @Response<ApiErrorBody>(404, 'not found')
  public async repoListTopics(@Path() owner: string, @Path() repo: string, @Request() req: ExRequest, @Query() page?: number, @Query() limit?: number): Promise<TopicName> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    const opts = listOptions(page, limit);
    const all = await repoTopicNames(ctx, rc);
    setPaging(req, opts, all.length);
    return { topics: all.slice(opts.offset, opts.offset + opts.limit) };
  }

  /** Replace the repository's topics (repository admins). */
  @Put('repos/{owner}/{repo}/topics')
  @Security('signed', ['repository'])
  @SuccessResponse(204, 'empty')
  @Response<ApiErrorBody>(403, 'not a repository admin')
  @Response<ApiErrorBody>(422, 'invalid topics or too many')
  public async repoUpdateTopics(@Path() owner: string, @Path() repo: string, @Request() req: ExRequest, @Body() body: RepoTopicOptions): Promise<void> {
    const ctx = ctxOf(req);
    await replaceTopics(ctx, await repoAssignment(ctx, req.principal, owner, repo), body.topics ?? []);
    this.setStatus(204);
  }

  /** Add one topic (repository admins). */
  @Put('repos/{owner}/{repo}/topics/{topic}')
  @Security('signed', ['repository'])
  @SuccessResponse(204, 'empty')
  @Response<ApiErrorBody>(403, 'not a repository admin')
  @Response<ApiErrorBody>(422, 'invalid topic or too many')
  public async repoAddTopic(@Path() owner: string, @Path() repo: string, @Path() topic: string, @Request() req: ExRequest): Promise<void> {
    const ctx = ctxOf(req);
    await addTopic(ctx, await repoAssignment(ctx, req.principal, owner, repo), topic);
    this.setStatus(204);
  }

  /** Remove one topic (repository admins). */
  @Delete('repos/{owner}/{repo}/topics/{topic}')
  @Security('signed', ['repository'])
  @SuccessResponse(204, 'empty')
  @Response<ApiErrorBody>(403, 'not a repository admin')
  @Response<ApiErrorBody>(404, 'topic not on the repository')
  @Response<ApiErrorBody>(422, 'invalid topic')
  public async repoDeleteTopic(@Path() owner: string, @Path() repo: string, @Path() topic: string, @Request() req: ExRequest): Promise<void> {
    const ctx = ctxOf(req);
    await removeTopic(ctx, await repoAssignment(ctx, req.principal, owner, repo), topic);
    this.setStatus(204);
  }

  /** Search topics by keyword. */
  @Get('topics/search')
  @Security('public', ['repository'])
  public async topicSearch(@Request() req: ExRequest, @Query() q?: string, @Query() page?: number, @Query() limit?: number): Promise<TopicListResponse> {
    const opts = listOptions(page, limit);
    const { rows, count } = await searchTopics(ctxOf(req), q ?? '', opts.limit, opts.offset);
    setPaging(req, opts, count);
    return { topics: rows.map(toTopic) };
  }
}
