/**
 * Repository contents: `GET /contents[/{filepath}]`, `GET /contents-ext/{filepath}`, and the file
 * changes `POST /contents` (several files in one commit), `POST|PUT|DELETE /contents/{filepath}`.
 * All changes go through the one change service. `{filepath}` may hold slashes (see
 * middleware/greedy-params.ts).
 */
import type { Request as ExRequest } from 'express';
import { Body, Controller, Delete, Get, Path, Post, Put, Query, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type {
  ChangeFilesOptions, ContentsExtResponse, ContentsResponse, CreateFileOptions, DeleteFileOptions, FileOptions, FileResponse, FilesResponse, UpdateFileOptions,
} from '../api/contents';
import { BadRequest, Validation, type ApiErrorBody } from '../errors';
import { ctxOf, doerOf } from '../middleware/context';
import { codeRepo } from '../services/content/access';
import { changeFiles, type ChangeOp, type ChangeRequest } from '../services/content/change.service';
import { decodeBase64 } from '../services/content/paths';
import { filesResponse, getContentsOrList, refOr404, type ContentsOptions } from '../services/content/read.service';

const INCLUDES: Record<string, keyof ContentsOptions | 'message'> = { file_content: 'content', lfs_metadata: 'lfs', commit_metadata: 'commit', commit_message: 'message' };

function request(body: FileOptions, files: ChangeOp[]): ChangeRequest {
  return {
    message: body.message, branch: body.branch, newBranch: body.new_branch, author: body.author, committer: body.committer,
    dates: body.dates, signoff: body.signoff, files,
  };
}

function requireSha(sha: string | undefined): string {
  if (!sha) throw new Validation('[SHA]: Required');
  return sha;
}

@Route('repos/{owner}/{repo}')
@Tags('repository')
export class ContentsController extends Controller {
  private async read(req: ExRequest, owner: string, repo: string, filepath: string | undefined, ref?: string): Promise<ContentsResponse | ContentsResponse[]> {
    const cr = await codeRepo(ctxOf(req), req.principal, owner, repo);
    const r = await refOr404(cr, ref);
    const out = await getContentsOrList(cr, filepath, r, { content: true, lfs: false, commit: true });
    return out.file ?? out.dir ?? [];
  }

  /** why: permission and archive checks come before the body's content is looked at, as in Gitea's middleware order. */
  private async change(req: ExRequest, owner: string, repo: string, build: () => ChangeRequest): Promise<FilesResponse> {
    const repoCtx = await codeRepo(ctxOf(req), req.principal, owner, repo, 'write');
    const result = await changeFiles(ctxOf(req), repoCtx, doerOf(req), build());
    return filesResponse(ctxOf(req), repoCtx, result);
  }

  private single(f: FilesResponse): FileResponse {
    return { content: f.files[0] ?? null, commit: f.commit, verification: f.verification };
  }

  /** List the entries of the root directory. */
  @Get('contents')
  @Security('public', ['repository'])
  @Response<ApiErrorBody>(404, 'not found')
  public async repoGetContentsList(@Path() owner: string, @Path() repo: string, @Request() req: ExRequest, @Query() ref?: string): Promise<ContentsResponse[]> {
    return (await this.read(req, owner, repo, '', ref)) as ContentsResponse[];
  }

  /** A file's metadata and content, or a directory's entries. */
  @Get('contents/{filepath}')
  @Security('public', ['repository'])
  @Response<ApiErrorBody>(404, 'not found')
  public async repoGetContents(@Path() owner: string, @Path() repo: string, @Path() filepath: string, @Request() req: ExRequest, @Query() ref?: string): Promise<ContentsResponse | ContentsResponse[]> {
    return this.read(req, owner, repo, filepath, ref);
  }

  /** The root directory through contents-ext. */
  @Get('contents-ext')
  @Security('public', ['repository'])
  @Response<ApiErrorBody>(404, 'not found')
  public async repoGetContentsExtRoot(@Path() owner: string, @Path() repo: string, @Request() req: ExRequest, @Query() ref?: string, @Query() includes?: string): Promise<ContentsExtResponse> {
    return this.repoGetContentsExt(owner, repo, '', req, ref, includes);
  }

  /** File metadata (and on request content, LFS metadata, last commit) or a directory listing. */
  @Get('contents-ext/{filepath}')
  @Security('public', ['repository'])
  @Response<ApiErrorBody>(400, 'unknown include option')
  @Response<ApiErrorBody>(404, 'not found')
  public async repoGetContentsExt(@Path() owner: string, @Path() repo: string, @Path() filepath: string, @Request() req: ExRequest, @Query() ref?: string, @Query() includes?: string): Promise<ContentsExtResponse> {
    const opts: ContentsOptions = { content: false, lfs: false, commit: false };
    for (const inc of (includes ?? '').split(',')) {
      if (!inc) continue;
      const k = INCLUDES[inc];
      if (!k) throw new BadRequest(`unknown include option "${inc}"`);
      if (k === 'message') opts.commit = true;
      else opts[k] = true;
    }
    const cr = await codeRepo(ctxOf(req), req.principal, owner, repo);
    const r = await refOr404(cr, ref);
    const out = await getContentsOrList(cr, filepath === '.' || filepath === '/' ? '' : filepath, r, opts);
    return out.file ? { file_contents: out.file } : { dir_contents: out.dir ?? [] };
  }

  /** Create, update, rename or delete several files in one commit. */
  @Post('contents')
  @Security('signed', ['repository'])
  @SuccessResponse(201, 'FilesResponse')
  @Response<ApiErrorBody>(403, 'no write permission')
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(409, 'sha does not match')
  @Response<ApiErrorBody>(413, 'file too large')
  @Response<ApiErrorBody>(422, 'invalid')
  @Response<ApiErrorBody>(423, 'repo is archived')
  public async repoChangeFiles(@Path() owner: string, @Path() repo: string, @Body() body: ChangeFilesOptions, @Request() req: ExRequest): Promise<FilesResponse> {
    const out = await this.change(req, owner, repo, () => request(body, (body.files ?? []).map((f) => ({
      operation: f.operation, path: f.path, fromPath: f.from_path || undefined, sha: f.sha || undefined,
      content: f.content === undefined || (f.operation === 'rename' && f.content === '') ? null : decodeBase64(f.content),
    }))));
    this.setStatus(201);
    return out;
  }

  /** Create a file. */
  @Post('contents/{filepath}')
  @Security('signed', ['repository'])
  @SuccessResponse(201, 'FileResponse')
  @Response<ApiErrorBody>(403, 'no write permission')
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(413, 'file too large')
  @Response<ApiErrorBody>(422, 'invalid')
  @Response<ApiErrorBody>(423, 'repo is archived')
  public async repoCreateFile(@Path() owner: string, @Path() repo: string, @Path() filepath: string, @Body() body: CreateFileOptions, @Request() req: ExRequest): Promise<FileResponse> {
    const out = await this.change(req, owner, repo, () => request(body, [{ operation: 'create', path: filepath, content: decodeBase64(body.content) }]));
    this.setStatus(201);
    return this.single(out);
  }

  /** Update (and optionally move) a file. */
  @Put('contents/{filepath}')
  @Security('signed', ['repository'])
  @Response<ApiErrorBody>(403, 'no write permission')
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(409, 'sha does not match')
  @Response<ApiErrorBody>(413, 'file too large')
  @Response<ApiErrorBody>(422, 'invalid')
  @Response<ApiErrorBody>(423, 'repo is archived')
  public async repoUpdateFile(@Path() owner: string, @Path() repo: string, @Path() filepath: string, @Body() body: UpdateFileOptions, @Request() req: ExRequest): Promise<FileResponse> {
    return this.single(await this.change(req, owner, repo, () => request(body, [{
      operation: 'update', path: filepath, fromPath: body.from_path || undefined, sha: requireSha(body.sha), content: decodeBase64(body.content),
    }])));
  }

  /** Delete a file (200 with the commit, as Gitea). */
  @Delete('contents/{filepath}')
  @Security('signed', ['repository'])
  @Response<ApiErrorBody>(403, 'no write permission')
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(409, 'sha does not match')
  @Response<ApiErrorBody>(422, 'invalid')
  @Response<ApiErrorBody>(423, 'repo is archived')
  public async repoDeleteFile(@Path() owner: string, @Path() repo: string, @Path() filepath: string, @Body() body: DeleteFileOptions, @Request() req: ExRequest): Promise<FileResponse> {
    const out = await this.change(req, owner, repo, () => request(body, [{ operation: 'delete', path: filepath, sha: requireSha(body.sha) }]));
    return { content: null, commit: out.commit, verification: out.verification };
  }
}
