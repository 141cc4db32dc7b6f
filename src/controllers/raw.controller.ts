/**
 * File bytes: `/raw/{filepath}` (also `/raw/{ref}/{filepath}`), `/media/{filepath}` (LFS objects
 * behind pointers) and a commit's `/git/commits/{sha}.diff|.patch`, all streamed from git or the LFS
 * store; git dies with the client (the request's cancellation, src/git/cancel.ts). why: this file
 * sorts after the other git controllers so its `{sha}.{diffType}` route is registered before a JSON
 * `/git/commits/{sha}` one could capture it.
 */
import type { Readable } from 'node:stream';
import type { Request as ExRequest } from 'express';
import { Controller, Get, Path, Produces, Query, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { ApiErrorBody } from '../errors';
import { NotFound } from '../errors';
import { ctxOf } from '../middleware/context';
import { codeRepo } from '../services/content/access';
import { mediaFile, rawFile, type RawFile } from '../services/content/raw.service';
import { rawDiff } from '../services/content/git-data.service';

@Route('repos/{owner}/{repo}')
@Tags('repository')
export class RawController extends Controller {
  private send(f: RawFile): Readable | null {
    for (const [k, v] of Object.entries(f.headers)) this.setHeader(k, v);
    this.setStatus(f.status);
    return f.body;
  }

  /** A file's bytes at `ref` (default branch), or at the ref the path starts with. */
  @Get('raw/{filepath}')
  @Security('public', ['repository'])
  @Produces('application/octet-stream')
  @Response<ApiErrorBody>(404, 'not found')
  public async repoGetRawFile(@Path() owner: string, @Path() repo: string, @Path() filepath: string, @Request() req: ExRequest, @Query() ref?: string): Promise<Readable | null> {
    const cr = await codeRepo(ctxOf(req), req.principal, owner, repo);
    return this.send(await rawFile(cr, filepath, ref, req.header('if-none-match')));
  }

  /** A file's bytes, or the LFS object its pointer names. */
  @Get('media/{filepath}')
  @Security('public', ['repository'])
  @Produces('application/octet-stream')
  @Response<ApiErrorBody>(404, 'not found')
  public async repoGetRawFileOrLFS(@Path() owner: string, @Path() repo: string, @Path() filepath: string, @Request() req: ExRequest, @Query() ref?: string): Promise<Readable | null> {
    const cr = await codeRepo(ctxOf(req), req.principal, owner, repo);
    return this.send(await mediaFile(ctxOf(req), cr, filepath, ref, req.header('if-none-match')));
  }

  /** A commit as a raw diff or as a patch (format-patch). */
  @Get('git/commits/{sha}.{diffType}')
  @Security('public', ['repository'])
  @Produces('text/plain')
  @Response<ApiErrorBody>(404, 'not found')
  public async repoDownloadCommitDiffOrPatch(@Path() owner: string, @Path() repo: string, @Path() sha: string, @Path() diffType: string, @Request() req: ExRequest): Promise<Readable> {
    // why: Express splits at the first dot, so a ref such as `v1.0.diff` arrives as `v1` + `0.diff`.
    const m = /^(.+)\.(diff|patch)$/.exec(`${sha}.${diffType}`);
    if (!m) throw new NotFound();
    const cr = await codeRepo(ctxOf(req), req.principal, owner, repo);
    const child = await rawDiff(cr, m[1], m[2] as 'diff' | 'patch');
    child.stderr.resume();
    this.setHeader('Content-Type', 'text/plain; charset=utf-8');
    this.setHeader('X-Content-Type-Options', 'nosniff');
    return child.stdout;
  }
}
