/**
 * Branches of a repository: list, get, create, delete and rename (Gitea 1.24's PATCH
 * "UpdateBranch"). Branch names may contain `/` (middleware/ref-paths.ts).
 */
import type { Request as ExRequest } from 'express';
import { Body, Controller, Delete, Get, Patch, Path, Post, Query, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { Branch, CreateBranchRepoOption, UpdateBranchRepoOption } from '../api/refs';
import type { ApiErrorBody } from '../errors';
import { settings } from '../config';
import { ctxOf, doerOf } from '../middleware/context';
import { listOptions, setPaging } from '../middleware/paging';
import { toBranch } from '../convert/refs';
import { repoUrls } from '../services/content/view';
import { repoAssignment, type RepoContext } from '../services/repo/context';
import { createBranch, deleteBranch, getBranch, listBranches, renameBranch, type BranchView } from '../services/refs/branch.service';

const out = (rc: RepoContext, v: BranchView) => toBranch(v.name, v.commit, repoUrls(settings().server.rootUrl, rc.owner.name, rc.repo.name), v.usernames, v.protection);

@Route('repos/{owner}/{repo}/branches')
@Tags('repository')
export class BranchController extends Controller {
  /** List a repository's branches. */
  @Get()
  @Security('public', ['repository'])
  @Response<ApiErrorBody>(404, 'not found')
  public async repoListBranches(@Path() owner: string, @Path() repo: string, @Request() req: ExRequest, @Query() page?: number, @Query() limit?: number): Promise<Branch[]> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    const opts = listOptions(page, limit);
    const { items, total } = await listBranches(ctx, rc, req.principal.user, opts);
    setPaging(req, opts, total);
    return items.map((v) => out(rc, v));
  }

  /** Create a branch from a branch, tag or commit (`old_ref_name`; `old_branch_name` is deprecated). */
  @Post()
  @Security('signed', ['repository'])
  @SuccessResponse(201, 'Branch')
  @Response<ApiErrorBody>(403, 'not a writer, or a mirror')
  @Response<ApiErrorBody>(404, 'the old branch does not exist, or the repository is empty')
  @Response<ApiErrorBody>(409, 'the branch exists')
  @Response<ApiErrorBody>(422, 'validation error')
  @Response<ApiErrorBody>(423, 'archived')
  public async repoCreateBranch(@Path() owner: string, @Path() repo: string, @Body() body: CreateBranchRepoOption, @Request() req: ExRequest): Promise<Branch> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    const v = await createBranch(ctx, doerOf(req), rc, body);
    this.setStatus(201);
    return out(rc, v);
  }

  /** Get a branch. */
  @Get('{branch}')
  @Security('public', ['repository'])
  @Response<ApiErrorBody>(404, 'not found')
  public async repoGetBranch(@Path() owner: string, @Path() repo: string, @Path() branch: string, @Request() req: ExRequest): Promise<Branch> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    return out(rc, await getBranch(ctx, rc, req.principal.user, branch));
  }

  /** Delete a branch (not the default branch). */
  @Delete('{branch}')
  @Security('signed', ['repository'])
  @SuccessResponse(204, 'empty')
  @Response<ApiErrorBody>(403, 'the default branch, not a writer, or a mirror')
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(423, 'archived')
  public async repoDeleteBranch(@Path() owner: string, @Path() repo: string, @Path() branch: string, @Request() req: ExRequest): Promise<void> {
    const ctx = ctxOf(req);
    await deleteBranch(ctx, doerOf(req), await repoAssignment(ctx, req.principal, owner, repo), branch);
    this.setStatus(204);
  }

  /** Rename a branch; renaming the default branch (repository admins) moves the default with it. */
  @Patch('{branch}')
  @Security('signed', ['repository'])
  @SuccessResponse(204, 'empty')
  @Response<ApiErrorBody>(403, 'not allowed')
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(422, 'the new name exists or is invalid')
  @Response<ApiErrorBody>(423, 'archived')
  public async repoUpdateBranch(@Path() owner: string, @Path() repo: string, @Path() branch: string, @Body() body: UpdateBranchRepoOption, @Request() req: ExRequest): Promise<void> {
    const ctx = ctxOf(req);
    await renameBranch(ctx, doerOf(req), await repoAssignment(ctx, req.principal, owner, repo), branch, body);
    this.setStatus(204);
  }
}
