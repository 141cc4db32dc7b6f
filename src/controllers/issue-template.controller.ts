/**
 * Issue templates and the issue config of a repository's default branch: `GET /issue_templates`,
 * `GET /issue_config` and `GET /issue_config/validate`. They read the code tree, so they need code
 * read access (404 otherwise), as `/languages` does. why: Gitea 1.24 checked only that the
 * repository was visible; later Gitea added the code-read guard as a security fix.
 */
import type { Request as ExRequest } from 'express';
import { Controller, Get, Path, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { IssueConfig, IssueConfigValidation, IssueTemplate } from '../api/issue-template';
import type { ApiErrorBody } from '../errors';
import { ctxOf } from '../middleware/context';
import { codeRepo } from '../services/content/access';
import { listIssueTemplates, loadIssueConfig } from '../services/issue/template';

@Route('repos/{owner}/{repo}')
@Tags('repository')
export class IssueTemplateController extends Controller {
  /**
   * The issue templates of the default branch (JSON null when there are none). Files that do not
   * parse are left out and counted in the X-Gitea-Warning header.
   */
  @Get('issue_templates')
  @Security('public', ['repository'])
  @Response<ApiErrorBody>(404, 'not found')
  public async repoGetIssueTemplates(@Path() owner: string, @Path() repo: string, @Request() req: ExRequest): Promise<IssueTemplate[]> {
    const { templates, errors } = await listIssueTemplates(await codeRepo(ctxOf(req), req.principal, owner, repo));
    const res = req.res!;
    if (errors.size > 0) res.setHeader('X-Gitea-Warning', `error occurs when parsing issue template: count=${errors.size}`);
    // why: Gitea writes a nil list as JSON null; tsoa would answer 204 for a returned null.
    if (!templates) res.status(200).json(null);
    return templates ?? [];
  }

  /** The issue config of the default branch; the default config when there is none or it is invalid. */
  @Get('issue_config')
  @Security('public', ['repository'])
  @Response<ApiErrorBody>(404, 'not found')
  public async repoGetIssueConfig(@Path() owner: string, @Path() repo: string, @Request() req: ExRequest): Promise<IssueConfig> {
    return (await loadIssueConfig(await codeRepo(ctxOf(req), req.principal, owner, repo))).config;
  }

  /** Whether the issue config of the default branch is valid, and if not, why. */
  @Get('issue_config/validate')
  @Security('public', ['repository'])
  @Response<ApiErrorBody>(404, 'not found')
  public async repoValidateIssueConfig(@Path() owner: string, @Path() repo: string, @Request() req: ExRequest): Promise<IssueConfigValidation> {
    const { error } = await loadIssueConfig(await codeRepo(ctxOf(req), req.principal, owner, repo));
    return { valid: error === null, message: error ?? '' };
  }
}
