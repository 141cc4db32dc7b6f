/** Webhooks of a repository (`/repos/{owner}/{repo}/hooks`), an organization, the signed-in user and the instance (`/admin/hooks`). */
import type { Request as ExRequest } from 'express';
import { Body, Controller, Delete, Get, Patch, Path, Post, Query, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { CreateHookOption, EditHookOption, Hook, HookDelivery } from '../api/webhook';
import { Forbidden, type ApiErrorBody } from '../errors';
import { ctxOf, doerOf } from '../middleware/context';
import { listOptions, setPaging } from '../middleware/paging';
import { toHook, toHookDelivery } from '../convert/webhook';
import { repoAssignment } from '../services/repo/context';
import {
  createHook, editHook, getHook, hookView, listDeliveries, listHooks, orgHookPlace, removeHook, replayDelivery, repoHookPlace, type HookPlace,
} from '../services/webhook/hook.service';
import { testRepoHook } from '../services/webhook/push-events';

/** The five operations every place shares. */
async function list(req: ExRequest, place: HookPlace, page?: number, limit?: number, kind?: string): Promise<Hook[]> {
  const opts = listOptions(page, limit);
  const { rows, count } = await listHooks(ctxOf(req), place, opts, kind);
  setPaging(req, opts, count);
  return rows.map((h) => toHook(hookView(h)));
}

/** The git hooks routes: the repository resolved, its admin checked, then Gitea's refusal with git hooks disabled. */
async function refuseGitHooks(req: ExRequest, owner: string, repo: string): Promise<never> {
  repoHookPlace(await repoAssignment(ctxOf(req), req.principal, owner, repo));
  throw new Forbidden('must be allowed to edit Git hooks');
}

/** A hook's deliveries, newest first, one page (`[webhook] PAGING_NUM` by default). */
async function deliveries(req: ExRequest, place: HookPlace, id: number, page?: number, limit?: number): Promise<HookDelivery[]> {
  const opts = listOptions(page, limit);
  const { rows, count } = await listDeliveries(ctxOf(req), place, id, opts);
  setPaging(req, opts, count);
  return rows.map(toHookDelivery);
}

@Route('repos/{owner}/{repo}/hooks')
@Tags('repository')
export class RepoHookController extends Controller {
  /**
   * The repository's git hooks (list, get, edit, delete: `/hooks/git`). The forge owns every git hook
   * of its repositories, so these answer as Gitea does with `DISABLE_GIT_HOOKS` on (its default):
   * 403 for everyone, after the repository and its admin check.
   */
  @Get('git')
  @Security('signed', ['repository'])
  @Response<ApiErrorBody>(403, 'must be allowed to edit Git hooks')
  @Response<ApiErrorBody>(404, 'not found')
  public async repoListGitHooks(@Path() owner: string, @Path() repo: string, @Request() req: ExRequest): Promise<void> {
    await refuseGitHooks(req, owner, repo);
  }

  /** One git hook (403: see repoListGitHooks). */
  @Get('git/{id}')
  @Security('signed', ['repository'])
  @Response<ApiErrorBody>(403, 'must be allowed to edit Git hooks')
  public async repoGetGitHook(@Path() owner: string, @Path() repo: string, @Path() id: string, @Request() req: ExRequest): Promise<void> {
    await refuseGitHooks(req, owner, repo);
  }

  /** Change a git hook (403: see repoListGitHooks). */
  @Patch('git/{id}')
  @Security('signed', ['repository'])
  @Response<ApiErrorBody>(403, 'must be allowed to edit Git hooks')
  public async repoEditGitHook(@Path() owner: string, @Path() repo: string, @Path() id: string, @Request() req: ExRequest): Promise<void> {
    await refuseGitHooks(req, owner, repo);
  }

  /** Delete a git hook (403: see repoListGitHooks). */
  @Delete('git/{id}')
  @Security('signed', ['repository'])
  @Response<ApiErrorBody>(403, 'must be allowed to edit Git hooks')
  public async repoDeleteGitHook(@Path() owner: string, @Path() repo: string, @Path() id: string, @Request() req: ExRequest): Promise<void> {
    await refuseGitHooks(req, owner, repo);
  }

  /** The repository's hooks (its admins). */
  @Get()
  @Security('signed', ['repository'])
  @Response<ApiErrorBody>(403, 'not a repository admin, or webhooks are disabled')
  @Response<ApiErrorBody>(404, 'not found')
  public async repoListHooks(@Path() owner: string, @Path() repo: string, @Request() req: ExRequest, @Query() page?: number, @Query() limit?: number): Promise<Hook[]> {
    return list(req, repoHookPlace(await repoAssignment(ctxOf(req), req.principal, owner, repo)), page, limit);
  }

  /** Add a hook. */
  @Post()
  @Security('signed', ['repository'])
  @SuccessResponse(201, 'created')
  @Response<ApiErrorBody>(403, 'not a repository admin, or webhooks are disabled')
  @Response<ApiErrorBody>(422, 'invalid type, config, events or url')
  public async repoCreateHook(@Path() owner: string, @Path() repo: string, @Body() body: CreateHookOption, @Request() req: ExRequest): Promise<Hook> {
    const ctx = ctxOf(req);
    const place = repoHookPlace(await repoAssignment(ctx, req.principal, owner, repo));
    this.setStatus(201);
    return toHook(hookView(await createHook(ctx, place, body)));
  }

  /** One hook. */
  @Get('{id}')
  @Security('signed', ['repository'])
  @Response<ApiErrorBody>(404, 'not found')
  public async repoGetHook(@Path() owner: string, @Path() repo: string, @Path() id: number, @Request() req: ExRequest): Promise<Hook> {
    const ctx = ctxOf(req);
    return toHook(hookView(await getHook(ctx, repoHookPlace(await repoAssignment(ctx, req.principal, owner, repo)), id)));
  }

  /** Change a hook. */
  @Patch('{id}')
  @Security('signed', ['repository'])
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(422, 'invalid config, events or url')
  public async repoEditHook(@Path() owner: string, @Path() repo: string, @Path() id: number, @Body() body: EditHookOption, @Request() req: ExRequest): Promise<Hook> {
    const ctx = ctxOf(req);
    return toHook(hookView(await editHook(ctx, repoHookPlace(await repoAssignment(ctx, req.principal, owner, repo)), id, body)));
  }

  /** Delete a hook and its deliveries. */
  @Delete('{id}')
  @Security('signed', ['repository'])
  @SuccessResponse(204, 'deleted')
  @Response<ApiErrorBody>(404, 'not found')
  public async repoDeleteHook(@Path() owner: string, @Path() repo: string, @Path() id: number, @Request() req: ExRequest): Promise<void> {
    const ctx = ctxOf(req);
    await removeHook(ctx, repoHookPlace(await repoAssignment(ctx, req.principal, owner, repo)), id);
    this.setStatus(204);
  }

  /** Send the hook a test push of one commit (`ref`'s, else the default branch's tip), as its events and branch filter allow (204). */
  @Post('{id}/tests')
  @Security('signed', ['repository'])
  @SuccessResponse(204, 'queued')
  @Response<ApiErrorBody>(404, 'not found, an empty repository, or a ref that names no commit')
  public async repoTestHook(@Path() owner: string, @Path() repo: string, @Path() id: number, @Request() req: ExRequest, @Query() ref?: string): Promise<void> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    const place = repoHookPlace(rc);
    await testRepoHook(ctx, rc, doerOf(req), await getHook(ctx, place, id), ref);
    this.setStatus(204);
  }

  /** The hook's deliveries, newest first, with what was sent and what came back (the forge's own route: Gitea shows them on its web pages). */
  @Get('{id}/deliveries')
  @Security('signed', ['repository'])
  @Response<ApiErrorBody>(404, 'not found')
  public async repoListHookDeliveries(@Path() owner: string, @Path() repo: string, @Path() id: number, @Request() req: ExRequest, @Query() page?: number, @Query() limit?: number): Promise<HookDelivery[]> {
    return deliveries(req, repoHookPlace(await repoAssignment(ctxOf(req), req.principal, owner, repo)), id, page, limit);
  }

  /** Send a delivery again (Gitea's replay): a new delivery with a new UUID and the same payload, sent with the hook's current settings (201). */
  @Post('{id}/deliveries/{uuid}/replay')
  @Security('signed', ['repository'])
  @SuccessResponse(201, 'queued')
  @Response<ApiErrorBody>(404, 'not found')
  public async repoReplayHookDelivery(@Path() owner: string, @Path() repo: string, @Path() id: number, @Path() uuid: string, @Request() req: ExRequest): Promise<HookDelivery> {
    this.setStatus(201);
    return toHookDelivery(await replayDelivery(ctxOf(req), repoHookPlace(await repoAssignment(ctxOf(req), req.principal, owner, repo)), id, uuid));
  }
}

@Route('orgs/{org}/hooks')
@Tags('organization')
export class OrgHookController extends Controller {
  /** The organization's hooks (its owners). */
  @Get()
  @Security('signed', ['organization'])
  @Response<ApiErrorBody>(403, 'not an owner')
  @Response<ApiErrorBody>(404, 'not found')
  public async orgListHooks(@Path() org: string, @Request() req: ExRequest, @Query() page?: number, @Query() limit?: number): Promise<Hook[]> {
    return list(req, await orgHookPlace(ctxOf(req), req.principal, org), page, limit);
  }

  /** Add a hook. */
  @Post()
  @Security('signed', ['organization'])
  @SuccessResponse(201, 'created')
  @Response<ApiErrorBody>(422, 'invalid type, config, events or url')
  public async orgCreateHook(@Path() org: string, @Body() body: CreateHookOption, @Request() req: ExRequest): Promise<Hook> {
    const ctx = ctxOf(req);
    const place = await orgHookPlace(ctx, req.principal, org);
    this.setStatus(201);
    return toHook(hookView(await createHook(ctx, place, body)));
  }

  /** One hook. */
  @Get('{id}')
  @Security('signed', ['organization'])
  @Response<ApiErrorBody>(404, 'not found')
  public async orgGetHook(@Path() org: string, @Path() id: number, @Request() req: ExRequest): Promise<Hook> {
    const ctx = ctxOf(req);
    return toHook(hookView(await getHook(ctx, await orgHookPlace(ctx, req.principal, org), id)));
  }

  /** Change a hook. */
  @Patch('{id}')
  @Security('signed', ['organization'])
  @Response<ApiErrorBody>(404, 'not found')
  public async orgEditHook(@Path() org: string, @Path() id: number, @Body() body: EditHookOption, @Request() req: ExRequest): Promise<Hook> {
    const ctx = ctxOf(req);
    return toHook(hookView(await editHook(ctx, await orgHookPlace(ctx, req.principal, org), id, body)));
  }

  /** Delete a hook. */
  @Delete('{id}')
  @Security('signed', ['organization'])
  @SuccessResponse(204, 'deleted')
  @Response<ApiErrorBody>(404, 'not found')
  public async orgDeleteHook(@Path() org: string, @Path() id: number, @Request() req: ExRequest): Promise<void> {
    const ctx = ctxOf(req);
    await removeHook(ctx, await orgHookPlace(ctx, req.principal, org), id);
    this.setStatus(204);
  }

  /** The hook's deliveries, newest first, with what was sent and what came back (the forge's own route: Gitea shows them on its web pages). */
  @Get('{id}/deliveries')
  @Security('signed', ['organization'])
  @Response<ApiErrorBody>(404, 'not found')
  public async orgListHookDeliveries(@Path() org: string, @Path() id: number, @Request() req: ExRequest, @Query() page?: number, @Query() limit?: number): Promise<HookDelivery[]> {
    return deliveries(req, await orgHookPlace(ctxOf(req), req.principal, org), id, page, limit);
  }

  /** Send a delivery again (Gitea's replay): a new delivery with a new UUID and the same payload, sent with the hook's current settings (201). */
  @Post('{id}/deliveries/{uuid}/replay')
  @Security('signed', ['organization'])
  @SuccessResponse(201, 'queued')
  @Response<ApiErrorBody>(404, 'not found')
  public async orgReplayHookDelivery(@Path() org: string, @Path() id: number, @Path() uuid: string, @Request() req: ExRequest): Promise<HookDelivery> {
    this.setStatus(201);
    return toHookDelivery(await replayDelivery(ctxOf(req), await orgHookPlace(ctxOf(req), req.principal, org), id, uuid));
  }
}

@Route('user/hooks')
@Tags('user')
export class UserHookController extends Controller {
  /** The signed-in user's hooks. */
  @Get()
  @Security('signed', ['user'])
  public async userListHooks(@Request() req: ExRequest, @Query() page?: number, @Query() limit?: number): Promise<Hook[]> {
    return list(req, { ownerId: doerOf(req).id }, page, limit);
  }

  /** Add a hook. */
  @Post()
  @Security('signed', ['user'])
  @SuccessResponse(201, 'created')
  @Response<ApiErrorBody>(422, 'invalid type, config, events or url')
  public async userCreateHook(@Body() body: CreateHookOption, @Request() req: ExRequest): Promise<Hook> {
    this.setStatus(201);
    return toHook(hookView(await createHook(ctxOf(req), { ownerId: doerOf(req).id }, body)));
  }

  /** One hook. */
  @Get('{id}')
  @Security('signed', ['user'])
  @Response<ApiErrorBody>(404, 'not found')
  public async userGetHook(@Path() id: number, @Request() req: ExRequest): Promise<Hook> {
    return toHook(hookView(await getHook(ctxOf(req), { ownerId: doerOf(req).id }, id)));
  }

  /** Change a hook. */
  @Patch('{id}')
  @Security('signed', ['user'])
  @Response<ApiErrorBody>(404, 'not found')
  public async userEditHook(@Path() id: number, @Body() body: EditHookOption, @Request() req: ExRequest): Promise<Hook> {
    return toHook(hookView(await editHook(ctxOf(req), { ownerId: doerOf(req).id }, id, body)));
  }

  /** Delete a hook. */
  @Delete('{id}')
  @Security('signed', ['user'])
  @SuccessResponse(204, 'deleted')
  @Response<ApiErrorBody>(404, 'not found')
  public async userDeleteHook(@Path() id: number, @Request() req: ExRequest): Promise<void> {
    await removeHook(ctxOf(req), { ownerId: doerOf(req).id }, id);
    this.setStatus(204);
  }

  /** The hook's deliveries, newest first, with what was sent and what came back (the forge's own route: Gitea shows them on its web pages). */
  @Get('{id}/deliveries')
  @Security('signed', ['user'])
  @Response<ApiErrorBody>(404, 'not found')
  public async userListHookDeliveries(@Path() id: number, @Request() req: ExRequest, @Query() page?: number, @Query() limit?: number): Promise<HookDelivery[]> {
    return deliveries(req, { ownerId: doerOf(req).id }, id, page, limit);
  }

  /** Send a delivery again (Gitea's replay): a new delivery with a new UUID and the same payload, sent with the hook's current settings (201). */
  @Post('{id}/deliveries/{uuid}/replay')
  @Security('signed', ['user'])
  @SuccessResponse(201, 'queued')
  @Response<ApiErrorBody>(404, 'not found')
  public async userReplayHookDelivery(@Path() id: number, @Path() uuid: string, @Request() req: ExRequest): Promise<HookDelivery> {
    this.setStatus(201);
    return toHookDelivery(await replayDelivery(ctxOf(req), { ownerId: doerOf(req).id }, id, uuid));
  }
}

@Route('admin/hooks')
@Tags('admin')
export class AdminHookController extends Controller {
  /** The instance's hooks: `type` system (the default), default (copied into new repositories) or all. */
  @Get()
  @Security('admin', ['admin'])
  public async adminListHooks(@Request() req: ExRequest, @Query() page?: number, @Query() limit?: number, @Query() type?: string): Promise<Hook[]> {
    return list(req, 'instance', page, limit, type);
  }

  /** Add a hook: a default hook unless `config.is_system_webhook` is true. */
  @Post()
  @Security('admin', ['admin'])
  @SuccessResponse(201, 'created')
  @Response<ApiErrorBody>(422, 'invalid type, config, events or url')
  public async adminCreateHook(@Body() body: CreateHookOption, @Request() req: ExRequest): Promise<Hook> {
    this.setStatus(201);
    return toHook(hookView(await createHook(ctxOf(req), 'instance', body)));
  }

  /** One hook. */
  @Get('{id}')
  @Security('admin', ['admin'])
  @Response<ApiErrorBody>(404, 'not found')
  public async adminGetHook(@Path() id: number, @Request() req: ExRequest): Promise<Hook> {
    return toHook(hookView(await getHook(ctxOf(req), 'instance', id)));
  }

  /** Change a hook. */
  @Patch('{id}')
  @Security('admin', ['admin'])
  @Response<ApiErrorBody>(404, 'not found')
  public async adminEditHook(@Path() id: number, @Body() body: EditHookOption, @Request() req: ExRequest): Promise<Hook> {
    return toHook(hookView(await editHook(ctxOf(req), 'instance', id, body)));
  }

  /** Delete a hook. */
  @Delete('{id}')
  @Security('admin', ['admin'])
  @SuccessResponse(204, 'deleted')
  @Response<ApiErrorBody>(404, 'not found')
  public async adminDeleteHook(@Path() id: number, @Request() req: ExRequest): Promise<void> {
    await removeHook(ctxOf(req), 'instance', id);
    this.setStatus(204);
  }

  /** The hook's deliveries, newest first, with what was sent and what came back (the forge's own route: Gitea shows them on its web pages). */
  @Get('{id}/deliveries')
  @Security('admin', ['admin'])
  @Response<ApiErrorBody>(404, 'not found')
  public async adminListHookDeliveries(@Path() id: number, @Request() req: ExRequest, @Query() page?: number, @Query() limit?: number): Promise<HookDelivery[]> {
    return deliveries(req, 'instance', id, page, limit);
  }

  /** Send a delivery again (Gitea's replay): a new delivery with a new UUID and the same payload, sent with the hook's current settings (201). */
  @Post('{id}/deliveries/{uuid}/replay')
  @Security('admin', ['admin'])
  @SuccessResponse(201, 'queued')
  @Response<ApiErrorBody>(404, 'not found')
  public async adminReplayHookDelivery(@Path() id: number, @Path() uuid: string, @Request() req: ExRequest): Promise<HookDelivery> {
    this.setStatus(201);
    return toHookDelivery(await replayDelivery(ctxOf(req), 'instance', id, uuid));
  }
}
