/**
 * Repositories: creation (`/user/repos`, `/orgs/{org}/repos`, `/admin/users/{username}/repos`),
 * `/repos/{owner}/{repo}` get/edit/delete, `/repositories/{id}`, `/repos/search` and the listings
 * of a user or organization.
 */
import type { Request as ExRequest } from 'express';
import { Body, Controller, Delete, Deprecated, Get, Patch, Path, Post, Query, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { CreateRepoOption, EditRepoOption, Repository, SearchResults } from '../api/repo';
import type { ApiErrorBody } from '../errors';
import { ctxOf, doerOf, viewerOf } from '../middleware/context';
import { listOptions, setPaging } from '../middleware/paging';
import { toRepositoryView } from '../convert/repo';
import { settings } from '../config';
import { UserType, type UserModel } from '../models/user.model';
import { lookupOwner } from '../services/user/lookup';
import { resolveOrg } from '../services/org/guard';
import { repoAssignment } from '../services/repo/context';
import { createRepo } from '../services/lifecycle/repo-create.service';
import { assertCanCreateInOrg } from '../services/repo/rules';
import { editRepo, repoById, viewOf, listRepos, type RepoView, type RepoListQuery } from '../services/repo/repo.service';
import { deleteRepo } from '../services/lifecycle/repo-delete.service';
import type { RepositoryModel } from '../models/repository.model';

type Sort = RepoListQuery['sort'];
const SORTS: Sort[] = ['alpha', 'created', 'updated', 'size', 'id'];

@Route('')
@Tags('repository')
export class RepoController extends Controller {
  private out(req: ExRequest, v: RepoView): Repository {
    const s = settings().server;
    return toRepositoryView(v, viewerOf(req), s.rootUrl);
  }

  private async created(req: ExRequest, repo: RepositoryModel, owner: UserModel): Promise<Repository> {
    this.setStatus(201);
    return this.out(req, await viewOf(ctxOf(req), req.principal, repo, owner));
  }

  private async list(req: ExRequest, q: Omit<RepoListQuery, 'limit' | 'offset' | 'sort' | 'order'>, page?: number, limit?: number, sort?: string, order?: string): Promise<Repository[]> {
    const opts = listOptions(page, limit);
    const s = (SORTS as string[]).includes(sort ?? '') ? (sort as Sort) : q.ownerId !== undefined ? 'id' : 'alpha';
    const o = order === 'desc' ? 'desc' : 'asc';
    const { views, count } = await listRepos(ctxOf(req), req.principal, { ...q, sort: s, order: o, limit: opts.limit, offset: opts.offset });
    setPaging(req, opts, count);
    return views.map((v) => this.out(req, v));
  }

  /** Create a repository for the caller. */
  @Post('user/repos')
  @Security('signed', ['user', 'repository'])
  @SuccessResponse(201, 'Repository')
  @Response<ApiErrorBody>(403, 'repository limit reached')
  @Response<ApiErrorBody>(409, 'name taken')
  @Response<ApiErrorBody>(422, 'validation error')
  public async createCurrentUserRepo(@Body() body: CreateRepoOption, @Request() req: ExRequest): Promise<Repository> {
    const doer = doerOf(req);
    return this.created(req, await createRepo(ctxOf(req), doer, doer, body), doer);
  }

  /** Create a repository in an organization (owners, or members of a team with can_create_org_repo). */
  @Post('orgs/{org}/repos')
  @Security('signed', ['organization', 'repository'])
  @SuccessResponse(201, 'Repository')
  @Response<ApiErrorBody>(403, 'not allowed')
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(409, 'name taken')
  @Response<ApiErrorBody>(422, 'validation error')
  public async createOrgRepo(@Path() org: string, @Body() body: CreateRepoOption, @Request() req: ExRequest): Promise<Repository> {
    const ctx = ctxOf(req);
    const o = await resolveOrg(ctx, req.principal, org);
    await assertCanCreateInOrg(ctx, doerOf(req), o);
    return this.created(req, await createRepo(ctx, doerOf(req), o, body), o);
  }

  /** Create a repository in an organization: the deprecated path of `POST /orgs/{org}/repos`, the same call. */
  @Post('org/{org}/repos')
  @Deprecated()
  @Security('signed', ['organization', 'repository'])
  @SuccessResponse(201, 'Repository')
  @Response<ApiErrorBody>(403, 'not allowed')
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(409, 'name taken')
  @Response<ApiErrorBody>(422, 'validation error')
  public async createOrgRepoDeprecated(@Path() org: string, @Body() body: CreateRepoOption, @Request() req: ExRequest): Promise<Repository> {
    return this.createOrgRepo(org, body, req);
  }

  /** Create a repository for a user or organization (site admins). */
  @Post('admin/users/{username}/repos')
  @Security('admin', ['admin'])
  @SuccessResponse(201, 'Repository')
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(409, 'name taken')
  @Response<ApiErrorBody>(422, 'validation error')
  public async adminCreateRepo(@Path() username: string, @Body() body: CreateRepoOption, @Request() req: ExRequest): Promise<Repository> {
    const owner = await lookupOwner(ctxOf(req), req.principal, username);
    return this.created(req, await createRepo(ctxOf(req), doerOf(req), owner, body), owner);
  }

  /** Search repositories the caller may see. */
  @Get('repos/search')
  @Security('public', ['repository'])
  public async repoSearch(
    @Request() req: ExRequest, @Query() q?: string, @Query() uid?: number, @Query('private') priv?: boolean, @Query() is_private?: boolean,
    @Query() template?: boolean, @Query() sort?: string, @Query() order?: string, @Query() page?: number, @Query() limit?: number,
  ): Promise<SearchResults> {
    const data = await this.list(req, {
      keyword: q, ownerId: uid || undefined, collaboratorOf: uid || undefined, includePrivate: priv !== false,
      isPrivate: is_private, isTemplate: template === false ? false : undefined,
    }, page, limit, sort, order);
    return { ok: true, data };
  }

  /** List the caller's repositories (owned and collaborations). */
  @Get('user/repos')
  @Security('signed', ['user', 'repository'])
  public async userCurrentListRepos(@Request() req: ExRequest, @Query() page?: number, @Query() limit?: number): Promise<Repository[]> {
    const doer = doerOf(req);
    return this.list(req, { ownerId: doer.id, collaboratorOf: doer.id }, page, limit);
  }

  /** List a user's repositories the caller may see. */
  @Get('users/{username}/repos')
  @Security('public', ['user', 'repository'])
  @Response<ApiErrorBody>(404, 'not found')
  public async userListRepos(@Path() username: string, @Request() req: ExRequest, @Query() page?: number, @Query() limit?: number): Promise<Repository[]> {
    const u = await lookupOwner(ctxOf(req), req.principal, username);
    return this.list(req, { ownerId: u.id }, page, limit);
  }

  /** List an organization's repositories the caller may see. */
  @Get('orgs/{org}/repos')
  @Security('public', ['organization', 'repository'])
  @Response<ApiErrorBody>(404, 'not found')
  public async orgListRepos(@Path() org: string, @Request() req: ExRequest, @Query() page?: number, @Query() limit?: number): Promise<Repository[]> {
    const o = await resolveOrg(ctxOf(req), req.principal, org);
    if (o.type !== UserType.Organization) return [];
    return this.list(req, { ownerId: o.id }, page, limit);
  }

  /** Get a repository by id. */
  @Get('repositories/{id}')
  @Security('public', ['repository'])
  @Response<ApiErrorBody>(404, 'not found')
  public async repoGetByID(@Path() id: number, @Request() req: ExRequest): Promise<Repository> {
    return this.out(req, await repoById(ctxOf(req), req.principal, id));
  }

  /** Get a repository. */
  @Get('repos/{owner}/{repo}')
  @Security('public', ['repository'])
  @Response<ApiErrorBody>(404, 'not found')
  public async repoGet(@Path() owner: string, @Path() repo: string, @Request() req: ExRequest): Promise<Repository> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    return this.out(req, await viewOf(ctx, req.principal, rc.repo, rc.owner, rc.perm));
  }

  /** Edit a repository (admins of it); omitted fields keep their value. */
  @Patch('repos/{owner}/{repo}')
  @Security('signed', ['repository'])
  @Response<ApiErrorBody>(403, 'not an admin of the repository')
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(422, 'validation error')
  public async repoEdit(@Path() owner: string, @Path() repo: string, @Body() body: EditRepoOption, @Request() req: ExRequest): Promise<Repository> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    const row = await editRepo(ctx, rc, doerOf(req), body);
    const fresh = await repoAssignment(ctx, req.principal, owner, row.name);
    return this.out(req, await viewOf(ctx, req.principal, fresh.repo, fresh.owner, fresh.perm));
  }

  /** Delete a repository (admins of it). */
  @Delete('repos/{owner}/{repo}')
  @Security('signed', ['repository'])
  @SuccessResponse(204, 'empty')
  @Response<ApiErrorBody>(403, 'not an admin of the repository')
  @Response<ApiErrorBody>(404, 'not found')
  public async repoDelete(@Path() owner: string, @Path() repo: string, @Request() req: ExRequest): Promise<void> {
    const ctx = ctxOf(req);
    await deleteRepo(ctx, doerOf(req), await repoAssignment(ctx, req.principal, owner, repo));
    this.setStatus(204);
  }
}
