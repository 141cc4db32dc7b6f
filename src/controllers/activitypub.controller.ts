/**
 * Federation ([federation] ENABLED; 404 otherwise): a user's ActivityPub Person, its inbox (which
 * checks the HTTP Signature and answers 202; nothing is done with an activity yet), and nodeinfo.
 */
import type { Request as ExRequest } from 'express';
import { Controller, Get, Path, Post, Produces, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import pkg from '../../package.json';
import type { ActivityPubPerson, NodeInfo } from '../api/federation';
import { GITEA_API_LEVEL } from '../api/misc';
import type { ApiErrorBody } from '../errors';
import { settings } from '../config';
import { ctxOf } from '../middleware/context';
import { toNodeInfo, toPerson } from '../convert/federation';
import { actorUser, personOf } from '../services/federation/person.service';
import { verifyHttpSignature } from '../services/federation/signature.service';
import { nodeUsage } from '../services/federation/discovery.service';

@Route('')
@Tags('activitypub')
export class ActivityPubController extends Controller {
  /**
   * Returns the Person actor for a user
   * @param userId user ID of the user
   */
  @Get('activitypub/user-id/{userId}')
  @Security('public', ['activitypub'])
  @Produces('application/activity+json')
  @Response<ApiErrorBody>(404, 'no such user, one the caller may not see, or federation is off')
  public async activitypubPerson(@Path() userId: number, @Request() req: ExRequest): Promise<ActivityPubPerson> {
    const { user, publicKeyPem } = await personOf(ctxOf(req), req.principal, userId);
    this.setHeader('Content-Type', 'application/activity+json; charset=utf-8');
    return toPerson(user, publicKeyPem, settings().server.rootUrl);
  }

  /**
   * Send to the inbox (an HTTP-signed activity)
   * @param userId user ID of the user
   */
  @Post('activitypub/user-id/{userId}/inbox')
  @Security('public', ['activitypub'])
  @SuccessResponse(202, 'accepted')
  @Response<ApiErrorBody>(400, 'a malformed signature, or a body without a signed Digest')
  @Response<ApiErrorBody>(401, 'no signature, or the signer\'s key cannot be read')
  @Response<ApiErrorBody>(403, 'the signature does not verify')
  @Response<ApiErrorBody>(404, 'no such user, or federation is off')
  public async activitypubPersonInbox(@Path() userId: number, @Request() req: ExRequest): Promise<void> {
    await actorUser(ctxOf(req), req.principal, userId);
    await verifyHttpSignature({
      method: req.method, path: req.originalUrl, headers: req.headers, body: Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0),
    });
    this.setStatus(202);
  }

  /** Returns the nodeinfo of the forge */
  @Get('nodeinfo')
  @Security('public', [])
  @Response<ApiErrorBody>(404, 'federation is off')
  public async getNodeInfo(@Request() req: ExRequest): Promise<NodeInfo> {
    const usage = await nodeUsage(ctxOf(req));
    return toNodeInfo(`${GITEA_API_LEVEL}+forge-${pkg.version}`, !settings().service.disableRegistration, usage);
  }
}
