/**
 * Releases of a repository: list (draft and pre-release filters), create, latest, get, edit and
 * delete by id, get and delete by tag. A disabled releases unit answers 404.
 */
import type { Request as ExRequest } from 'express';
import { Body, Controller, Delete, Get, Patch, Path, Post, Query, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { CreateReleaseOption, EditReleaseOption, Release } from '../api/release';
import type { ApiErrorBody } from '../errors';
import { settings } from '../config';
import { ctxOf, doerOf } from '../middleware/context';
import { listOptions, setPaging } from '../middleware/paging';
import { repoUrls } from '../services/content/view';
import { toRelease } from '../convert/release';
import { repoAssignment, type RepoContext } from '../services/repo/context';
import {
  createRelease, deleteRelease, deleteReleaseByTag, editRelease, getLatestRelease, getRelease, getReleaseByTag, listReleases, type ReleaseView,
} from '../services/release/release.service';

const out = (rc: RepoContext, v: ReleaseView): Release => {
  const root = settings().server.rootUrl;
  return toRelease(v.row, repoUrls(root, rc.owner.name, rc.repo.name), v.publisher, v.assets, root);
};

@Route('repos/{owner}/{repo}/releases')
@Tags('repository')
export class ReleaseController extends Controller {
  /** List releases, newest first (drafts only for writers of the releases unit). */
  @Get()
  @Security('public', ['repository'])
  @Response<ApiErrorBody>(404, 'not found')
  public async repoListReleases(
    @Path() owner: string, @Path() repo: string, @Request() req: ExRequest,
    @Query() draft?: boolean, @Query('pre-release') prerelease?: boolean, @Query() page?: number, @Query() limit?: number,
  ): Promise<Release[]> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    const opts = listOptions(page, limit);
    const { items, total } = await listReleases(ctx, rc, { draft, prerelease }, opts);
    setPaging(req, opts, total);
    return items.map((v) => out(rc, v));
  }

  /** Create a release; a missing tag is created at `target_commitish` (annotated with `tag_message`). */
  @Post()
  @Security('signed', ['repository'])
  @SuccessResponse(201, 'Release')
  @Response<ApiErrorBody>(404, 'target not found')
  @Response<ApiErrorBody>(409, 'a release exists for the tag')
  @Response<ApiErrorBody>(422, 'validation error, empty repository or protected tag')
  @Response<ApiErrorBody>(423, 'archived')
  public async repoCreateRelease(@Path() owner: string, @Path() repo: string, @Body() body: CreateReleaseOption, @Request() req: ExRequest): Promise<Release> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    const v = await createRelease(ctx, doerOf(req), rc, body);
    this.setStatus(201);
    return out(rc, v);
  }

  /** The newest published release that is not a pre-release. */
  @Get('latest')
  @Security('public', ['repository'])
  @Response<ApiErrorBody>(404, 'not found')
  public async repoGetLatestRelease(@Path() owner: string, @Path() repo: string, @Request() req: ExRequest): Promise<Release> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    return out(rc, await getLatestRelease(ctx, rc));
  }

  /** Get the release of a tag. */
  @Get('tags/{tag}')
  @Security('public', ['repository'])
  @Response<ApiErrorBody>(404, 'not found')
  public async repoGetReleaseByTag(@Path() owner: string, @Path() repo: string, @Path() tag: string, @Request() req: ExRequest): Promise<Release> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    return out(rc, await getReleaseByTag(ctx, rc, tag));
  }

  /** Delete the release of a tag (the tag stays). */
  @Delete('tags/{tag}')
  @Security('signed', ['repository'])
  @SuccessResponse(204, 'empty')
  @Response<ApiErrorBody>(404, 'not found')
  public async repoDeleteReleaseByTag(@Path() owner: string, @Path() repo: string, @Path() tag: string, @Request() req: ExRequest): Promise<void> {
    const ctx = ctxOf(req);
    await deleteReleaseByTag(ctx, doerOf(req), await repoAssignment(ctx, req.principal, owner, repo), tag);
    this.setStatus(204);
  }

  /** Get a release. */
  @Get('{id}')
  @Security('public', ['repository'])
  @Response<ApiErrorBody>(404, 'not found')
  public async repoGetRelease(@Path() owner: string, @Path() repo: string, @Path() id: number, @Request() req: ExRequest): Promise<Release> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    return out(rc, await getRelease(ctx, rc, id));
  }

  /** Edit a release; empty or omitted fields keep their value. */
  @Patch('{id}')
  @Security('signed', ['repository'])
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(409, 'the new tag carries another release')
  @Response<ApiErrorBody>(422, 'validation error or protected tag')
  public async repoEditRelease(@Path() owner: string, @Path() repo: string, @Path() id: number, @Body() body: EditReleaseOption, @Request() req: ExRequest): Promise<Release> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    return out(rc, await editRelease(ctx, doerOf(req), rc, id, body));
  }

  /** Delete a release (its tag stays). */
  @Delete('{id}')
  @Security('signed', ['repository'])
  @SuccessResponse(204, 'empty')
  @Response<ApiErrorBody>(404, 'not found')
  public async repoDeleteRelease(@Path() owner: string, @Path() repo: string, @Path() id: number, @Request() req: ExRequest): Promise<void> {
    const ctx = ctxOf(req);
    await deleteRelease(ctx, doerOf(req), await repoAssignment(ctx, req.principal, owner, repo), id);
    this.setStatus(204);
  }
}
