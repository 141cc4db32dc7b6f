/**
 * Site administration of unadopted repositories (`/admin/unadopted`): bare repositories on disk
 * whose owner exists but that have no row; list them, adopt one, or delete its files.
 */
import type { Request as ExRequest } from 'express';
import { Controller, Delete, Get, Path, Post, Query, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { ApiErrorBody } from '../errors';
import { ctxOf, doerOf } from '../middleware/context';
import { listOptions, setPaging } from '../middleware/paging';
import { adoptRepository, deleteUnadopted, listUnadopted } from '../services/lifecycle/unadopted.service';

@Route('admin/unadopted')
@Tags('admin')
export class AdminUnadoptedController extends Controller {
  /**
   * `owner/name` of the unadopted repositories matching `pattern` (`owner-glob/name-glob`, or an
   * owner glob alone; Gitea's handler reads it as `query`, which is accepted too).
   */
  @Get()
  @Security('admin', ['admin'])
  @Response<ApiErrorBody>(403, 'forbidden')
  public async adminUnadoptedList(@Request() req: ExRequest, @Query() page?: number, @Query() limit?: number, @Query() pattern?: string, @Query() query?: string): Promise<string[]> {
    const opts = listOptions(page, limit);
    const { names, count } = await listUnadopted(ctxOf(req), pattern ?? query ?? '', opts.limit, opts.offset);
    setPaging(req, opts, count);
    return names;
  }

  /** Adopt the files of `owner/repo` as a private repository of `owner`. */
  @Post('{owner}/{repo}')
  @Security('admin', ['admin'])
  @SuccessResponse(204, 'adopted')
  @Response<ApiErrorBody>(403, 'forbidden')
  @Response<ApiErrorBody>(404, 'no such owner, a repository row exists, or no directory')
  @Response<ApiErrorBody>(422, 'not a usable name or not a bare repository')
  public async adminAdoptRepository(@Path() owner: string, @Path() repo: string, @Request() req: ExRequest): Promise<void> {
    await adoptRepository(ctxOf(req), doerOf(req), owner, repo);
    this.setStatus(204);
  }

  /** Delete the files of the unadopted repository `owner/repo`. */
  @Delete('{owner}/{repo}')
  @Security('admin', ['admin'])
  @SuccessResponse(204, 'deleted')
  @Response<ApiErrorBody>(403, 'forbidden')
  @Response<ApiErrorBody>(404, 'no such owner, a repository row exists, or no directory')
  public async adminDeleteUnadoptedRepository(@Path() owner: string, @Path() repo: string, @Request() req: ExRequest): Promise<void> {
    await deleteUnadopted(ctxOf(req), owner, repo);
    this.setStatus(204);
  }
}
