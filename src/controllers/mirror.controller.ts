/**
 * Migrations and mirrors: POST /repos/migrate, a pull mirror's sync, and a repository's push
 * mirrors (list, get, add, delete, push now), as Gitea 1.24 answers them.
 */
import type { Request as ExRequest } from 'express';
import { Body, Controller, Delete, Get, Path, Post, Query, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { Repository } from '../api/repo';
import type { CreatePushMirrorOption, MigrateRepoOptions, PushMirror } from '../api/mirror';
import type { ApiErrorBody } from '../errors';
import { settings } from '../config';
import { ctxOf, doerOf, viewerOf } from '../middleware/context';
import { listOptions, setPaging } from '../middleware/paging';
import { toRepositoryView } from '../convert/repo';
import { toPushMirror } from '../convert/mirror';
import { repoAssignment } from '../services/repo/context';
import { viewOf } from '../services/repo/repo.service';
import { migrateRepo } from '../services/migration/migrate.service';
import { requestPullSync } from '../services/mirror/pull-mirror.service';
import { addPushMirror, getPushMirror, listRepoPushMirrors, removePushMirror, syncRepoPushMirrors } from '../services/mirror/push-mirror.service';

@Route('repos')
@Tags('repository')
export class MirrorController extends Controller {
  /** Migrate a remote git repository (a pull mirror with `mirror`). */
  @Post('migrate')
  @Security('signed', ['repository'])
  @SuccessResponse(201, 'Repository')
  @Response<ApiErrorBody>(403, 'not allowed')
  @Response<ApiErrorBody>(409, 'the name is taken')
  @Response<ApiErrorBody>(422, 'validation error, a refused address, or a failed clone')
  public async repoMigrate(@Body() body: MigrateRepoOptions, @Request() req: ExRequest): Promise<Repository> {
    const ctx = ctxOf(req);
    const { repo, owner } = await migrateRepo(ctx, doerOf(req), body);
    this.setStatus(201);
    return toRepositoryView(await viewOf(ctx, req.principal, repo, owner), viewerOf(req), settings().server.rootUrl);
  }

  /** Queue a sync of a pull mirror. */
  @Post('{owner}/{repo}/mirror-sync')
  @Security('signed', ['repository'])
  @SuccessResponse(200, 'queued')
  @Response<ApiErrorBody>(400, 'not a mirror, or mirrors are disabled')
  @Response<ApiErrorBody>(403, 'not a writer')
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(423, 'archived')
  public async repoMirrorSync(@Path() owner: string, @Path() repo: string, @Request() req: ExRequest): Promise<void> {
    const ctx = ctxOf(req);
    await requestPullSync(ctx, await repoAssignment(ctx, req.principal, owner, repo));
    this.setStatus(200);
  }

  /** List a repository's push mirrors. */
  @Get('{owner}/{repo}/push_mirrors')
  @Security('signed', ['repository'])
  @Response<ApiErrorBody>(400, 'mirrors are disabled')
  @Response<ApiErrorBody>(403, 'not a repository administrator')
  @Response<ApiErrorBody>(404, 'not found')
  public async repoListPushMirrors(@Path() owner: string, @Path() repo: string, @Request() req: ExRequest, @Query() page?: number, @Query() limit?: number): Promise<PushMirror[]> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    const opts = listOptions(page, limit);
    const { rows, count } = await listRepoPushMirrors(ctx, rc, opts.offset, opts.limit);
    setPaging(req, opts, count);
    return rows.map((m) => toPushMirror(m, rc.repo.name));
  }

  /** Add a push mirror; it first pushes at the next look at the schedule, or on demand. */
  @Post('{owner}/{repo}/push_mirrors')
  @Security('signed', ['repository'])
  @SuccessResponse(200, 'PushMirror')
  @Response<ApiErrorBody>(400, 'a bad interval or address, or mirrors are disabled')
  @Response<ApiErrorBody>(401, 'the address is not allowed')
  @Response<ApiErrorBody>(403, 'not a repository administrator')
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(423, 'archived')
  public async repoAddPushMirror(@Path() owner: string, @Path() repo: string, @Body() body: CreatePushMirrorOption, @Request() req: ExRequest): Promise<PushMirror> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    return toPushMirror(await addPushMirror(ctx, rc, body), rc.repo.name);
  }

  /** Push every push mirror of a repository now. */
  @Post('{owner}/{repo}/push_mirrors-sync')
  @Security('signed', ['repository'])
  @SuccessResponse(200, 'pushed')
  @Response<ApiErrorBody>(400, 'mirrors are disabled')
  @Response<ApiErrorBody>(403, 'not a repository administrator')
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(423, 'archived')
  public async repoPushMirrorSync(@Path() owner: string, @Path() repo: string, @Request() req: ExRequest): Promise<void> {
    const ctx = ctxOf(req);
    await syncRepoPushMirrors(ctx, await repoAssignment(ctx, req.principal, owner, repo));
    this.setStatus(200);
  }

  /** Get a push mirror by its remote name. */
  @Get('{owner}/{repo}/push_mirrors/{name}')
  @Security('signed', ['repository'])
  @Response<ApiErrorBody>(400, 'mirrors are disabled')
  @Response<ApiErrorBody>(403, 'not a repository administrator')
  @Response<ApiErrorBody>(404, 'not found')
  public async repoGetPushMirrorByRemoteName(@Path() owner: string, @Path() repo: string, @Path() name: string, @Request() req: ExRequest): Promise<PushMirror> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    return toPushMirror(await getPushMirror(ctx, rc, name), rc.repo.name);
  }

  /** Delete a push mirror by its remote name. */
  @Delete('{owner}/{repo}/push_mirrors/{name}')
  @Security('signed', ['repository'])
  @SuccessResponse(204, 'deleted')
  @Response<ApiErrorBody>(400, 'mirrors are disabled')
  @Response<ApiErrorBody>(403, 'not a repository administrator')
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(423, 'archived')
  public async repoDeletePushMirror(@Path() owner: string, @Path() repo: string, @Path() name: string, @Request() req: ExRequest): Promise<void> {
    const ctx = ctxOf(req);
    await removePushMirror(ctx, await repoAssignment(ctx, req.principal, owner, repo), name);
    this.setStatus(204);
  }
}
