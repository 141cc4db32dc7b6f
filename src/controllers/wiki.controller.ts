/**
 * The wiki API: `GET /wiki/pages`, `GET|PATCH|DELETE /wiki/page/{pageName}`, `POST /wiki/new` and
 * `GET /wiki/revisions/{pageName}`. `{pageName}` is the page's web path (`sub_url`) and may hold
 * escapes and slashes (see middleware/greedy-params.ts); it is read raw, still escaped, as Gitea's
 * PathParamRaw, since the escapes are part of the name.
 */
import type { Request as ExRequest } from 'express';
import { Body, Controller, Delete, Get, Patch, Path, Post, Query, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { CreateWikiPageOptions, WikiCommitList, WikiPage, WikiPageMetaData } from '../api/wiki';
import { BadRequest, HttpError, type ApiErrorBody } from '../errors';
import { ctxOf, doerOf } from '../middleware/context';
import { listOptions, setPaging } from '../middleware/paging';
import { decodeBase64 } from '../services/content/paths';
import { webPathFromRequest } from '../services/wiki/wiki-path';
import { wikiRepo } from '../services/wiki/wiki-repo';
import { getPage, listPages, pageRevisions, REVISIONS_PER_PAGE } from '../services/wiki/wiki-read.service';
import { addPage, deletePage, editPage } from '../services/wiki/wiki-write.service';

const RAW_NAME = /^[^?#]*?\/repos\/[^/?#]+\/[^/?#]+\/wiki\/(?:page|revisions)\/([^?#]*)/;

/** The web path named by the request URL, taken before any unescaping. */
function pageNameOf(req: ExRequest): string {
  return webPathFromRequest(RAW_NAME.exec(req.originalUrl)?.[1] ?? '');
}

/** Content as Gitea decodes it: strict standard base64, 400 with Go's message. */
function content(body: CreateWikiPageOptions): Buffer {
  try {
    return decodeBase64(body.content_base64 ?? '');
  } catch (err) {
    if (err instanceof HttpError) throw new BadRequest(err.message);
    throw err;
  }
}

@Route('repos/{owner}/{repo}/wiki')
@Tags('repository')
export class WikiController extends Controller {
  /** All pages: the wiki's top-level `.md` files with their last commit. */
  @Get('pages')
  @Security('public', ['repository'])
  @Response<ApiErrorBody>(404, 'not found')
  public async repoGetWikiPages(@Path() owner: string, @Path() repo: string, @Request() req: ExRequest, @Query() page?: number, @Query() limit?: number): Promise<WikiPageMetaData[]> {
    const w = await wikiRepo(ctxOf(req), req.principal, owner, repo);
    const opts = listOptions(page, limit);
    const out = await listPages(w, opts);
    setPaging(req, opts, out.total);
    return out.pages;
  }

  /** One page with its content. */
  @Get('page/{pageName}')
  @Security('public', ['repository'])
  @Response<ApiErrorBody>(400, 'invalid page name')
  @Response<ApiErrorBody>(404, 'not found')
  public async repoGetWikiPage(@Path() owner: string, @Path() repo: string, @Path() pageName: string, @Request() req: ExRequest): Promise<WikiPage> {
    void pageName;
    const w = await wikiRepo(ctxOf(req), req.principal, owner, repo);
    return getPage(w, pageNameOf(req));
  }

  /** The revisions of a page, 50 per page. */
  @Get('revisions/{pageName}')
  @Security('public', ['repository'])
  @Response<ApiErrorBody>(400, 'invalid page name')
  @Response<ApiErrorBody>(404, 'not found')
  public async repoGetWikiPageRevisions(@Path() owner: string, @Path() repo: string, @Path() pageName: string, @Request() req: ExRequest, @Query() page?: number): Promise<WikiCommitList> {
    void pageName;
    const w = await wikiRepo(ctxOf(req), req.principal, owner, repo);
    const opts = listOptions(page, REVISIONS_PER_PAGE);
    const out = await pageRevisions(w, pageNameOf(req), opts);
    setPaging(req, opts, out.count);
    return out;
  }

  /** Create a page (and the wiki on its first page). */
  @Post('new')
  @Security('signed', ['repository'])
  @SuccessResponse(201, 'WikiPage')
  @Response<ApiErrorBody>(400, 'empty or reserved title, page exists, invalid base64')
  @Response<ApiErrorBody>(403, 'no write permission')
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(423, 'repo is archived')
  public async repoCreateWikiPage(@Path() owner: string, @Path() repo: string, @Body() body: CreateWikiPageOptions, @Request() req: ExRequest): Promise<WikiPage> {
    const w = await wikiRepo(ctxOf(req), req.principal, owner, repo, 'write');
    const title = body.title ?? '';
    // why: Gitea checks the title, then the content, before touching the wiki.
    if (title.trim() === '') throw new BadRequest('title is empty');
    const wp = await addPage(w, doerOf(req), title, content(body), body.message ?? '');
    this.setStatus(201);
    return getPage(w, wp);
  }

  /** Replace a page's content, renaming it when a title is given (a missing page is created). */
  @Patch('page/{pageName}')
  @Security('signed', ['repository'])
  @Response<ApiErrorBody>(400, 'reserved title, invalid base64')
  @Response<ApiErrorBody>(403, 'no write permission')
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(409, 'changed meanwhile')
  @Response<ApiErrorBody>(423, 'repo is archived')
  public async repoEditWikiPage(@Path() owner: string, @Path() repo: string, @Path() pageName: string, @Body() body: CreateWikiPageOptions, @Request() req: ExRequest): Promise<WikiPage> {
    void pageName;
    const w = await wikiRepo(ctxOf(req), req.principal, owner, repo, 'write');
    const wp = await editPage(w, doerOf(req), pageNameOf(req), body.title ?? '', content(body), body.message ?? '');
    return getPage(w, wp);
  }

  /** Delete a page. */
  @Delete('page/{pageName}')
  @Security('signed', ['repository'])
  @SuccessResponse(204, 'No Content')
  @Response<ApiErrorBody>(403, 'no write permission')
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(423, 'repo is archived')
  public async repoDeleteWikiPage(@Path() owner: string, @Path() repo: string, @Path() pageName: string, @Request() req: ExRequest): Promise<void> {
    void pageName;
    const w = await wikiRepo(ctxOf(req), req.principal, owner, repo, 'write');
    await deletePage(w, doerOf(req), pageNameOf(req));
    this.setStatus(204);
  }
}
