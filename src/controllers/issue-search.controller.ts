/** `/repos/issues/search`: issues across the repositories the caller may read. Registered before `/repos/{owner}/{repo}`. */
import type { Request as ExRequest } from 'express';
import { Controller, Get, Query, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { Issue } from '../api/issue';
import type { ApiErrorBody } from '../errors';
import { ctxOf, viewerOf } from '../middleware/context';
import { listOptions, setPaging } from '../middleware/paging';
import { toIssueOf } from '../convert/issue';
import { unixSeconds } from '../convert/time';
import { searchIssues } from '../services/issue/search.service';

/** Gitea's [ui] ISSUE_PAGING_NUM: the search's page size when none is asked for. */
const SEARCH_PAGE = 20;

@Route('repos/issues')
@Tags('issue')
export class IssueSearchController extends Controller {
  /** Search issues and pull requests across every repository the caller may read, newest first unless `sort` says otherwise. */
  @Get('search')
  @Security('public', ['issue'])
  @Response<ApiErrorBody>(400, 'unknown owner or team')
  @Response<ApiErrorBody>(422, 'bad time')
  public async issueSearchIssues(
    @Request() req: ExRequest, @Query() state?: string, @Query() labels?: string, @Query() milestones?: string, @Query() q?: string,
    @Query() priority_repo_id?: number, @Query() type?: string, @Query() since?: Date, @Query() before?: Date,
    @Query() assigned?: boolean, @Query() created?: boolean, @Query() mentioned?: boolean, @Query() review_requested?: boolean,
    @Query() reviewed?: boolean, @Query() owner?: string, @Query() team?: string, @Query() sort?: string, @Query() page?: number, @Query() limit?: number,
  ): Promise<Issue[]> {
    void priority_repo_id;
    const opts = listOptions(page, limit ?? SEARCH_PAGE);
    const { items, total } = await searchIssues(ctxOf(req), req.principal, {
      state, labels, milestones, q, type, since: unixSeconds(since), before: unixSeconds(before), owner, team, created, assigned, mentioned,
      reviewRequested: review_requested, reviewed, sort,
    }, opts);
    setPaging(req, opts, total);
    return items.map((v) => toIssueOf(v, viewerOf(req)));
  }
}
