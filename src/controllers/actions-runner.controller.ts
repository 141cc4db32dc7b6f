/**
 * Actions runners and their registration tokens at the instance (`/admin`), organization, user and
 * repository scopes. A scope lists the runners registered to it (the instance lists all); get and
 * delete of a runner outside it, or of none, answer 404.
 */
import type { Request as ExRequest } from 'express';
import { Controller, Delete, Get, Path, Post, Query, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { ActionRunner, ActionRunnersResponse, RegistrationToken } from '../api/actions';
import type { ApiErrorBody } from '../errors';
import { ctxOf, doerOf } from '../middleware/context';
import { listOptions } from '../middleware/paging';
import { toActionRunner } from '../convert/actions';
import type { ActionsScope } from '../models/actions-scope';
import { repoAssignment } from '../services/repo/context';
import { orgActionsScope, repoActionsScope, userActionsScope } from '../services/actions/settings.service';
import * as svc from '../services/actions/runner.service';

const INSTANCE: ActionsScope = { ownerId: 0, repoId: 0 };

/** The operations every scope shares. */
const ops = {
  list: async (req: ExRequest, s: ActionsScope, page?: number, limit?: number): Promise<ActionRunnersResponse> => {
    const { rows, count } = await svc.listScopeRunners(ctxOf(req), s, listOptions(page, limit));
    return { runners: rows.map((r) => toActionRunner(r, svc.runnerPresence(r))), total_count: count };
  },
  get: async (req: ExRequest, s: ActionsScope, id: number): Promise<ActionRunner> => {
    const r = await svc.scopeRunner(ctxOf(req), s, id);
    return toActionRunner(r, svc.runnerPresence(r));
  },
  remove: async (c: Controller, req: ExRequest, s: ActionsScope, id: number): Promise<void> => {
    await svc.deleteScopeRunner(ctxOf(req), s, id);
    c.setStatus(204);
  },
  token: async (req: ExRequest, s: ActionsScope): Promise<RegistrationToken> => ({ token: await svc.registrationToken(ctxOf(req), s) }),
};

const repoScope = async (req: ExRequest, owner: string, repo: string) => repoActionsScope(await repoAssignment(ctxOf(req), req.principal, owner, repo));

@Route('admin')
@Tags('admin')
export class AdminRunnersController extends Controller {
  /** Every runner of the instance. */
  @Get('actions/runners')
  @Security('admin', ['admin'])
  @Response<ApiErrorBody>(403, 'forbidden')
  public async getAdminRunners(@Request() req: ExRequest, @Query() page?: number, @Query() limit?: number): Promise<ActionRunnersResponse> {
    return ops.list(req, INSTANCE, page, limit);
  }

  /** The instance's registration token (a new one when there is none active). */
  @Post('actions/runners/registration-token')
  @Security('admin', ['admin'])
  @SuccessResponse(200, 'RegistrationToken')
  public async adminCreateRunnerRegistrationToken(@Request() req: ExRequest): Promise<RegistrationToken> {
    this.setStatus(200);
    return ops.token(req, INSTANCE);
  }

  /** The instance's registration token (the older path, GET only). */
  @Get('runners/registration-token')
  @Security('admin', ['admin'])
  public async adminGetRunnerRegistrationToken(@Request() req: ExRequest): Promise<RegistrationToken> {
    return ops.token(req, INSTANCE);
  }

  /** A runner. */
  @Get('actions/runners/{runner_id}')
  @Security('admin', ['admin'])
  @Response<ApiErrorBody>(404, 'not found')
  public async getAdminRunner(@Path() runner_id: number, @Request() req: ExRequest): Promise<ActionRunner> {
    return ops.get(req, INSTANCE, runner_id);
  }

  /** Delete a runner; its calls are refused from then on. */
  @Delete('actions/runners/{runner_id}')
  @Security('admin', ['admin'])
  @SuccessResponse(204, 'deleted')
  @Response<ApiErrorBody>(404, 'not found')
  public async deleteAdminRunner(@Path() runner_id: number, @Request() req: ExRequest): Promise<void> {
    await ops.remove(this, req, INSTANCE, runner_id);
  }
}

@Route('orgs/{org}/actions/runners')
@Tags('organization')
export class OrgRunnersController extends Controller {
  /** The organization's runners (its owners). */
  @Get()
  @Security('signed', ['organization'])
  @Response<ApiErrorBody>(403, 'not an owner')
  public async getOrgRunners(@Path() org: string, @Request() req: ExRequest, @Query() page?: number, @Query() limit?: number): Promise<ActionRunnersResponse> {
    return ops.list(req, await orgActionsScope(ctxOf(req), req.principal, org), page, limit);
  }

  /** The organization's registration token. */
  @Get('registration-token')
  @Security('signed', ['organization'])
  public async orgGetRunnerRegistrationToken(@Path() org: string, @Request() req: ExRequest): Promise<RegistrationToken> {
    return ops.token(req, await orgActionsScope(ctxOf(req), req.principal, org));
  }

  /** The organization's registration token (a new one when there is none active). */
  @Post('registration-token')
  @Security('signed', ['organization'])
  @SuccessResponse(200, 'RegistrationToken')
  public async orgCreateRunnerRegistrationToken(@Path() org: string, @Request() req: ExRequest): Promise<RegistrationToken> {
    this.setStatus(200);
    return ops.token(req, await orgActionsScope(ctxOf(req), req.principal, org));
  }

  /** A runner of the organization. */
  @Get('{runner_id}')
  @Security('signed', ['organization'])
  @Response<ApiErrorBody>(404, 'not found')
  public async getOrgRunner(@Path() org: string, @Path() runner_id: number, @Request() req: ExRequest): Promise<ActionRunner> {
    return ops.get(req, await orgActionsScope(ctxOf(req), req.principal, org), runner_id);
  }

  /** Delete a runner of the organization. */
  @Delete('{runner_id}')
  @Security('signed', ['organization'])
  @SuccessResponse(204, 'deleted')
  @Response<ApiErrorBody>(404, 'not found')
  public async deleteOrgRunner(@Path() org: string, @Path() runner_id: number, @Request() req: ExRequest): Promise<void> {
    await ops.remove(this, req, await orgActionsScope(ctxOf(req), req.principal, org), runner_id);
  }
}

@Route('user/actions/runners')
@Tags('user')
export class UserRunnersController extends Controller {
  /** The signed-in user's runners. */
  @Get()
  @Security('signed', ['user'])
  public async getUserRunners(@Request() req: ExRequest, @Query() page?: number, @Query() limit?: number): Promise<ActionRunnersResponse> {
    return ops.list(req, userActionsScope(doerOf(req)), page, limit);
  }

  /** The user's registration token. */
  @Get('registration-token')
  @Security('signed', ['user'])
  public async userGetRunnerRegistrationToken(@Request() req: ExRequest): Promise<RegistrationToken> {
    return ops.token(req, userActionsScope(doerOf(req)));
  }

  /** The user's registration token (a new one when there is none active). */
  @Post('registration-token')
  @Security('signed', ['user'])
  @SuccessResponse(200, 'RegistrationToken')
  public async userCreateRunnerRegistrationToken(@Request() req: ExRequest): Promise<RegistrationToken> {
    this.setStatus(200);
    return ops.token(req, userActionsScope(doerOf(req)));
  }

  /** A runner of the user. */
  @Get('{runner_id}')
  @Security('signed', ['user'])
  @Response<ApiErrorBody>(404, 'not found')
  public async getUserRunner(@Path() runner_id: number, @Request() req: ExRequest): Promise<ActionRunner> {
    return ops.get(req, userActionsScope(doerOf(req)), runner_id);
  }

  /** Delete a runner of the user. */
  @Delete('{runner_id}')
  @Security('signed', ['user'])
  @SuccessResponse(204, 'deleted')
  @Response<ApiErrorBody>(404, 'not found')
  public async deleteUserRunner(@Path() runner_id: number, @Request() req: ExRequest): Promise<void> {
    await ops.remove(this, req, userActionsScope(doerOf(req)), runner_id);
  }
}

@Route('repos/{owner}/{repo}/actions/runners')
@Tags('repository')
export class RepoRunnersController extends Controller {
  /** The repository's runners (its owners). */
  @Get()
  @Security('signed', ['repository'])
  @Response<ApiErrorBody>(403, 'not an owner of the repository')
  public async getRepoRunners(@Path() owner: string, @Path() repo: string, @Request() req: ExRequest, @Query() page?: number, @Query() limit?: number): Promise<ActionRunnersResponse> {
    return ops.list(req, await repoScope(req, owner, repo), page, limit);
  }

  /** The repository's registration token. */
  @Get('registration-token')
  @Security('signed', ['repository'])
  public async repoGetRunnerRegistrationToken(@Path() owner: string, @Path() repo: string, @Request() req: ExRequest): Promise<RegistrationToken> {
    return ops.token(req, await repoScope(req, owner, repo));
  }

  /** The repository's registration token (a new one when there is none active). */
  @Post('registration-token')
  @Security('signed', ['repository'])
  @SuccessResponse(200, 'RegistrationToken')
  public async repoCreateRunnerRegistrationToken(@Path() owner: string, @Path() repo: string, @Request() req: ExRequest): Promise<RegistrationToken> {
    this.setStatus(200);
    return ops.token(req, await repoScope(req, owner, repo));
  }

  /** A runner of the repository. */
  @Get('{runner_id}')
  @Security('signed', ['repository'])
  @Response<ApiErrorBody>(404, 'not found')
  public async getRepoRunner(@Path() owner: string, @Path() repo: string, @Path() runner_id: number, @Request() req: ExRequest): Promise<ActionRunner> {
    return ops.get(req, await repoScope(req, owner, repo), runner_id);
  }

  /** Delete a runner of the repository. */
  @Delete('{runner_id}')
  @Security('signed', ['repository'])
  @SuccessResponse(204, 'deleted')
  @Response<ApiErrorBody>(404, 'not found')
  public async deleteRepoRunner(@Path() owner: string, @Path() repo: string, @Path() runner_id: number, @Request() req: ExRequest): Promise<void> {
    await ops.remove(this, req, await repoScope(req, owner, repo), runner_id);
  }
}
