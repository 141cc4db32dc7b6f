/**
 * `/.well-known/nodeinfo` and `/.well-known/webfinger` (with [federation] ENABLED; a plain 404
 * otherwise, as Gitea answers): where this server's nodeinfo is, and which actor an
 * `acct:name@host` or `mailto:` resource names. The caller is the signed-in browser, if any.
 */
import express, { type Router } from 'express';
import { settings } from '../../config';
import { HttpError } from '../../errors';
import { ctxOf } from '../../middleware/context';
import { toWebfinger } from '../../convert/federation';
import { webfingerUser } from '../../services/federation/discovery.service';

/** The two routes. */
export function wellKnownPages(): Router {
  const r = express.Router();
  const off = (res: express.Response) => res.status(404).type('text/plain').send('Not Found\n');
  r.get('/.well-known/nodeinfo', (_req, res) => {
    if (!settings().federation.enabled) return off(res);
    res.json({ links: [{ href: `${settings().server.rootUrl}api/v1/nodeinfo`, rel: 'http://nodeinfo.diaspora.software/ns/schema/2.1' }] });
  });
  r.get('/.well-known/webfinger', (req, res, next) => {
    if (!settings().federation.enabled) return off(res);
    const resource = typeof req.query.resource === 'string' ? req.query.resource : '';
    webfingerUser(ctxOf(req), req.principal, resource).then((u) => {
      res.setHeader('Access-Control-Allow-Origin', '*');
      // why: Gitea answers webfinger as application/json, which clients take.
      res.json(toWebfinger(u, settings().server.rootUrl));
    }, (err: unknown) => {
      if (!(err instanceof HttpError) || err.status >= 500) return next(err);
      res.status(err.status).type('text/plain').send(`${err.message || (err.status === 404 ? 'Not Found' : 'Bad Request')}\n`);
    });
  });
  return r;
}
