/**
 * Self sign-up (`GET/POST /user/sign_up`), refused with 403 when [service] DISABLE_REGISTRATION is
 * set and for email domains outside the allowlist. Form fields as Gitea's: user_name, email, password, retype.
 */
import express, { type Router, type Request, type Response, type NextFunction } from 'express';
import { settings } from '../config';
import { systemCtx } from '../db';
import { HttpError, Forbidden, Validation } from '../errors';
import { formBody } from '../middleware/input-guard';
import { createUser } from '../services/user/user.service';

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(message: string, values: Record<string, string> = {}): string {
  const field = (name: string, label: string, type = 'text') =>
    `<p><label>${label} <input name="${name}" type="${type}" value="${type === 'password' ? '' : esc(values[name] ?? '')}" required></label></p>`;
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Register - ${esc(settings().appName)}</title></head>
<body><h1>Register</h1>${message ? `<p class="flash">${esc(message)}</p>` : ''}
<form method="post" action="${settings().server.rootUrl}user/sign_up">
${field('user_name', 'Username')}${field('email', 'Email')}${field('password', 'Password', 'password')}${field('retype', 'Confirm password', 'password')}
<button type="submit">Register</button></form></body></html>`;
}

/** Sign-up routes. */
export function signupRouter(): Router {
  const r = express.Router();
  r.get('/user/sign_up', (_req: Request, res: Response) => {
    if (settings().service.disableRegistration) {
      res.status(403).type('html').send(page('Registration is disabled. Please contact your site administrator.'));
      return;
    }
    res.type('html').send(page(''));
  });
  r.post('/user/sign_up', ...formBody(), (req: Request, res: Response, next: NextFunction) => {
    const body = req.body as Record<string, string | undefined>;
    const run = async () => {
      if (settings().service.disableRegistration) throw new Forbidden('Registration is disabled. Please contact your site administrator.');
      if (body.password !== body.retype) throw new Validation('The passwords do not match.');
      await createUser(systemCtx, { username: body.user_name ?? '', email: body.email ?? '', password: body.password ?? '' }, 'signup');
      res.redirect(303, `${settings().server.rootUrl}user/login`);
    };
    run().catch((err: unknown) => {
      if (err instanceof HttpError) {
        res.status(err.status).type('html').send(page(err.message, body as Record<string, string>));
        return;
      }
      next(err);
    });
  });
  return r;
}
