/**
 * Deploy keys of a repository: `/repos/{owner}/{repo}/keys` list and add, `/keys/{id}` get and
 * delete. Repository admins only (Gitea's reqAdmin); site admins and the repository owner also see
 * each key's `repository`.
 */
import type { Request as ExRequest } from 'express';
import { Body, Controller, Delete, Get, Path, Post, Query, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { CreateKeyOption } from '../api/key';
import type { DeployKey } from '../api/deploy-key';
import type { Repository } from '../api/repo';
import type { ApiErrorBody } from '../errors';
import { settings } from '../config';
import { ctxOf, doerOf, viewerOf } from '../middleware/context';
import { listOptions, setPaging } from '../middleware/paging';
import { deployKeysLink, toDeployKey } from '../convert/deploy-key';
import { toRepository } from '../convert/repo';
import { AccessMode } from '../models/perm';
import { repoAssignment, type RepoContext } from '../services/repo/context';
import { viewOf } from '../services/repo/repo.service';
import {
  addDeployKey, deleteRepoDeployKey, getRepoDeployKey, listRepoDeployKeys, type DeployKeyView,
} from '../services/keys/deploy-key.service';

@Route('repos/{owner}/{repo}/keys')
@Tags('repository')
export class DeployKeyController extends Controller {
  private link(rc: RepoContext): string {
    return deployKeysLink(settings().server.rootUrl, rc.owner.name, rc.repo.name);
  }

  /** Gitea adds the repository (with the key's mode as permission) for site admins and the owner. */
  private async out(req: ExRequest, rc: RepoContext, v: DeployKeyView): Promise<DeployKey> {
    const doer = doerOf(req);
    if (!doer.isAdmin && doer.id !== rc.owner.id) return toDeployKey(v.dk, v.content, this.link(rc));
    const s = settings().server;
    const view = await viewOf(ctxOf(req), req.principal, rc.repo, rc.owner, rc.perm);
    const repository: Repository = toRepository(rc.repo, rc.owner, viewerOf(req), s.rootUrl, {
      units: view.units, sshPort: s.sshPort,
      permissions: { admin: false, push: v.dk.mode >= AccessMode.Write, pull: true },
    });
    return toDeployKey(v.dk, v.content, this.link(rc), repository);
  }

  /** List a repository's deploy keys (optionally the one with `key_id` or `fingerprint`). */
  @Get()
  @Security('signed', ['repository'])
  @Response<ApiErrorBody>(403, 'not a repository admin')
  @Response<ApiErrorBody>(404, 'not found')
  public async repoListKeys(
    @Path() owner: string, @Path() repo: string, @Request() req: ExRequest,
    @Query() key_id?: number, @Query() fingerprint?: string, @Query() page?: number, @Query() limit?: number,
  ): Promise<DeployKey[]> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    const opts = listOptions(page, limit);
    const { rows, count } = await listRepoDeployKeys(ctx, rc, { keyId: key_id || undefined, fingerprint: fingerprint || undefined }, opts.limit, opts.offset);
    setPaging(req, opts, count);
    const out: DeployKey[] = [];
    for (const v of rows) out.push(await this.out(req, rc, v));
    return out;
  }

  /** Add a key to a repository. */
  @Post()
  @Security('signed', ['repository'])
  @SuccessResponse(201, 'DeployKey')
  @Response<ApiErrorBody>(403, 'not a repository admin')
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(422, 'validation error')
  public async repoCreateKey(@Path() owner: string, @Path() repo: string, @Body() body: CreateKeyOption, @Request() req: ExRequest): Promise<DeployKey> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    const v = await addDeployKey(ctx, rc, body.title, body.key, body.read_only === true);
    this.setStatus(201);
    return toDeployKey(v.dk, v.content, this.link(rc));
  }

  /** Get a repository's key by id. */
  @Get('{id}')
  @Security('signed', ['repository'])
  @Response<ApiErrorBody>(403, 'not a repository admin')
  @Response<ApiErrorBody>(404, 'not found')
  public async repoGetKey(@Path() owner: string, @Path() repo: string, @Path() id: number, @Request() req: ExRequest): Promise<DeployKey> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    return this.out(req, rc, await getRepoDeployKey(ctx, rc, id));
  }

  /** Delete a key from a repository. */
  @Delete('{id}')
  @Security('signed', ['repository'])
  @SuccessResponse(204, 'empty')
  @Response<ApiErrorBody>(403, 'not a repository admin')
  @Response<ApiErrorBody>(404, 'not found')
  public async repoDeleteKey(@Path() owner: string, @Path() repo: string, @Path() id: number, @Request() req: ExRequest): Promise<void> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    await deleteRepoDeployKey(ctx, rc, id);
    this.setStatus(204);
  }
}
