/**
 * Pull requests of a repository: list with Gitea's filters, create, get by number and by base and
 * head. Every route answers 404 for a mirror, an empty repository or pull requests the caller
 * cannot read.
 */
import type { Request as ExRequest } from 'express';
import { Body, Controller, Delete, Get, Patch, Path, Post, Query, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { ChangedFile, CreatePullRequestOption, EditPullRequestOption, MergePullRequestOption, MergeUpstreamRequest, MergeUpstreamResponse, PullRequest } from '../api/pull';
import type { Commit } from '../api/commit';
import { NotFound, type ApiErrorBody } from '../errors';
import { ctxOf, doerOf, viewerOf } from '../middleware/context';
import { listOptions, setPaging, setPagingWithPageCount } from '../middleware/paging';
import { toChangedFile, toPullRequest } from '../convert/pull';
import { toCommit } from '../convert/commit';
import { toUser } from '../convert/user';
import type { User } from '../api/user';
import { settings } from '../config';
import { repoUrls } from '../services/content/view';
import { pullCommits, pullFiles } from '../services/pull/diff.service';
import { repoAssignment } from '../services/repo/context';
import { createPull, getPull, getPullByBaseHead, listPinnedPulls, listPulls, pullOfMergedCommit } from '../services/pull/pull.service';
import { isPullMerged, mergePull } from '../services/pull/merge.service';
import { cancelScheduledMerge } from '../services/pull/auto-merge.service';
import { editPull } from '../services/pull/pull-edit.service';
import { updatePull } from '../services/pull/update.service';
import { mergeUpstream } from '../services/pull/upstream.service';

@Route('repos/{owner}/{repo}/pulls')
@Tags('repository')
export class PullController extends Controller {
  /** List a repository's pull requests (all states unless `state` says open or closed), newest first unless sorted. */
  @Get()
  @Security('public', ['repository'])
  @Response<ApiErrorBody>(400, 'unknown poster')
  @Response<ApiErrorBody>(404, 'not found')
  public async repoListPullRequests(
    @Path() owner: string, @Path() repo: string, @Request() req: ExRequest,
    @Query() state?: string, @Query() sort?: string, @Query() milestone?: number, @Query() labels?: number[], @Query() poster?: string,
    @Query() base_branch?: string, @Query() page?: number, @Query() limit?: number,
  ): Promise<PullRequest[]> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    const opts = listOptions(page, limit);
    const { items, total } = await listPulls(ctx, req.principal, rc, {
      isClosed: state === 'closed' ? true : state === 'open' ? false : undefined, sort, poster, baseBranch: base_branch || undefined,
      milestoneIds: milestone && milestone > 0 ? [milestone] : undefined, anyLabelIds: labels?.length ? labels : undefined,
    }, opts);
    setPaging(req, opts, total);
    return items.map((v) => toPullRequest(v, viewerOf(req)));
  }

  /** Open a pull request from `head` (`branch`, or `owner:branch` of a fork) into `base`. */
  @Post()
  @Security('signed', ['repository'])
  @SuccessResponse(201, 'PullRequest')
  @Response<ApiErrorBody>(403, 'blocked, or not allowed to propose')
  @Response<ApiErrorBody>(404, 'a branch or repository not found')
  @Response<ApiErrorBody>(409, 'an open pull request exists for these branches')
  @Response<ApiErrorBody>(422, 'validation error')
  @Response<ApiErrorBody>(423, 'archived')
  public async repoCreatePullRequest(@Path() owner: string, @Path() repo: string, @Body() body: CreatePullRequestOption, @Request() req: ExRequest): Promise<PullRequest> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    const v = await createPull(ctx, doerOf(req), req.principal, rc, body);
    this.setStatus(201);
    return toPullRequest(v, viewerOf(req));
  }

  /** The repository's pinned pull requests, in pin order. */
  @Get('pinned')
  @Security('public', ['repository'])
  @Response<ApiErrorBody>(404, 'not found')
  public async repoListPinnedPullRequests(@Path() owner: string, @Path() repo: string, @Request() req: ExRequest): Promise<PullRequest[]> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    return (await listPinnedPulls(ctx, req.principal, rc)).map((v) => toPullRequest(v, viewerOf(req)));
  }

  /** A pull request by number. */
  @Get('{index}')
  @Security('public', ['repository'])
  @Response<ApiErrorBody>(404, 'not found')
  public async repoGetPullRequest(@Path() owner: string, @Path() repo: string, @Path() index: number, @Request() req: ExRequest): Promise<PullRequest> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    return toPullRequest(await getPull(ctx, req.principal, rc, index), viewerOf(req));
  }

  /** Edit a pull request (Gitea answers 201): title, body, base, assignees, labels, milestone, state, due date, allow_maintainer_edit. */
  @Patch('{index}')
  @Security('signed', ['repository'])
  @SuccessResponse(201, 'PullRequest')
  @Response<ApiErrorBody>(403, 'not the poster or a writer')
  @Response<ApiErrorBody>(404, 'not found, or the new base does not exist')
  @Response<ApiErrorBody>(409, 'an open pull request exists for the new base')
  @Response<ApiErrorBody>(412, 'merged, unknown state, or open dependencies')
  @Response<ApiErrorBody>(422, 'validation error')
  public async repoEditPullRequest(@Path() owner: string, @Path() repo: string, @Path() index: number, @Body() body: EditPullRequestOption, @Request() req: ExRequest): Promise<PullRequest> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    const v = await editPull(ctx, doerOf(req), req.principal, rc, index, body);
    this.setStatus(201);
    return toPullRequest(v, viewerOf(req));
  }

  /** The pull request from `head` (`branch`, `owner:branch` or `owner/repo:branch`) into `base`, in any state. */
  @Get('{base}/{head}')
  @Security('public', ['repository'])
  @Response<ApiErrorBody>(404, 'not found')
  public async repoGetPullRequestByBaseHead(@Path() owner: string, @Path() repo: string, @Path() base: string, @Path() head: string, @Request() req: ExRequest): Promise<PullRequest> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    return toPullRequest(await getPullByBaseHead(ctx, req.principal, rc, base, head), viewerOf(req));
  }

  /** 204 when the pull request has been merged, 404 when not. */
  @Get('{index}/merge')
  @Security('public', ['repository'])
  @SuccessResponse(204, 'merged')
  @Response<ApiErrorBody>(404, 'not merged, or not found')
  public async repoPullRequestIsMerged(@Path() owner: string, @Path() repo: string, @Path() index: number, @Request() req: ExRequest): Promise<void> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    if (!(await isPullMerged(ctx, rc, index))) throw new NotFound();
    this.setStatus(204);
  }

  /**
   * Merge a pull request with one of the styles the repository allows, record a merge made outside
   * (`manually-merged`), or schedule the merge for when its checks succeed (`merge_when_checks_succeed`, 201).
   */
  @Post('{index}/merge')
  @Security('signed', ['repository'])
  @SuccessResponse(200, 'merged')
  @Response<void>(201, 'scheduled')
  @Response<ApiErrorBody>(404, 'not found or closed')
  @Response<ApiErrorBody>(405, 'not allowed or not ready')
  @Response<ApiErrorBody>(409, 'conflict, or the head or base moved')
  @Response<ApiErrorBody>(412, 'open dependencies')
  @Response<ApiErrorBody>(422, 'validation error')
  @Response<ApiErrorBody>(423, 'archived')
  public async repoMergePullRequest(@Path() owner: string, @Path() repo: string, @Path() index: number, @Body() body: MergePullRequestOption, @Request() req: ExRequest): Promise<void> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    this.setStatus((await mergePull(ctx, doerOf(req), req.principal, rc, index, body)) === 'scheduled' ? 201 : 200);
  }

  /** Cancel the scheduled merge of a pull request (its scheduler or a repository admin). */
  @Delete('{index}/merge')
  @Security('signed', ['repository'])
  @SuccessResponse(204, 'cancelled')
  @Response<ApiErrorBody>(403, 'neither the scheduler nor a repository admin')
  @Response<ApiErrorBody>(404, 'not found, or nothing scheduled')
  public async repoCancelScheduledAutoMerge(@Path() owner: string, @Path() repo: string, @Path() index: number, @Request() req: ExRequest): Promise<void> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    await cancelScheduledMerge(ctx, doerOf(req), rc, index);
    this.setStatus(204);
  }

  /** Bring the head up to date with the base: `style=rebase` rebases it, anything else merges the base into it. */
  @Post('{index}/update')
  @Security('signed', ['repository'])
  @SuccessResponse(200, 'updated')
  @Response<ApiErrorBody>(403, 'not allowed to push to the head branch')
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(409, 'conflict, or the head moved meanwhile')
  @Response<ApiErrorBody>(422, 'merged, closed, or already up to date')
  public async repoUpdatePullRequest(@Path() owner: string, @Path() repo: string, @Path() index: number, @Request() req: ExRequest, @Query() style?: string): Promise<void> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    await updatePull(ctx, doerOf(req), req.principal, rc, index, style === 'rebase' ? 'rebase' : 'merge');
    this.setStatus(200);
  }

  /** The pull request's commits, newest first, with Gitea's paging headers. */
  @Get('{index}/commits')
  @Security('public', ['repository'])
  @Response<ApiErrorBody>(404, 'not found')
  public async repoGetPullRequestCommits(
    @Path() owner: string, @Path() repo: string, @Path() index: number, @Request() req: ExRequest,
    @Query() page?: number, @Query() limit?: number, @Query() verification?: boolean, @Query() files?: boolean,
  ): Promise<Commit[]> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    const opts = listOptions(page, limit);
    const r = await pullCommits(ctx, rc, index, { skip: opts.offset, limit: opts.limit }, { stat: true, files: files !== false, verification: verification !== false });
    setPagingWithPageCount(req, opts, r.total);
    const root = settings().server.rootUrl;
    const users = new Map<string, User>([...r.users].map(([email, u]) => [email, toUser(u, viewerOf(req), root)]));
    return r.commits.map((c) => toCommit(c, repoUrls(root, rc.owner.name, rc.repo.name), users, r.verifications.get(c.id)));
  }

  /** The files the pull request changes, with line counts (`skip-to` starts the list at a file; `whitespace` as Gitea). */
  @Get('{index}/files')
  @Security('public', ['repository'])
  @Response<ApiErrorBody>(404, 'not found')
  public async repoGetPullRequestFiles(
    @Path() owner: string, @Path() repo: string, @Path() index: number, @Request() req: ExRequest,
    @Query('skip-to') skipTo?: string, @Query() whitespace?: string, @Query() page?: number, @Query() limit?: number,
  ): Promise<ChangedFile[]> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    const opts = listOptions(page, limit);
    const { files, head } = await pullFiles(ctx, rc, index, { skipTo, whitespace });
    setPagingWithPageCount(req, opts, files.length);
    const urls = repoUrls(settings().server.rootUrl, rc.owner.name, rc.repo.name);
    return files.slice(opts.offset, opts.offset + opts.limit).map((f) => toChangedFile(f, urls, head));
  }
}

/** The pull request that merged a commit. */
@Route('repos/{owner}/{repo}/commits')
@Tags('repository')
export class CommitPullController extends Controller {
  /** The merged pull request whose merge commit is `sha` (a full commit id). */
  @Get('{sha}/pull')
  @Security('public', ['repository'])
  @Response<ApiErrorBody>(404, 'no pull request merged this commit')
  public async repoGetCommitPullRequest(@Path() owner: string, @Path() repo: string, @Path() sha: string, @Request() req: ExRequest): Promise<PullRequest> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    return toPullRequest(await pullOfMergedCommit(ctx, req.principal, rc, sha), viewerOf(req));
  }
}

/** Bringing a fork's branch up to its parent's. */
@Route('repos/{owner}/{repo}/merge-upstream')
@Tags('repository')
export class MergeUpstreamController extends Controller {
  /** Merge the parent's branch of the same name (or its default branch) into a branch of this fork. */
  @Post()
  @Security('signed', ['repository'])
  @Response<ApiErrorBody>(400, 'not a fork')
  @Response<ApiErrorBody>(403, 'not a writer, or a protected branch')
  @Response<ApiErrorBody>(404, 'no such branch')
  @Response<ApiErrorBody>(409, 'not a fast-forward with ff_only, a conflict, or the branch moved')
  @Response<ApiErrorBody>(423, 'archived')
  public async repoMergeUpstream(@Path() owner: string, @Path() repo: string, @Body() body: MergeUpstreamRequest, @Request() req: ExRequest): Promise<MergeUpstreamResponse> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    return { merge_type: await mergeUpstream(ctx, doerOf(req), rc, body ?? {}) };
  }
}
