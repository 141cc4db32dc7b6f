/**
 * Pages from Eta templates (`src/web/views`, escaped by default: `<%= %>` escapes, `<%~ %>` is for
 * HTML the forge made itself, such as sanitized Markdown), with the layout's data, the security
 * headers every page carries, and the HTML error page.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Eta } from 'eta';
import type { NextFunction, Request, Response } from 'express';
import { settings } from '../../config';
import { HttpError } from '../../errors';
import { mapError, renamedLocation } from '../../errors/mapper';
import { csrfToken } from '../../services/auth/session.service';
import { saveIfDirty, updateSession } from './context';
import { avatarUrl } from '../../convert/user';
import type { PageSlots } from './slots';
import { ViewHelpers } from './helpers';
import { countUnread } from '../../services/notification/notification.service';
import { ctxOf } from '../../middleware/context';
import pkg from '../../../package.json';
import { log } from '../../log';

// why: compiled code runs from dist/src/web/pages; the templates stay in the source tree.
const VIEWS = [path.resolve(__dirname, '../views'), path.resolve(__dirname, '../../../../src/web/views')].find((d) => fs.existsSync(path.join(d, 'layout.eta'))) ?? '';

let eta: Eta | null = null;
function engine(): Eta {
  eta ??= new Eta({ views: VIEWS, autoEscape: true, autoTrim: false, cache: settings().runMode === 'prod' });
  return eta;
}

/** What every page's layout reads. */
export interface PageFrame {
  app: string;
  /** The forge's path prefix, ending with `/` (links are written from it). */
  root: string;
  /** The absolute ROOT_URL. */
  rootUrl: string;
  user: { name: string; isAdmin: boolean; avatar: string } | null;
  csrf: string;
  flashes: { kind: string; text: string }[];
  title: string;
  /** The signed-in user's unread notifications. */
  unread: number;
  /** The forge's version, for the footer. */
  version: string;
  /** Milliseconds since the request arrived, for the footer. */
  elapsed(): string;
  /** The nonce of the page's style block. */
  nonce: string;
  /** [packages] ENABLED: the owners' Packages tabs. */
  packages: boolean;
  /** The colour theme: the user's choice among [ui] THEMES, else DEFAULT_THEME. */
  theme: string;
}

/** The theme a page is drawn in for `chosen` (a user's setting, maybe empty or no longer offered). */
export function themeOf(chosen: string | undefined): string {
  const ui = settings().ui;
  return chosen && ui.themes.includes(chosen) ? chosen : ui.defaultTheme;
}

// why: pages load nothing from elsewhere and run only the forge's own script; a document's HTML
// (sanitized already) is held to the same rules, and no other site may frame a page.
// The page's own style block (label colours) carries a nonce; no other inline style applies.
// A page may name more form targets (`res.locals.formActionSources`): the OAuth2 consent page's
// answer redirects to the client, which form-action governs too.
const csp = (nonce: string, formTargets: string[] = []) => `default-src 'self'; img-src 'self' data: https: http:; style-src 'self' 'nonce-${nonce}'; script-src 'self'; object-src 'none'; base-uri 'self'; form-action ${["'self'", ...formTargets].join(' ')}; frame-ancestors 'none'`;

/** Render `view` inside the layout and send it; `slots` places the large HTML the data names by marker. */
export async function renderPage(req: Request, res: Response, view: string, title: string, data: Record<string, unknown> = {}, status = 200, slots?: PageSlots): Promise<void> {
  const session = req.web.session;
  const flashes = session?.data.flash ?? [];
  if (flashes.length) updateSession(req, (d) => { delete d.flash; });
  await saveIfDirty(req);
  const s = settings();
  const user = req.web.principal.user;
  const nonce = crypto.randomBytes(12).toString('base64');
  const page: PageFrame = {
    app: s.appName, root: new URL(s.server.rootUrl).pathname, rootUrl: s.server.rootUrl,
    user: user ? { name: user.name, isAdmin: user.isAdmin, avatar: avatarUrl(user, s.server.rootUrl) } : null, csrf: session ? csrfToken(session) : '', flashes, title,
    unread: user ? await countUnread(ctxOf(req), req.principal, user).catch(() => 0) : 0,
    version: pkg.version, nonce, packages: s.packages.enabled, theme: themeOf(user?.theme),
    elapsed: () => `${Math.max(1, Math.round(performance.now() - req.web.started))} ms`,
  };
  const html = engine().render(view, { ...data, page, h: new ViewHelpers() });
  res.status(status);
  res.setHeader('Content-Security-Policy', csp(nonce, (res.locals.formActionSources as string[] | undefined)?.filter((t) => /^[A-Za-z0-9+.:/[\]-]+$/.test(t))));
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'same-origin');
  res.setHeader('Cache-Control', 'no-store');
  if (slots) {
    res.type('html');
    await slots.send(res, html);
  } else {
    res.type('html').send(html);
  }
}

/** Render a partial template (no layout) to a string, for HTML a page keeps and reuses. */
export function renderFragment(view: string, data: Record<string, unknown>): string {
  return engine().render(view, { h: new ViewHelpers(), ...data });
}

/** The pages' error handler: an HTML page with the status and message (a 500 says no more than that). */
export function pageErrors() {
  return (err: unknown, req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent || !req.web) return next(err);
    // why: as Gitea, a page under an account's old name answers 307 to the same page under the new one.
    const moved = renamedLocation(err, req.originalUrl);
    if (moved) return res.redirect(307, moved);
    const out = mapError(err, `${settings().server.rootUrl}api/swagger`, !!req.web.principal.user?.isAdmin);
    if (out.log) log.error(`[${req.requestId ?? '-'}] ${req.method} ${req.originalUrl}:`, err);
    // why: a 404's text may name what the caller asked for in the API's internal words; the page
    // says it in a sentence, as Gitea's does, and shows a refusal's own words otherwise.
    const message = out.status === 404 ? 'The page you are looking for does not exist, or you are not allowed to see it.'
      : out.status >= 500 && !(err instanceof HttpError) ? 'Something went wrong on the server. The error has been logged; please try again later.'
      : out.body.message;
    const heading = out.status === 404 ? 'Page not found' : out.status === 401 ? 'Sign-in required' : out.status === 403 ? 'Access denied' : out.status >= 500 ? 'Server error' : 'Request refused';
    // why: a refusal that names a page of the forge (where to enrol a second factor) offers it as a link.
    const root = settings().server.rootUrl;
    const at = message.indexOf(root);
    const link = at >= 0 ? /^\S*/.exec(message.slice(at))![0] : null;
    renderPage(req, res, 'error', heading, { status: out.status, heading, message, link }, out.status).catch(next);
  };
}
