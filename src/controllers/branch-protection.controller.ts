/** Branch protection rules of a repository (`/branch_protections`, repository admins). */
import type { Request as ExRequest } from 'express';
import { Body, Controller, Delete, Get, Patch, Path, Post, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { BranchProtection, CreateBranchProtectionOption, EditBranchProtectionOption, UpdateBranchProtectionPriories } from '../api/branch-protection';
import type { ApiErrorBody } from '../errors';
import { ctxOf } from '../middleware/context';
import { toBranchProtection } from '../convert/branch-protection';
import { repoAssignment } from '../services/repo/context';
import {
  createBranchProtection, editBranchProtection, getBranchProtection, listBranchProtections, removeBranchProtection,
  reorderBranchProtections, type BranchProtectionView,
} from '../services/refs/branch-protection.service';

const rule = (v: BranchProtectionView) => toBranchProtection(v.row, v);

@Route('repos/{owner}/{repo}')
@Tags('repository')
export class BranchProtectionController extends Controller {
  /** List the branch protection rules, in the order they are tried. */
  @Get('branch_protections')
  @Security('signed', ['repository'])
  @Response<ApiErrorBody>(403, 'not a repository admin')
  public async repoListBranchProtection(@Path() owner: string, @Path() repo: string, @Request() req: ExRequest): Promise<BranchProtection[]> {
    const ctx = ctxOf(req);
    return (await listBranchProtections(ctx, await repoAssignment(ctx, req.principal, owner, repo))).map(rule);
  }

  /** Add a branch protection rule (`rule_name`: a branch name, or a glob such as `release/*`). */
  @Post('branch_protections')
  @Security('signed', ['repository'])
  @SuccessResponse(201, 'BranchProtection')
  @Response<ApiErrorBody>(400, 'no rule name')
  @Response<ApiErrorBody>(403, 'not a repository admin, or the rule exists')
  @Response<ApiErrorBody>(422, 'unknown user or team')
  @Response<ApiErrorBody>(423, 'archived')
  public async repoCreateBranchProtection(@Path() owner: string, @Path() repo: string, @Body() body: CreateBranchProtectionOption, @Request() req: ExRequest): Promise<BranchProtection> {
    const ctx = ctxOf(req);
    const v = await createBranchProtection(ctx, await repoAssignment(ctx, req.principal, owner, repo), body);
    this.setStatus(201);
    return rule(v);
  }

  /** Set the rules' priorities: the first id is tried first. */
  @Post('branch_protections/priority')
  @Security('signed', ['repository'])
  @SuccessResponse(204, 'empty')
  @Response<ApiErrorBody>(422, 'validation error')
  @Response<ApiErrorBody>(423, 'archived')
  public async repoUpdateBranchProtectionPriories(@Path() owner: string, @Path() repo: string, @Body() body: UpdateBranchProtectionPriories, @Request() req: ExRequest): Promise<void> {
    const ctx = ctxOf(req);
    await reorderBranchProtections(ctx, await repoAssignment(ctx, req.principal, owner, repo), body.ids);
    this.setStatus(204);
  }

  /** Get a branch protection rule by its name. */
  @Get('branch_protections/{name}')
  @Security('signed', ['repository'])
  @Response<ApiErrorBody>(404, 'not found')
  public async repoGetBranchProtection(@Path() owner: string, @Path() repo: string, @Path() name: string, @Request() req: ExRequest): Promise<BranchProtection> {
    const ctx = ctxOf(req);
    return rule(await getBranchProtection(ctx, await repoAssignment(ctx, req.principal, owner, repo), name));
  }

  /** Change a branch protection rule; omitted fields keep their value. */
  @Patch('branch_protections/{name}')
  @Security('signed', ['repository'])
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(422, 'validation error')
  @Response<ApiErrorBody>(423, 'archived')
  public async repoEditBranchProtection(@Path() owner: string, @Path() repo: string, @Path() name: string, @Body() body: EditBranchProtectionOption, @Request() req: ExRequest): Promise<BranchProtection> {
    const ctx = ctxOf(req);
    return rule(await editBranchProtection(ctx, await repoAssignment(ctx, req.principal, owner, repo), name, body));
  }

  /** Delete a branch protection rule. */
  @Delete('branch_protections/{name}')
  @Security('signed', ['repository'])
  @SuccessResponse(204, 'empty')
  @Response<ApiErrorBody>(404, 'not found')
  public async repoDeleteBranchProtection(@Path() owner: string, @Path() repo: string, @Path() name: string, @Request() req: ExRequest): Promise<void> {
    const ctx = ctxOf(req);
    await removeBranchProtection(ctx, await repoAssignment(ctx, req.principal, owner, repo), name);
    this.setStatus(204);
  }
}
