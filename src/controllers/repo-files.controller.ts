/**
 * More reads and one write of a repository's files: its detected licenses (`/licenses`), the
 * EditorConfig properties of a path (`/editorconfig/{filepath}`), a commit's git note
 * (`/git/notes/{sha}`), many files at once (`GET|POST /file-contents`) and a patch applied as a
 * commit (`POST /diffpatch`). Code read access for the reads, code write for the patch.
 */
import type { Request as ExRequest } from 'express';
import { Body, Controller, Get, Path, Post, Query, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { ApplyDiffPatchFileOptions, ContentsResponse, EditorConfigDefinition, FileResponse, GetFilesOptions } from '../api/contents';
import type { Commit, Note } from '../api/commit';
import type { User } from '../api/user';
import { BadRequest, type ApiErrorBody } from '../errors';
import { settings } from '../config';
import { ctxOf, doerOf, viewerOf } from '../middleware/context';
import { toCommit } from '../convert/commit';
import { toUser } from '../convert/user';
import { codeRepo } from '../services/content/access';
import { contentsOfFiles } from '../services/content/batch-read.service';
import { editorconfigFor } from '../services/content/editorconfig.service';
import { getNote } from '../services/content/notes.service';
import { applyDiffPatch } from '../services/content/patch.service';
import { filesResponse, refOr404 } from '../services/content/read.service';
import { repoUrls } from '../services/content/view';
import type { CommitsResult } from '../services/history/commit.service';
import { repoLicenses } from '../services/license/license.service';

/** Gitea's boolean switches default to true when absent. */
const on = (v: boolean | undefined) => v !== false;

// why: a client following the swagger (UpdateFileOptions: "content must be base64 encoded") sends the patch in base64.
function patchText(content: string): string {
  if (typeof content !== 'string' || !/^[A-Za-z0-9+/=\r\n]+$/.test(content)) return content;
  const text = Buffer.from(content.replace(/[\r\n]/g, ''), 'base64').toString('utf8');
  return /^(diff --git |--- |From [0-9a-f]{40} |Index: )/m.test(text) ? text : content;
}

@Route('repos/{owner}/{repo}')
@Tags('repository')
export class RepoFilesController extends Controller {
  private commits(req: ExRequest, owner: string, repo: string, r: CommitsResult): Commit[] {
    const root = settings().server.rootUrl;
    const viewer = viewerOf(req);
    const users = new Map<string, User>([...r.users].map(([email, u]) => [email, toUser(u, viewer, root)]));
    return r.commits.map((c) => toCommit(c, repoUrls(root, owner, repo), users, r.verifications.get(c.id)));
  }

  private async files(req: ExRequest, owner: string, repo: string, ref: string | undefined, files: unknown): Promise<(ContentsResponse | null)[]> {
    const cr = await codeRepo(ctxOf(req), req.principal, owner, repo);
    const r = await refOr404(cr, ref);
    return contentsOfFiles(cr, r, Array.isArray(files) ? files : []);
  }

  /** The SPDX ids of the licenses found on the default branch. */
  @Get('licenses')
  @Security('public', ['repository'])
  @Response<ApiErrorBody>(404, 'not found')
  public async repoGetLicenses(@Path() owner: string, @Path() repo: string, @Request() req: ExRequest): Promise<string[]> {
    return repoLicenses(ctxOf(req), await codeRepo(ctxOf(req), req.principal, owner, repo));
  }

  /** The EditorConfig definitions that apply to a file, from the `.editorconfig` at the root of `ref`. */
  @Get('editorconfig/{filepath}')
  @Security('public', ['repository'])
  @Response<ApiErrorBody>(404, 'not found')
  public async repoGetEditorConfig(@Path() owner: string, @Path() repo: string, @Path() filepath: string, @Request() req: ExRequest, @Query() ref?: string): Promise<EditorConfigDefinition> {
    return editorconfigFor(await codeRepo(ctxOf(req), req.principal, owner, repo), filepath, ref);
  }

  /** The note of a commit and the notes commit that last changed it. */
  @Get('git/notes/{sha}')
  @Security('public', ['repository'])
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(422, 'invalid sha')
  public async repoGetNote(
    @Path() owner: string, @Path() repo: string, @Path() sha: string, @Request() req: ExRequest, @Query() verification?: boolean, @Query() files?: boolean,
  ): Promise<Note> {
    const ctx = ctxOf(req);
    const cr = await codeRepo(ctx, req.principal, owner, repo);
    const note = await getNote(ctx, cr, sha, { stat: true, files: on(files), verification: on(verification) });
    return { message: note.message, commit: this.commits(req, cr.owner.name, cr.repo.name, note.commit)[0] };
  }

  /** The contents of several files; `body` is the JSON of GetFilesOptions (see the POST form). */
  @Get('file-contents')
  @Security('public', ['repository'])
  @Response<ApiErrorBody>(400, 'body is not JSON')
  @Response<ApiErrorBody>(404, 'not found')
  public async repoGetFileContents(@Path() owner: string, @Path() repo: string, @Request() req: ExRequest, @Query() ref?: string, @Query() body?: string): Promise<(ContentsResponse | null)[]> {
    let opts: GetFilesOptions;
    try {
      opts = JSON.parse(body ?? '') as GetFilesOptions;
    } catch (err) {
      throw new BadRequest((err as Error).message);
    }
    if (!opts || typeof opts !== 'object') throw new BadRequest('invalid options');
    return this.files(req, owner, repo, ref, opts.files);
  }

  /**
   * The contents of several files (a read, though a POST). Files that cannot be read are null;
   * files over the blob size limit have no content; the list ends at the paging and size limits.
   */
  @Post('file-contents')
  @Security('public', ['repository'])
  @SuccessResponse(200, 'ContentsListResponse')
  @Response<ApiErrorBody>(404, 'not found')
  public async repoGetFileContentsPost(@Path() owner: string, @Path() repo: string, @Body() body: GetFilesOptions, @Request() req: ExRequest, @Query() ref?: string): Promise<(ContentsResponse | null)[]> {
    return this.files(req, owner, repo, ref, body?.files);
  }

  /** Apply a unified diff to a branch as one commit (201, as Gitea answers). */
  @Post('diffpatch')
  @Security('signed', ['repository'])
  @SuccessResponse(201, 'FileResponse')
  @Response<ApiErrorBody>(403, 'no write permission')
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(409, 'the branch moved meanwhile')
  @Response<ApiErrorBody>(422, 'invalid or not applicable')
  @Response<ApiErrorBody>(423, 'repo is archived')
  public async repoApplyDiffPatch(@Path() owner: string, @Path() repo: string, @Body() body: ApplyDiffPatchFileOptions, @Request() req: ExRequest): Promise<FileResponse> {
    const ctx = ctxOf(req);
    const cr = await codeRepo(ctx, req.principal, owner, repo, 'write');
    const result = await applyDiffPatch(ctx, cr, doerOf(req), {
      content: patchText(body.content), message: body.message, branch: body.branch, newBranch: body.new_branch,
      author: body.author, committer: body.committer, dates: body.dates, signoff: body.signoff,
    });
    const out = await filesResponse(ctx, cr, result);
    this.setStatus(201);
    return { content: null, commit: out.commit, verification: out.verification };
  }
}
