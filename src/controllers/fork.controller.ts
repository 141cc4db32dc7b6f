/**
 * Forks (`/repos/{owner}/{repo}/forks`) and generating a repository from a template
 * (`/repos/{template_owner}/{template_repo}/generate`).
 */
import type { Request as ExRequest } from 'express';
import { Body, Controller, Get, Path, Post, Query, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { CreateForkOption, GenerateRepoOption, Repository } from '../api/repo';
import type { ApiErrorBody } from '../errors';
import { ctxOf, doerOf, viewerOf } from '../middleware/context';
import { listOptions, setPaging } from '../middleware/paging';
import { sshCloneUrl, toRepositoryView } from '../convert/repo';
import { settings } from '../config';
import type { RepositoryModel } from '../models/repository.model';
import { findUserById } from '../models/user.model';
import { repoAssignment } from '../services/repo/context';
import { viewOf, viewsOf, type RepoView } from '../services/repo/repo.service';
import { forkRepo, listForks } from '../services/lifecycle/fork.service';
import { generateRepo } from '../services/lifecycle/generate.service';

@Route('repos')
@Tags('repository')
export class ForkController extends Controller {
  private out(req: ExRequest, v: RepoView): Repository {
    const s = settings().server;
    return toRepositoryView(v, viewerOf(req), s.rootUrl);
  }

  private async shown(req: ExRequest, repo: RepositoryModel): Promise<Repository> {
    const ctx = ctxOf(req);
    const owner = await findUserById(ctx, repo.ownerId);
    return this.out(req, await viewOf(ctx, req.principal, repo, owner!));
  }

  /** List the forks of a repository that the caller may see. */
  @Get('{owner}/{repo}/forks')
  @Security('public', ['repository'])
  @Response<ApiErrorBody>(404, 'not found')
  public async listForks(@Path() owner: string, @Path() repo: string, @Request() req: ExRequest, @Query() page?: number, @Query() limit?: number): Promise<Repository[]> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    const opts = listOptions(page, limit);
    const { rows, count } = await listForks(ctx, req.principal, rc, opts.limit, opts.offset);
    setPaging(req, opts, count);
    return (await viewsOf(ctx, req.principal, rows)).map((v) => this.out(req, v));
  }

  /** Fork a repository for the caller or one of its organizations (202, as Gitea). */
  @Post('{owner}/{repo}/forks')
  @Security('signed', ['repository'])
  @SuccessResponse(202, 'Repository')
  @Response<ApiErrorBody>(403, 'not allowed')
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(409, 'already forked, name or files taken')
  @Response<ApiErrorBody>(422, 'validation error')
  public async createFork(@Path() owner: string, @Path() repo: string, @Body() body: CreateForkOption, @Request() req: ExRequest): Promise<Repository> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    const fork = await forkRepo(ctx, req.principal, doerOf(req), rc, body);
    this.setStatus(202);
    return this.shown(req, fork);
  }

  /** Create a repository from a template repository. */
  @Post('{template_owner}/{template_repo}/generate')
  @Security('signed', ['repository'])
  @SuccessResponse(201, 'Repository')
  @Response<ApiErrorBody>(403, 'not allowed')
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(409, 'name or files taken')
  @Response<ApiErrorBody>(422, 'validation error')
  public async generateRepo(
    @Path() template_owner: string, @Path() template_repo: string, @Body() body: GenerateRepoOption, @Request() req: ExRequest,
  ): Promise<Repository> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, template_owner, template_repo);
    const s = settings().server;
    const urls = (o: string, n: string) => ({ https: `${s.rootUrl}${o}/${n}.git`, ssh: sshCloneUrl(`${o}/${n}`) });
    const created = await generateRepo(ctx, doerOf(req), rc, body, urls);
    this.setStatus(201);
    return this.shown(req, created);
  }
}
