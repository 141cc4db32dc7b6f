/** Repository history: the commit list and single commits, with Gitea's switches and page headers. */
import type { Request as ExRequest } from 'express';
import { Controller, Get, Path, Query, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { Commit, Compare } from '../api/commit';
import type { User } from '../api/user';
import type { ApiErrorBody } from '../errors';
import { Validation } from '../errors';
import { settings } from '../config';
import { ctxOf, viewerOf } from '../middleware/context';
import { listOptions, setPagingWithPageCount } from '../middleware/paging';
import { affectedFiles, toCommit } from '../convert/commit';
import { repoUrls } from '../services/content/view';
import { toUser } from '../convert/user';
import { repoAssignment } from '../services/repo/context';
import { compareCommits, getCommit, listCommits, type CommitsResult } from '../services/history/commit.service';

// why: Gitea's ref/sha pattern check on /git/commits/{sha}: no option-like, control or range syntax.
const REF_PATTERN = /^(?!-)(?!.*\.\.)[^\0-\x20~^:?*[\\]+$/;

/** Gitea's boolean switches default to true when absent. */
const on = (v: boolean | undefined) => v !== false;

@Route('repos/{owner}/{repo}')
@Tags('repository')
export class CommitController extends Controller {
  private convert(req: ExRequest, owner: string, repo: string, r: CommitsResult): Commit[] {
    const root = settings().server.rootUrl;
    const viewer = viewerOf(req);
    const users = new Map<string, User>([...r.users].map(([email, u]) => [email, toUser(u, viewer, root)]));
    const urls = repoUrls(root, owner, repo);
    return r.commits.map((c) => toCommit(c, urls, users, r.verifications.get(c.id)));
  }

  /** A page of commits, newest first, with Gitea's paging headers. */
  @Get('commits')
  @Security('public', ['repository'])
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(409, 'empty repository')
  public async repoGetAllCommits(
    @Path() owner: string, @Path() repo: string, @Request() req: ExRequest,
    @Query() sha?: string, @Query() path?: string, @Query() stat?: boolean, @Query() verification?: boolean, @Query() files?: boolean,
    @Query() page?: number, @Query() limit?: number, @Query() not?: string, @Query() since?: Date, @Query() until?: Date,
  ): Promise<Commit[]> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    const opts = listOptions(page, limit);
    const r = await listCommits(ctx, rc, {
      sha, path, not, since, until, skip: opts.offset, limit: opts.limit, stat: on(stat), files: on(files), verification: on(verification),
    });
    setPagingWithPageCount(req, opts, r.total);
    return this.convert(req, rc.owner.name, rc.repo.name, r);
  }

  /** One commit. */
  @Get('git/commits/{sha}')
  @Security('public', ['repository'])
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(422, 'invalid sha')
  public async repoGetSingleCommit(
    @Path() owner: string, @Path() repo: string, @Path() sha: string, @Request() req: ExRequest,
    @Query() stat?: boolean, @Query() verification?: boolean, @Query() files?: boolean,
  ): Promise<Commit> {
    if (!REF_PATTERN.test(sha)) throw new Validation(`no valid ref or sha: ${sha}`);
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    const r = await getCommit(ctx, rc, sha, { stat: on(stat), files: on(files), verification: on(verification) });
    return this.convert(req, rc.owner.name, rc.repo.name, r)[0];
  }

  /** Compare two refs: `{base}...{head}` (branch, tag or commit; names may contain slashes). */
  @Get('compare/{basehead}')
  @Security('public', ['repository'])
  @Response<ApiErrorBody>(404, 'not found')
  public async repoCompareDiff(@Path() owner: string, @Path() repo: string, @Path() basehead: string, @Request() req: ExRequest): Promise<Compare> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    const r = await compareCommits(ctx, rc, basehead);
    return { total_commits: r.total, commits: this.convert(req, rc.owner.name, rc.repo.name, r), files: affectedFiles(r.files) };
  }
}
