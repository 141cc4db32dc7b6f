/** Repository archives: `GET /repos/{owner}/{repo}/archive/{ref}.zip|.tar.gz|.bundle`, streamed. */
import type { Readable } from 'node:stream';
import type { Request as ExRequest } from 'express';
import { Controller, Get, Path, Produces, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
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
  @Response<ApiErrorBody>(404, 'not found')
  public async repoGetArchive(@Path() owner: string, @Path() repo: string, @Path() archive: string, @Request() req: ExRequest): Promise<Readable> {
    const rc = await repoAssignment(ctxOf(req), req.principal, owner, repo);
    const a = await openArchive(rc, archive);
    // why: a client that leaves must not keep the file open; a build goes on and still fills the cache.
    // A build that fails after the headers went out can only cut the response short.
    req.res!.once('close', () => a.stream.destroy());
    a.stream.once('error', (err) => {
      console.error(`archive ${owner}/${repo}/${archive}: ${err.message}`);
      req.res!.destroy();
    });
    this.setHeader('Content-Type', a.contentType);
    this.setHeader('Content-Disposition', `attachment; filename="${a.filename.replace(/["\\\r\n]/g, '_')}"`);
    if (a.size !== undefined) this.setHeader('Content-Length', String(a.size));
    return a.stream;
  }
}
