/** The labels of an issue: list, add, replace, remove one, clear. */
import type { Request as ExRequest } from 'express';
import { Body, Controller, Delete, Get, Path, Post, Put, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { IssueLabelsOption, Label } from '../api/issue';
import type { ApiErrorBody } from '../errors';
import { settings } from '../config';
import { ctxOf, doerOf } from '../middleware/context';
import { toLabel } from '../convert/issue';
import type { LabelModel } from '../models/label.model';
import { repoAssignment, type RepoContext } from '../services/repo/context';
import { readableIssue } from '../services/issue/access';
import { addIssueLabels, clearIssueLabels, issueLabels, removeIssueLabel, replaceIssueLabels } from '../services/issue/label.service';

const out = (rc: RepoContext, rows: LabelModel[]): Label[] =>
  rows.map((l) => toLabel(l, settings().server.rootUrl, { owner: rc.owner.name, repo: l.orgId ? undefined : rc.repo.name }));

@Route('repos/{owner}/{repo}/issues/{index}/labels')
@Tags('issue')
export class IssueLabelController extends Controller {
  /** The labels of an issue, by name. */
  @Get()
  @Security('public', ['issue'])
  @Response<ApiErrorBody>(404, 'not found')
  public async issueGetLabels(@Path() owner: string, @Path() repo: string, @Path() index: number, @Request() req: ExRequest): Promise<Label[]> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    return out(rc, await issueLabels(ctx, await readableIssue(ctx, rc, index)));
  }

  /** Add labels (ids or names) to an issue; answers all its labels. */
  @Post()
  @Security('signed', ['issue'])
  @Response<ApiErrorBody>(400, 'mixed or bad label values')
  @Response<ApiErrorBody>(403, 'forbidden')
  @Response<ApiErrorBody>(404, 'not found')
  public async issueAddLabel(@Path() owner: string, @Path() repo: string, @Path() index: number, @Body() body: IssueLabelsOption, @Request() req: ExRequest): Promise<Label[]> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    return out(rc, await addIssueLabels(ctx, doerOf(req), rc, index, body.labels));
  }

  /** Replace an issue's labels. */
  @Put()
  @Security('signed', ['issue'])
  @Response<ApiErrorBody>(400, 'mixed or bad label values')
  @Response<ApiErrorBody>(403, 'forbidden')
  @Response<ApiErrorBody>(404, 'not found')
  public async issueReplaceLabels(@Path() owner: string, @Path() repo: string, @Path() index: number, @Body() body: IssueLabelsOption, @Request() req: ExRequest): Promise<Label[]> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    return out(rc, await replaceIssueLabels(ctx, doerOf(req), rc, index, body.labels));
  }

  /** Remove every label from an issue. */
  @Delete()
  @Security('signed', ['issue'])
  @SuccessResponse(204, 'empty')
  @Response<ApiErrorBody>(403, 'forbidden')
  @Response<ApiErrorBody>(404, 'not found')
  public async issueClearLabels(@Path() owner: string, @Path() repo: string, @Path() index: number, @Request() req: ExRequest): Promise<void> {
    const ctx = ctxOf(req);
    await clearIssueLabels(ctx, doerOf(req), await repoAssignment(ctx, req.principal, owner, repo), index);
    this.setStatus(204);
  }

  /** Remove one label from an issue. */
  @Delete('{id}')
  @Security('signed', ['issue'])
  @SuccessResponse(204, 'empty')
  @Response<ApiErrorBody>(403, 'forbidden')
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(422, 'unknown label')
  public async issueRemoveLabel(@Path() owner: string, @Path() repo: string, @Path() index: number, @Path() id: number, @Request() req: ExRequest): Promise<void> {
    const ctx = ctxOf(req);
    await removeIssueLabel(ctx, doerOf(req), await repoAssignment(ctx, req.principal, owner, repo), index, id);
    this.setStatus(204);
  }
}
