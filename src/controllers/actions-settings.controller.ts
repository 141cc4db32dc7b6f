/**
 * Actions secrets and variables of a repository (`/repos/{owner}/{repo}/actions`, its owners), an
 * organization (`/orgs/{org}/actions`, its owners) and the signed-in user (`/user/actions`).
 * Lists give every row without `page`, as Gitea's do. Creating a variable answers 201.
 */
import type { Request as ExRequest } from 'express';
import { Body, Controller, Delete, Get, Path, Post, Put, Query, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { ActionVariable, CreateOrUpdateSecretOption, CreateVariableOption, Secret, UpdateVariableOption } from '../api/actions';
import type { ApiErrorBody } from '../errors';
import { ctxOf, doerOf } from '../middleware/context';
import { listOptions, setPaging } from '../middleware/paging';
import { toActionVariable, toSecret } from '../convert/actions';
import type { ActionsScope } from '../models/actions-scope';
import { repoAssignment } from '../services/repo/context';
import * as svc from '../services/actions/settings.service';

/** One page of a list (every row without `page`), with X-Total-Count (and Link when paged). */
async function paged<M, T>(req: ExRequest, list: (page?: { limit: number; offset: number }) => Promise<{ rows: M[]; count: number }>, to: (m: M) => T, page?: number, limit?: number): Promise<T[]> {
  const opts = page ? listOptions(page, limit) : undefined;
  const { rows, count } = await list(opts);
  if (opts) setPaging(req, opts, count);
  else req.res!.setHeader('X-Total-Count', String(count));
  return rows.map(to);
}

/** The operations every scope shares. */
const ops = {
  listSecrets: (req: ExRequest, s: ActionsScope, page?: number, limit?: number) => paged(req, (p) => svc.listSecrets(ctxOf(req), s, p), toSecret, page, limit),
  putSecret: async (c: Controller, req: ExRequest, s: ActionsScope, name: string, body: CreateOrUpdateSecretOption) => {
    c.setStatus((await svc.putSecret(ctxOf(req), s, name, body)) ? 201 : 204);
  },
  deleteSecret: async (c: Controller, req: ExRequest, s: ActionsScope, name: string) => {
    await svc.deleteSecret(ctxOf(req), s, name);
    c.setStatus(204);
  },
  listVariables: (req: ExRequest, s: ActionsScope, page?: number, limit?: number) => paged(req, (p) => svc.listVariables(ctxOf(req), s, p), toActionVariable, page, limit),
  getVariable: async (req: ExRequest, s: ActionsScope, name: string) => toActionVariable(await svc.getVariable(ctxOf(req), s, name)),
  createVariable: async (c: Controller, req: ExRequest, s: ActionsScope, name: string, body: CreateVariableOption) => {
    await svc.createVariable(ctxOf(req), s, name, body);
    c.setStatus(201);
  },
  updateVariable: async (c: Controller, req: ExRequest, s: ActionsScope, name: string, body: UpdateVariableOption) => {
    await svc.updateVariable(ctxOf(req), s, name, body);
    c.setStatus(204);
  },
  deleteVariable: async (c: Controller, req: ExRequest, s: ActionsScope, name: string) => {
    await svc.deleteVariable(ctxOf(req), s, name);
    c.setStatus(204);
  },
};

const repoScope = async (req: ExRequest, owner: string, repo: string) => svc.repoActionsScope(await repoAssignment(ctxOf(req), req.principal, owner, repo));

@Route('repos/{owner}/{repo}/actions')
@Tags('repository')
export class RepoActionsSettingsController extends Controller {
  /** The repository's secrets (names, descriptions and creation times; never values). */
  @Get('secrets')
  @Security('signed', ['repository'])
  @Response<ApiErrorBody>(403, 'not an owner of the repository')
  @Response<ApiErrorBody>(404, 'not found')
  public async repoListActionsSecrets(@Path() owner: string, @Path() repo: string, @Request() req: ExRequest, @Query() page?: number, @Query() limit?: number): Promise<Secret[]> {
    return ops.listSecrets(req, await repoScope(req, owner, repo), page, limit);
  }

  /** Create (201) or replace (204) a secret. */
  @Put('secrets/{secretname}')
  @Security('signed', ['repository'])
  @SuccessResponse(201, 'created')
  @Response(204, 'replaced')
  @Response<ApiErrorBody>(400, 'invalid secret name, or data too long')
  @Response<ApiErrorBody>(403, 'not an owner of the repository')
  @Response<ApiErrorBody>(422, 'no data')
  public async updateRepoSecret(@Path() owner: string, @Path() repo: string, @Path() secretname: string, @Body() body: CreateOrUpdateSecretOption, @Request() req: ExRequest): Promise<void> {
    await ops.putSecret(this, req, await repoScope(req, owner, repo), secretname, body);
  }

  /** Delete a secret. */
  @Delete('secrets/{secretname}')
  @Security('signed', ['repository'])
  @SuccessResponse(204, 'deleted')
  @Response<ApiErrorBody>(400, 'invalid secret name')
  @Response<ApiErrorBody>(404, 'no such secret')
  public async deleteRepoSecret(@Path() owner: string, @Path() repo: string, @Path() secretname: string, @Request() req: ExRequest): Promise<void> {
    await ops.deleteSecret(this, req, await repoScope(req, owner, repo), secretname);
  }

  /** The repository's variables. */
  @Get('variables')
  @Security('signed', ['repository'])
  @Response<ApiErrorBody>(403, 'not an owner of the repository')
  public async getRepoVariablesList(@Path() owner: string, @Path() repo: string, @Request() req: ExRequest, @Query() page?: number, @Query() limit?: number): Promise<ActionVariable[]> {
    return ops.listVariables(req, await repoScope(req, owner, repo), page, limit);
  }

  /** One variable. */
  @Get('variables/{variablename}')
  @Security('signed', ['repository'])
  @Response<ApiErrorBody>(404, 'no such variable')
  public async getRepoVariable(@Path() owner: string, @Path() repo: string, @Path() variablename: string, @Request() req: ExRequest): Promise<ActionVariable> {
    return ops.getVariable(req, await repoScope(req, owner, repo), variablename);
  }

  /** Create a variable. */
  @Post('variables/{variablename}')
  @Security('signed', ['repository'])
  @SuccessResponse(201, 'created')
  @Response<ApiErrorBody>(400, 'invalid name, or data too long')
  @Response<ApiErrorBody>(409, 'the name is taken')
  @Response<ApiErrorBody>(422, 'no value')
  public async createRepoVariable(@Path() owner: string, @Path() repo: string, @Path() variablename: string, @Body() body: CreateVariableOption, @Request() req: ExRequest): Promise<void> {
    await ops.createVariable(this, req, await repoScope(req, owner, repo), variablename, body);
  }

  /** Change (and rename) a variable. */
  @Put('variables/{variablename}')
  @Security('signed', ['repository'])
  @SuccessResponse(204, 'changed')
  @Response<ApiErrorBody>(400, 'invalid name, or data too long')
  @Response<ApiErrorBody>(404, 'no such variable')
  @Response<ApiErrorBody>(409, 'the new name is taken')
  public async updateRepoVariable(@Path() owner: string, @Path() repo: string, @Path() variablename: string, @Body() body: UpdateVariableOption, @Request() req: ExRequest): Promise<void> {
    await ops.updateVariable(this, req, await repoScope(req, owner, repo), variablename, body);
  }

  /** Delete a variable. */
  @Delete('variables/{variablename}')
  @Security('signed', ['repository'])
  @SuccessResponse(204, 'deleted')
  @Response<ApiErrorBody>(404, 'no such variable')
  public async deleteRepoVariable(@Path() owner: string, @Path() repo: string, @Path() variablename: string, @Request() req: ExRequest): Promise<void> {
    await ops.deleteVariable(this, req, await repoScope(req, owner, repo), variablename);
  }
}

const orgScope = (req: ExRequest, org: string) => svc.orgActionsScope(ctxOf(req), req.principal, org);

@Route('orgs/{org}/actions')
@Tags('organization')
export class OrgActionsSettingsController extends Controller {
  /** The organization's secrets. */
  @Get('secrets')
  @Security('signed', ['organization'])
  @Response<ApiErrorBody>(403, 'not an owner of the organization')
  @Response<ApiErrorBody>(404, 'not found')
  public async orgListActionsSecrets(@Path() org: string, @Request() req: ExRequest, @Query() page?: number, @Query() limit?: number): Promise<Secret[]> {
    return ops.listSecrets(req, await orgScope(req, org), page, limit);
  }

  /** Create (201) or replace (204) a secret. */
  @Put('secrets/{secretname}')
  @Security('signed', ['organization'])
  @SuccessResponse(201, 'created')
  @Response(204, 'replaced')
  @Response<ApiErrorBody>(400, 'invalid secret name, or data too long')
  @Response<ApiErrorBody>(422, 'no data')
  public async updateOrgSecret(@Path() org: string, @Path() secretname: string, @Body() body: CreateOrUpdateSecretOption, @Request() req: ExRequest): Promise<void> {
    await ops.putSecret(this, req, await orgScope(req, org), secretname, body);
  }

  /** Delete a secret. */
  @Delete('secrets/{secretname}')
  @Security('signed', ['organization'])
  @SuccessResponse(204, 'deleted')
  @Response<ApiErrorBody>(404, 'no such secret')
  public async deleteOrgSecret(@Path() org: string, @Path() secretname: string, @Request() req: ExRequest): Promise<void> {
    await ops.deleteSecret(this, req, await orgScope(req, org), secretname);
  }

  /** The organization's variables. */
  @Get('variables')
  @Security('signed', ['organization'])
  public async getOrgVariablesList(@Path() org: string, @Request() req: ExRequest, @Query() page?: number, @Query() limit?: number): Promise<ActionVariable[]> {
    return ops.listVariables(req, await orgScope(req, org), page, limit);
  }

  /** One variable. */
  @Get('variables/{variablename}')
  @Security('signed', ['organization'])
  @Response<ApiErrorBody>(404, 'no such variable')
  public async getOrgVariable(@Path() org: string, @Path() variablename: string, @Request() req: ExRequest): Promise<ActionVariable> {
    return ops.getVariable(req, await orgScope(req, org), variablename);
  }

  /** Create a variable. */
  @Post('variables/{variablename}')
  @Security('signed', ['organization'])
  @SuccessResponse(201, 'created')
  @Response<ApiErrorBody>(409, 'the name is taken')
  public async createOrgVariable(@Path() org: string, @Path() variablename: string, @Body() body: CreateVariableOption, @Request() req: ExRequest): Promise<void> {
    await ops.createVariable(this, req, await orgScope(req, org), variablename, body);
  }

  /** Change (and rename) a variable. */
  @Put('variables/{variablename}')
  @Security('signed', ['organization'])
  @SuccessResponse(204, 'changed')
  @Response<ApiErrorBody>(404, 'no such variable')
  public async updateOrgVariable(@Path() org: string, @Path() variablename: string, @Body() body: UpdateVariableOption, @Request() req: ExRequest): Promise<void> {
    await ops.updateVariable(this, req, await orgScope(req, org), variablename, body);
  }

  /** Delete a variable. */
  @Delete('variables/{variablename}')
  @Security('signed', ['organization'])
  @SuccessResponse(204, 'deleted')
  @Response<ApiErrorBody>(404, 'no such variable')
  public async deleteOrgVariable(@Path() org: string, @Path() variablename: string, @Request() req: ExRequest): Promise<void> {
    await ops.deleteVariable(this, req, await orgScope(req, org), variablename);
  }
}

const mine = (req: ExRequest) => svc.userActionsScope(doerOf(req));

@Route('user/actions')
@Tags('user')
export class UserActionsSettingsController extends Controller {
  /** Create (201) or replace (204) a secret of the signed-in user. */
  @Put('secrets/{secretname}')
  @Security('signed', ['user'])
  @SuccessResponse(201, 'created')
  @Response(204, 'replaced')
  @Response<ApiErrorBody>(400, 'invalid secret name, or data too long')
  @Response<ApiErrorBody>(422, 'no data')
  public async updateUserSecret(@Path() secretname: string, @Body() body: CreateOrUpdateSecretOption, @Request() req: ExRequest): Promise<void> {
    await ops.putSecret(this, req, mine(req), secretname, body);
  }

  /** Delete a secret of the signed-in user. */
  @Delete('secrets/{secretname}')
  @Security('signed', ['user'])
  @SuccessResponse(204, 'deleted')
  @Response<ApiErrorBody>(404, 'no such secret')
  public async deleteUserSecret(@Path() secretname: string, @Request() req: ExRequest): Promise<void> {
    await ops.deleteSecret(this, req, mine(req), secretname);
  }

  /** The signed-in user's variables. */
  @Get('variables')
  @Security('signed', ['user'])
  public async getUserVariablesList(@Request() req: ExRequest, @Query() page?: number, @Query() limit?: number): Promise<ActionVariable[]> {
    return ops.listVariables(req, mine(req), page, limit);
  }

  /** One variable of the signed-in user. */
  @Get('variables/{variablename}')
  @Security('signed', ['user'])
  @Response<ApiErrorBody>(404, 'no such variable')
  public async getUserVariable(@Path() variablename: string, @Request() req: ExRequest): Promise<ActionVariable> {
    return ops.getVariable(req, mine(req), variablename);
  }

  /** Create a variable of the signed-in user. */
  @Post('variables/{variablename}')
  @Security('signed', ['user'])
  @SuccessResponse(201, 'created')
  @Response<ApiErrorBody>(409, 'the name is taken')
  public async createUserVariable(@Path() variablename: string, @Body() body: CreateVariableOption, @Request() req: ExRequest): Promise<void> {
    await ops.createVariable(this, req, mine(req), variablename, body);
  }

  /** Change (and rename) a variable of the signed-in user. */
  @Put('variables/{variablename}')
  @Security('signed', ['user'])
  @SuccessResponse(204, 'changed')
  @Response<ApiErrorBody>(404, 'no such variable')
  public async updateUserVariable(@Path() variablename: string, @Body() body: UpdateVariableOption, @Request() req: ExRequest): Promise<void> {
    await ops.updateVariable(this, req, mine(req), variablename, body);
  }

  /** Delete a variable of the signed-in user. */
  @Delete('variables/{variablename}')
  @Security('signed', ['user'])
  @SuccessResponse(204, 'deleted')
  @Response<ApiErrorBody>(404, 'no such variable')
  public async deleteUserVariable(@Path() variablename: string, @Request() req: ExRequest): Promise<void> {
    await ops.deleteVariable(this, req, mine(req), variablename);
  }
}
