/**
 * A repository's artifacts (v4 uploads) for readers of its Actions unit, their deletion for its
 * writers, and the zip download, which redirects to a URL signed for an hour.
 */
import type { Request as ExRequest } from 'express';
import { Controller, Delete, Get, Path, Query, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { ActionArtifact, ActionArtifactsResponse } from '../api/actions';
import type { ApiErrorBody } from '../errors';
import { settings } from '../config';
import { ctxOf } from '../middleware/context';
import { listOptions } from '../middleware/paging';
import { toActionArtifact } from '../convert/actions';
import { repoAssignment, type RepoContext } from '../services/repo/context';
import { repoUrls } from '../services/content/view';
import { artifactZipUrl, deleteRepoArtifact, listRepoArtifacts, repoArtifact } from '../services/actions/artifact.service';

const apiOf = (rc: RepoContext) => repoUrls(settings().server.rootUrl, rc.owner.name, rc.repo.name).api;

@Route('repos/{owner}/{repo}/actions')
@Tags('repository')
export class RepoActionsArtifactsController extends Controller {
  /** The repository's artifacts, by name when asked. */
  @Get('artifacts')
  @Security('public', ['repository'])
  @Response<ApiErrorBody>(404, 'not found')
  public async getArtifacts(
    @Path() owner: string, @Path() repo: string, @Request() req: ExRequest, @Query() name?: string, @Query() page?: number, @Query() limit?: number,
  ): Promise<ActionArtifactsResponse> {
    return this.list(req, owner, repo, { name }, page, limit);
  }

  /** The artifacts of a run, by name when asked. */
  @Get('runs/{run}/artifacts')
  @Security('public', ['repository'])
  @Response<ApiErrorBody>(404, 'not found')
  public async getArtifactsOfRun(
    @Path() owner: string, @Path() repo: string, @Path() run: number, @Request() req: ExRequest, @Query() name?: string, @Query() page?: number, @Query() limit?: number,
  ): Promise<ActionArtifactsResponse> {
    return this.list(req, owner, repo, { runId: run, name }, page, limit);
  }

  /** An artifact by id. */
  @Get('artifacts/{artifact_id}')
  @Security('public', ['repository'])
  @Response<ApiErrorBody>(404, 'not found')
  public async getArtifact(@Path() owner: string, @Path() repo: string, @Path() artifact_id: number, @Request() req: ExRequest): Promise<ActionArtifact> {
    const rc = await repoAssignment(ctxOf(req), req.principal, owner, repo);
    return toActionArtifact(await repoArtifact(ctxOf(req), rc, artifact_id), apiOf(rc));
  }

  /** Delete an artifact and its file. */
  @Delete('artifacts/{artifact_id}')
  @Security('signed', ['repository'])
  @SuccessResponse(204, 'deleted')
  @Response<ApiErrorBody>(404, 'not found')
  public async deleteArtifact(@Path() owner: string, @Path() repo: string, @Path() artifact_id: number, @Request() req: ExRequest): Promise<void> {
    await deleteRepoArtifact(ctxOf(req), await repoAssignment(ctxOf(req), req.principal, owner, repo), artifact_id);
    this.setStatus(204);
  }

  /** Download an artifact's zip: a redirect to a download URL signed for an hour. */
  @Get('artifacts/{artifact_id}/zip')
  @Security('public', ['repository'])
  @SuccessResponse(302, 'redirect')
  @Response<ApiErrorBody>(404, 'not found or expired')
  public async downloadArtifact(@Path() owner: string, @Path() repo: string, @Path() artifact_id: number, @Request() req: ExRequest): Promise<void> {
    const rc = await repoAssignment(ctxOf(req), req.principal, owner, repo);
    this.setHeader('Location', await artifactZipUrl(ctxOf(req), rc, artifact_id));
    this.setStatus(302);
  }

  private async list(req: ExRequest, owner: string, repo: string, f: { runId?: number; name?: string }, page?: number, limit?: number): Promise<ActionArtifactsResponse> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    const { rows, count } = await listRepoArtifacts(ctx, rc, f, listOptions(page, limit));
    return { artifacts: rows.map((a) => toActionArtifact(a, apiOf(rc))), total_count: count };
  }
}
