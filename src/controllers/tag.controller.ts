/**
 * Tags of a repository (list, get, create, delete; names may contain `/`) and its tag protection
 * rules (`/tag_protections`, repository admins).
 */
import type { Request as ExRequest } from 'express';
import { Body, Controller, Delete, Get, Patch, Path, Post, Query, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { CreateTagOption, CreateTagProtectionOption, EditTagProtectionOption, Tag, TagProtection } from '../api/refs';
import type { ApiErrorBody } from '../errors';
import { settings } from '../config';
import { ctxOf, doerOf } from '../middleware/context';
import { listOptions, setPaging } from '../middleware/paging';
import { toTag, toTagProtection } from '../convert/refs';
import { repoUrls } from '../services/content/view';
import { repoAssignment, type RepoContext } from '../services/repo/context';
import { createTag, deleteTag, getTag, listTags } from '../services/refs/tag.service';
import {
  createTagProtection, editTagProtection, getTagProtection, listTagProtections, removeTagProtection, type TagProtectionView,
} from '../services/refs/tag-protection.service';

const urls = (rc: RepoContext) => repoUrls(settings().server.rootUrl, rc.owner.name, rc.repo.name);
const rule = (v: TagProtectionView) => toTagProtection(v.row, v.usernames, v.teams);

@Route('repos/{owner}/{repo}')
@Tags('repository')
export class TagController extends Controller {
  /** List a repository's tags, newest first. */
  @Get('tags')
  @Security('public', ['repository'])
  @Response<ApiErrorBody>(404, 'not found')
  public async repoListTags(@Path() owner: string, @Path() repo: string, @Request() req: ExRequest, @Query() page?: number, @Query() limit?: number): Promise<Tag[]> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    const opts = listOptions(page, limit);
    const { items, total } = await listTags(ctx, rc, opts);
    setPaging(req, opts, total);
    return items.map((t) => toTag(t, urls(rc)));
  }

  /** Create a tag: annotated (the caller as tagger) when `message` is given, else lightweight. */
  @Post('tags')
  @Security('signed', ['repository'])
  @SuccessResponse(201, 'Tag')
  @Response<ApiErrorBody>(404, 'target not found')
  @Response<ApiErrorBody>(409, 'tag exists')
  @Response<ApiErrorBody>(422, 'validation error or protected tag')
  @Response<ApiErrorBody>(423, 'archived')
  public async repoCreateTag(@Path() owner: string, @Path() repo: string, @Body() body: CreateTagOption, @Request() req: ExRequest): Promise<Tag> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    const t = await createTag(ctx, doerOf(req), rc, body);
    this.setStatus(201);
    return toTag(t, urls(rc));
  }

  /** Get a tag by name. */
  @Get('tags/{tag}')
  @Security('public', ['repository'])
  @Response<ApiErrorBody>(404, 'not found')
  public async repoGetTag(@Path() owner: string, @Path() repo: string, @Path() tag: string, @Request() req: ExRequest): Promise<Tag> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    return toTag(await getTag(ctx, rc, tag), urls(rc));
  }

  /** Delete a tag that carries no release. */
  @Delete('tags/{tag}')
  @Security('signed', ['repository'])
  @SuccessResponse(204, 'empty')
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(409, 'the tag carries a release')
  @Response<ApiErrorBody>(422, 'protected tag')
  @Response<ApiErrorBody>(423, 'archived')
  public async repoDeleteTag(@Path() owner: string, @Path() repo: string, @Path() tag: string, @Request() req: ExRequest): Promise<void> {
    const ctx = ctxOf(req);
    await deleteTag(ctx, doerOf(req), await repoAssignment(ctx, req.principal, owner, repo), tag);
    this.setStatus(204);
  }

  /** List the tag protection rules. */
  @Get('tag_protections')
  @Security('signed', ['repository'])
  @Response<ApiErrorBody>(403, 'not a repository admin')
  public async repoListTagProtection(@Path() owner: string, @Path() repo: string, @Request() req: ExRequest): Promise<TagProtection[]> {
    const ctx = ctxOf(req);
    return (await listTagProtections(ctx, await repoAssignment(ctx, req.principal, owner, repo))).map(rule);
  }

  /** Add a tag protection rule (`name_pattern`: a glob, or `/regex/`). */
  @Post('tag_protections')
  @Security('signed', ['repository'])
  @SuccessResponse(201, 'TagProtection')
  @Response<ApiErrorBody>(400, 'empty pattern or allow-lists')
  @Response<ApiErrorBody>(403, 'not a repository admin, or the pattern exists')
  @Response<ApiErrorBody>(422, 'unknown user or team, or invalid pattern')
  @Response<ApiErrorBody>(423, 'archived')
  public async repoCreateTagProtection(@Path() owner: string, @Path() repo: string, @Body() body: CreateTagProtectionOption, @Request() req: ExRequest): Promise<TagProtection> {
    const ctx = ctxOf(req);
    const v = await createTagProtection(ctx, await repoAssignment(ctx, req.principal, owner, repo), body);
    this.setStatus(201);
    return rule(v);
  }

  /** Get a tag protection rule. */
  @Get('tag_protections/{id}')
  @Security('signed', ['repository'])
  @Response<ApiErrorBody>(404, 'not found')
  public async repoGetTagProtection(@Path() owner: string, @Path() repo: string, @Path() id: number, @Request() req: ExRequest): Promise<TagProtection> {
    const ctx = ctxOf(req);
    return rule(await getTagProtection(ctx, await repoAssignment(ctx, req.principal, owner, repo), id));
  }

  /** Change a tag protection rule; omitted fields keep their value. */
  @Patch('tag_protections/{id}')
  @Security('signed', ['repository'])
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(422, 'validation error')
  @Response<ApiErrorBody>(423, 'archived')
  public async repoEditTagProtection(@Path() owner: string, @Path() repo: string, @Path() id: number, @Body() body: EditTagProtectionOption, @Request() req: ExRequest): Promise<TagProtection> {
    const ctx = ctxOf(req);
    return rule(await editTagProtection(ctx, await repoAssignment(ctx, req.principal, owner, repo), id, body));
  }

  /** Delete a tag protection rule. */
  @Delete('tag_protections/{id}')
  @Security('signed', ['repository'])
  @SuccessResponse(204, 'empty')
  @Response<ApiErrorBody>(404, 'not found')
  public async repoDeleteTagProtection(@Path() owner: string, @Path() repo: string, @Path() id: number, @Request() req: ExRequest): Promise<void> {
    const ctx = ctxOf(req);
    await removeTagProtection(ctx, await repoAssignment(ctx, req.principal, owner, repo), id);
    this.setStatus(204);
  }
}
