/**
 * The package API (`/packages/{owner}`, Gitea 1.24's tag `package`): list an owner's package
 * versions (by `type` and `q`), a package's versions, one version, its files, the latest, delete,
 * and link or unlink a repository. Signed-in callers only; reads need read access to the owner's
 * packages, writes write access, refused with 403 as Gitea's API does.
 */
import type { Request as ExRequest } from 'express';
import { Controller, Delete, Get, Path, Post, Query, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { Package, PackageFile } from '../api/package';
import type { ApiErrorBody } from '../errors';
import { NotFound } from '../errors';
import { ctxOf, doerOf, viewerOf } from '../middleware/context';
import { listOptions, setPaging } from '../middleware/paging';
import { settings } from '../config';
import { toPackage, toPackageFile } from '../convert/package';
import { AccessMode } from '../models/perm';
import { filesOfVersions, findPackage, listVersions, versionsOfPackage, type PackageModel, type VersionRow } from '../models/package.model';
import type { UserModel } from '../models/user.model';
import { lookupOwner } from '../services/user/lookup';
import { assertPackageAccess } from '../services/packages/access';
import { findPackageVersion, linkPackage, removePackageVersion, unlinkPackage } from '../services/packages/package.service';
import { packageViews } from '../services/packages/view';

@Route('packages/{owner}')
@Tags('package')
export class PackageController extends Controller {
  /** The owner, once the caller may `need` its packages. */
  private async owner(req: ExRequest, name: string, need: AccessMode.Read | AccessMode.Write): Promise<UserModel> {
    const ctx = ctxOf(req);
    const owner = await lookupOwner(ctx, req.principal, name);
    await assertPackageAccess(ctx, req.principal, owner, need, true);
    return owner;
  }

  private async views(req: ExRequest, owner: UserModel, rows: VersionRow[]): Promise<Package[]> {
    return (await packageViews(ctxOf(req), req.principal, owner, rows)).map((v) => toPackage(v, viewerOf(req), settings().server.rootUrl));
  }

  /** Gets all packages of an owner (each version is one entry, newest first). */
  @Get()
  @Security('signed', ['package'])
  @Response<ApiErrorBody>(403, 'no access')
  @Response<ApiErrorBody>(404, 'not found')
  public async listPackages(@Path() owner: string, @Request() req: ExRequest, @Query() page?: number, @Query() limit?: number, @Query() type?: string, @Query() q?: string): Promise<Package[]> {
    const o = await this.owner(req, owner, AccessMode.Read);
    const opts = listOptions(page, limit);
    const t = type && type !== 'all' ? type : undefined;
    const { rows, total } = await listVersions(ctxOf(req), { ownerId: o.id, type: t, q: q?.trim() || undefined }, opts.limit, opts.offset);
    setPaging(req, opts, total);
    return this.views(req, o, rows);
  }

  /** Gets all versions of a package. */
  @Get('{type}/{name}')
  @Security('signed', ['package'])
  @Response<ApiErrorBody>(403, 'no access')
  @Response<ApiErrorBody>(404, 'not found')
  public async listPackageVersions(@Path() owner: string, @Path() type: string, @Path() name: string, @Request() req: ExRequest, @Query() page?: number, @Query() limit?: number): Promise<Package[]> {
    const o = await this.owner(req, owner, AccessMode.Read);
    const opts = listOptions(page, limit);
    const { rows, total } = await listVersions(ctxOf(req), { ownerId: o.id, type, name }, opts.limit, opts.offset);
    setPaging(req, opts, total);
    return this.views(req, o, rows);
  }

  /** Gets the latest version of a package (the newest upload). */
  @Get('{type}/{name}/-/latest')
  @Security('signed', ['package'])
  @Response<ApiErrorBody>(403, 'no access')
  @Response<ApiErrorBody>(404, 'not found')
  public async getLatestPackageVersion(@Path() owner: string, @Path() type: string, @Path() name: string, @Request() req: ExRequest): Promise<Package> {
    const ctx = ctxOf(req);
    const o = await this.owner(req, owner, AccessMode.Read);
    const pkg: PackageModel | null = await findPackage(ctx, o.id, type, name);
    const versions = pkg && !pkg.isInternal ? await versionsOfPackage(ctx, pkg.id) : [];
    if (!pkg || versions.length === 0) throw new NotFound('package does not exist');
    const latest = versions.reduce((a, b) => (b.id > a.id ? b : a));
    return (await this.views(req, o, [{ pkg, version: latest }]))[0];
  }

  /** Link a package to a repository of its owner. */
  @Post('{type}/{name}/-/link/{repo_name}')
  @Security('signed', ['package'])
  @SuccessResponse(201, 'linked')
  @Response<ApiErrorBody>(400, 'already linked')
  @Response<ApiErrorBody>(403, 'no access')
  @Response<ApiErrorBody>(404, 'not found')
  public async linkPackage(@Path() owner: string, @Path() type: string, @Path() name: string, @Path() repo_name: string, @Request() req: ExRequest): Promise<void> {
    const o = await this.owner(req, owner, AccessMode.Write);
    await linkPackage(ctxOf(req), req.principal, o, type, name, repo_name);
    this.setStatus(201);
  }

  /** Unlink a package from its repository. */
  @Post('{type}/{name}/-/unlink')
  @Security('signed', ['package'])
  @SuccessResponse(204, 'unlinked')
  @Response<ApiErrorBody>(400, 'not linked')
  @Response<ApiErrorBody>(403, 'no access')
  @Response<ApiErrorBody>(404, 'not found')
  public async unlinkPackage(@Path() owner: string, @Path() type: string, @Path() name: string, @Request() req: ExRequest): Promise<void> {
    const o = await this.owner(req, owner, AccessMode.Write);
    await unlinkPackage(ctxOf(req), req.principal, o, type, name);
    this.setStatus(204);
  }

  /** Gets a package version. */
  @Get('{type}/{name}/{version}')
  @Security('signed', ['package'])
  @Response<ApiErrorBody>(403, 'no access')
  @Response<ApiErrorBody>(404, 'not found')
  public async getPackage(@Path() owner: string, @Path() type: string, @Path() name: string, @Path() version: string, @Request() req: ExRequest): Promise<Package> {
    const o = await this.owner(req, owner, AccessMode.Read);
    return (await this.views(req, o, [await findPackageVersion(ctxOf(req), o, type, name, version)]))[0];
  }

  /** Delete a package version. */
  @Delete('{type}/{name}/{version}')
  @Security('signed', ['package'])
  @SuccessResponse(204, 'deleted')
  @Response<ApiErrorBody>(403, 'no access')
  @Response<ApiErrorBody>(404, 'not found')
  public async deletePackage(@Path() owner: string, @Path() type: string, @Path() name: string, @Path() version: string, @Request() req: ExRequest): Promise<void> {
    const ctx = ctxOf(req);
    const o = await this.owner(req, owner, AccessMode.Write);
    const { pkg, version: v } = await findPackageVersion(ctx, o, type, name, version);
    await removePackageVersion(ctx, doerOf(req), o, pkg, v);
    this.setStatus(204);
  }

  /** Gets all files of a package version. */
  @Get('{type}/{name}/{version}/files')
  @Security('signed', ['package'])
  @Response<ApiErrorBody>(403, 'no access')
  @Response<ApiErrorBody>(404, 'not found')
  public async listPackageFiles(@Path() owner: string, @Path() type: string, @Path() name: string, @Path() version: string, @Request() req: ExRequest): Promise<PackageFile[]> {
    const o = await this.owner(req, owner, AccessMode.Read);
    const { version: v } = await findPackageVersion(ctxOf(req), o, type, name, version);
    return (await filesOfVersions(ctxOf(req), [v.id])).map(toPackageFile);
  }
}
