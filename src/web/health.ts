/**
 * `GET /api/healthz`: Gitea's health check for load balancers, without authentication. 200 while
 * the node can serve (pass, or warn when Redis is away), 424 when it cannot (the database or the
 * data dir fails). Details of a failure are logged and shown only as the component's `output`.
 */
import express, { type Request, type Response, type NextFunction, type Router } from 'express';
import { checkHealth } from '../services/health/health.service';

let lastFailure = '';

/** The health route. */
export function healthRouter(): Router {
  const r = express.Router();
  r.get('/api/healthz', (_req: Request, res: Response, next: NextFunction) => {
    checkHealth().then((h) => {
      // why: a load balancer asks every few seconds; a failure is logged when it starts or changes, not each time.
      const failing = Object.entries(h.checks).filter(([, [c]]) => c.status !== 'pass').map(([k, [c]]) => `${k}: ${c.output}`).join('; ');
      if (failing !== lastFailure) console.error(failing ? `healthz: ${h.status}: ${failing}` : 'healthz: pass again');
      lastFailure = failing;
      res.status(h.status === 'fail' ? 424 : 200);
      res.setHeader('Cache-Control', 'no-store');
      res.type('application/json').send(JSON.stringify(h, null, 2));
    }, next);
  });
  return r;
}
