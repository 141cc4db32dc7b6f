/**
 * The instance's signing key: `/signing-key.gpg` and `/repos/{owner}/{repo}/signing-key.gpg` (the
 * same key, for readers of the repository), as text/plain.
 */
import type { Request as ExRequest } from 'express';
import { Controller, Get, Path, Produces, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { ApiErrorBody } from '../errors';
import { ctxOf } from '../middleware/context';
import { repoAssignment } from '../services/repo/context';
import { instanceSigningKey } from '../services/keys/signing-key.service';

// why: Gitea answers text/plain; tsoa would JSON-encode a returned string.
function sendText(req: ExRequest, text: string): string {
  req.res!.status(200).type('text/plain').send(text);
  return text;
}

@Route('')
export class SigningKeyController extends Controller {
  /** Get the default signing key (armored; empty when the server signs nothing). */
  @Get('signing-key.gpg')
  @Tags('miscellaneous')
  @Security('public', ['misc'])
  @Produces('text/plain')
  @Response<string>(200, 'GPG armored public key')
  @Response<ApiErrorBody>(404, 'the server signs with an SSH key')
  public async getSigningKey(@Request() req: ExRequest): Promise<string> {
    return sendText(req, await instanceSigningKey());
  }

  /** Get the signing key for a repository (the instance's; readers of the repository). */
  @Get('repos/{owner}/{repo}/signing-key.gpg')
  @Tags('repository')
  @Security('public', ['repository'])
  @Produces('text/plain')
  @Response<string>(200, 'GPG armored public key')
  @Response<ApiErrorBody>(404, 'not found')
  public async repoSigningKey(@Path() owner: string, @Path() repo: string, @Request() req: ExRequest): Promise<string> {
    await repoAssignment(ctxOf(req), req.principal, owner, repo);
    return sendText(req, await instanceSigningKey());
  }
}
