/** Repository archives: `GET /repos/{owner}/{repo}/archive/{ref}.zip|.tar.gz|.bundle`, streamed. */
import type { Request as ExRequest } from 'express';
import { Controller, Get, Path, Produces, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { ApiErrorBody } from '../errors';
import { ctxOf } from '../middleware/context';
import { repoAssignment } from '../services/repo/context';
import { openArchive } from '../services/archive/archive.service';
import { sendArchive } from '../middleware/send';

@Route('repos/{owner}/{repo}')
@Tags('repository')
export class ArchiveController extends Controller {
  /** An archive of a branch, tag or commit (the name may contain slashes, e.g. `release/v1.tar.gz`). */
  @Get('archive/{archive}')
  @Security('public', ['repository'])
  @Produces('application/octet-stream')
  @SuccessResponse(200, 'the archive')
  @Response<ApiErrorBody>(404, 'not found')
  public async repoGetArchive(@Path() owner: string, @Path() repo: string, @Path() archive: string, @Request() req: ExRequest): Promise<void> {
    const rc = await repoAssignment(ctxOf(req), req.principal, owner, repo);
    await sendArchive(req.res!, await openArchive(rc, archive), `${owner}/${repo}/${archive}`);
  }
}
