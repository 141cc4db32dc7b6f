/**
 * Issues of a repository: list with Gitea's filters, create, get, edit, delete, deadline. A
 * repository whose tracker is disabled or external answers 404.
 */
import type { Request as ExRequest } from 'express';
import { Body, Controller, Delete, Get, Patch, Path, Post, Query, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { CreateIssueOption, EditDeadlineOption, EditIssueOption, Issue, IssueDeadline } from '../api/issue';
import type { ApiErrorBody } from '../errors';
import { ctxOf, doerOf, viewerOf } from '../middleware/context';
import { listOptions, setPaging } from '../middleware/paging';
import { toIssueOf, unixTime } from '../convert/issue';
import { unixSeconds } from '../convert/time';
import { repoAssignment } from '../services/repo/context';
import { createIssue, deleteIssue, getIssue, listIssues } from '../services/issue/issue.service';
import { editIssue, setDeadline } from '../services/issue/issue-edit.service';
import { resolveIssueFilters } from '../services/issue/filters';


@Route('repos/{owner}/{repo}/issues')
@Tags('issue')
export class IssueController extends Controller {
  /** List a repository's issues (and pull requests unless `type=issues`), newest first. */
  @Get()
  @Security('public', ['issue'])
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(422, 'bad time')
  public async issueListIssues(
    @Path() owner: string, @Path() repo: string, @Request() req: ExRequest,
    @Query() state?: string, @Query() labels?: string, @Query() q?: string, @Query() type?: string, @Query() milestones?: string,
    @Query() since?: Date, @Query() before?: Date, @Query() created_by?: string, @Query() assigned_by?: string, @Query() mentioned_by?: string,
    @Query() page?: number, @Query() limit?: number,
  ): Promise<Issue[]> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    const opts = listOptions(page, limit);
    const f = await resolveIssueFilters(ctx, rc, { labels, milestones, createdBy: created_by, assignedBy: assigned_by, mentionedBy: mentioned_by });
    const { items, total } = await listIssues(ctx, rc, {
      ...f, type, isClosed: state === 'closed' ? true : state === 'all' ? undefined : false, keyword: q?.includes('\0') ? undefined : q,
      since: unixSeconds(since), before: unixSeconds(before),
    }, opts);
    setPaging(req, opts, total);
    return items.map((v) => toIssueOf(v, viewerOf(req)));
  }

  /** Create an issue; milestone, labels, assignees and due date are kept for writers only. */
  @Post()
  @Security('signed', ['issue'])
  @SuccessResponse(201, 'Issue')
  @Response<ApiErrorBody>(403, 'forbidden or blocked')
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(422, 'validation error')
  @Response<ApiErrorBody>(423, 'archived')
  public async issueCreateIssue(@Path() owner: string, @Path() repo: string, @Body() body: CreateIssueOption, @Request() req: ExRequest): Promise<Issue> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    const v = await createIssue(ctx, doerOf(req), rc, body);
    this.setStatus(201);
    return toIssueOf(v, viewerOf(req));
  }

  /** Get an issue (or a pull request as an issue). */
  @Get('{index}')
  @Security('public', ['issue'])
  @Response<ApiErrorBody>(404, 'not found')
  public async issueGetIssue(@Path() owner: string, @Path() repo: string, @Path() index: number, @Request() req: ExRequest): Promise<Issue> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    return toIssueOf(await getIssue(ctx, rc, index), viewerOf(req));
  }

  /** Edit an issue; absent fields stay unchanged (Gitea answers 201). */
  @Patch('{index}')
  @Security('signed', ['issue'])
  @SuccessResponse(201, 'Issue')
  @Response<ApiErrorBody>(403, 'forbidden')
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(412, 'precondition failed')
  public async issueEditIssue(@Path() owner: string, @Path() repo: string, @Path() index: number, @Body() body: EditIssueOption, @Request() req: ExRequest): Promise<Issue> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    const v = await editIssue(ctx, doerOf(req), rc, index, body);
    this.setStatus(201);
    return toIssueOf(v, viewerOf(req));
  }

  /** Delete an issue (repository admins). */
  @Delete('{index}')
  @Security('signed', ['issue'])
  @SuccessResponse(204, 'empty')
  @Response<ApiErrorBody>(403, 'forbidden')
  @Response<ApiErrorBody>(404, 'not found')
  public async issueDelete(@Path() owner: string, @Path() repo: string, @Path() index: number, @Request() req: ExRequest): Promise<void> {
    const ctx = ctxOf(req);
    await deleteIssue(ctx, await repoAssignment(ctx, req.principal, owner, repo), index);
    this.setStatus(204);
  }

  /** Set (or with null remove) an issue's deadline; only its date counts. */
  @Post('{index}/deadline')
  @Security('signed', ['issue'])
  @SuccessResponse(201, 'IssueDeadline')
  @Response<ApiErrorBody>(403, 'forbidden')
  @Response<ApiErrorBody>(404, 'not found')
  public async issueEditIssueDeadline(
    @Path() owner: string, @Path() repo: string, @Path() index: number, @Body() body: EditDeadlineOption, @Request() req: ExRequest,
  ): Promise<IssueDeadline> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    const deadline = await setDeadline(ctx, doerOf(req), rc, index, body.due_date);
    this.setStatus(201);
    return { due_date: deadline ? unixTime(deadline) : null };
  }
}
