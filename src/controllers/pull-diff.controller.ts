/**
 * A pull request as a diff or a patch (`/pulls/{index}.diff`, `.patch`). why: a controller of its
 * own, since tsoa refuses `{index}.{diffType}` beside `{index}` in one controller (the route order,
 * middleware/route-order.ts, tries it before `{index}`).
 */
import type { Readable } from 'node:stream';
import type { Request as ExRequest } from 'express';
import { Controller, Get, Path, Produces, Query, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import { NotFound, type ApiErrorBody } from '../errors';
import { ctxOf } from '../middleware/context';
import { repoAssignment } from '../services/repo/context';
import { pullDiff } from '../services/pull/diff.service';

@Route('repos/{owner}/{repo}/pulls')
@Tags('repository')
export class PullDiffController extends Controller {
  /** The pull request as a diff or as a patch (format-patch), streamed from git or sent as kept. */
  @Get('{index}.{diffType}')
  @Security('public', ['repository'])
  @Produces('text/plain')
  @Response<ApiErrorBody>(404, 'not found')
  public async repoDownloadPullDiffOrPatch(
    @Path() owner: string, @Path() repo: string, @Path() index: number, @Path() diffType: string, @Request() req: ExRequest, @Query() binary?: boolean,
  ): Promise<Readable> {
    if (diffType !== 'diff' && diffType !== 'patch') throw new NotFound();
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    const body = await pullDiff(ctx, rc, index, diffType, !!binary);
    this.setHeader('Content-Type', 'text/plain; charset=utf-8');
    this.setHeader('X-Content-Type-Options', 'nosniff');
    return body;
  }
}
