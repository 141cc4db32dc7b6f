/** Repository archives: `GET /repos/{owner}/{repo}/archive/{ref}.zip|.tar.gz|.bundle`, streamed. */
import type { Request as ExRequest } from 'express';
import { Controller, Get, Path, Produces, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { ApiErrorBody } from '../errors';
import { ctxOf } from '../middleware/context';
import { repoAssignment } from '../services/repo/context';
import { openArchive } from '../services/archive/archive.service';

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
    const a = await openArchive(rc, archive);
    const res = req.res!;
    res.status(200);
    res.setHeader('Content-Type', a.contentType);
    res.setHeader('Content-Disposition', `attachment; filename="${a.filename.replace(/["\\\r\n]/g, '_')}"`);
    if (a.size !== undefined) res.setHeader('Content-Length', String(a.size));
    // why: the body is written here (tsoa sends nothing once headers are out). Headers go out with
    // the first byte: a build that fails before it (a refused archive) is answered as an error; one
    // that fails later can only cut the response short.
    await a.writeTo(res).catch((err: Error) => {
      if (!res.headersSent) {
        for (const h of ['Content-Type', 'Content-Disposition', 'Content-Length']) res.removeHeader(h);
        throw err;
      }
      if (!res.destroyed) console.error(`archive ${owner}/${repo}/${archive}: ${err.message}`);
      res.destroy();
    });
  }
}
