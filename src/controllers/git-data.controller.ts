/**
 * Git data of a repository: `/git/blobs/{sha}`, `/git/trees/{sha}`, `/git/refs[/{ref}]`,
 * `/git/tags/{sha}` and `/languages`. Code read access is needed for all of them.
 */
import type { Request as ExRequest } from 'express';
import { Controller, Get, Path, Query, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { AnnotatedTag, GitBlobResponse, GitTreeResponse, Reference } from '../api/contents';
import type { ApiErrorBody } from '../errors';
import { ctxOf } from '../middleware/context';
import { codeRepo } from '../services/content/access';
import { getAnnotatedTag, getBlob, getRefs, getTree, languages } from '../services/content/git-data.service';

@Route('repos/{owner}/{repo}')
@Tags('repository')
export class GitDataController extends Controller {
  /** A blob with its base64 content. */
  @Get('git/blobs/{sha}')
  @Security('public', ['repository'])
  @Response<ApiErrorBody>(400, 'no such blob')
  @Response<ApiErrorBody>(404, 'not found')
  public async GetBlob(@Path() owner: string, @Path() repo: string, @Path() sha: string, @Request() req: ExRequest): Promise<GitBlobResponse> {
    return getBlob(await codeRepo(ctxOf(req), req.principal, owner, repo), sha);
  }

  /** A tree (of a tree, commit or tag id, or a branch or tag name), paged, optionally recursive. */
  @Get('git/trees/{sha}')
  @Security('public', ['repository'])
  @Response<ApiErrorBody>(400, 'no such tree')
  @Response<ApiErrorBody>(404, 'not found')
  public async GetTree(
    @Path() owner: string, @Path() repo: string, @Path() sha: string, @Request() req: ExRequest,
    @Query() recursive?: boolean, @Query() page?: number, @Query() per_page?: number,
  ): Promise<GitTreeResponse> {
    return getTree(await codeRepo(ctxOf(req), req.principal, owner, repo), sha, !!recursive, page, per_page);
  }

  /** Every ref of the repository. */
  @Get('git/refs')
  @Security('public', ['repository'])
  @Response<ApiErrorBody>(404, 'no refs')
  public async repoListAllGitRefs(@Path() owner: string, @Path() repo: string, @Request() req: ExRequest): Promise<Reference | Reference[]> {
    return getRefs(await codeRepo(ctxOf(req), req.principal, owner, repo), '');
  }

  /** The ref named exactly, or the refs starting with `refs/{ref}`. */
  @Get('git/refs/{ref}')
  @Security('public', ['repository'])
  @Response<ApiErrorBody>(404, 'no such ref')
  public async repoListGitRefs(@Path() owner: string, @Path() repo: string, @Path() ref: string, @Request() req: ExRequest): Promise<Reference | Reference[]> {
    return getRefs(await codeRepo(ctxOf(req), req.principal, owner, repo), ref);
  }

  /** An annotated tag object. */
  @Get('git/tags/{sha}')
  @Security('public', ['repository'])
  @Response<ApiErrorBody>(400, 'no such annotated tag')
  @Response<ApiErrorBody>(404, 'not found')
  public async GetAnnotatedTag(@Path() owner: string, @Path() repo: string, @Path() sha: string, @Request() req: ExRequest): Promise<AnnotatedTag> {
    const ctx = ctxOf(req);
    return getAnnotatedTag(ctx, await codeRepo(ctx, req.principal, owner, repo), sha);
  }

  /** Bytes of code per language on the default branch. */
  @Get('languages')
  @Security('public', ['repository'])
  @Response<ApiErrorBody>(404, 'not found')
  public async repoGetLanguages(@Path() owner: string, @Path() repo: string, @Request() req: ExRequest): Promise<Record<string, number>> {
    return languages(await codeRepo(ctxOf(req), req.principal, owner, repo));
  }
}
