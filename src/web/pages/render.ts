/**
 * Pages from Eta templates (`src/web/views`, escaped by default: `<%= %>` escapes, `<%~ %>` is for
 * HTML the forge made itself, such as sanitized Markdown), with the layout's data, the security
 * headers every page carries, and the HTML error page.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Eta } from 'eta';
import type { NextFunction, Request, Response } from 'express';
import { settings } from '../../config';
import { HttpError } from '../../errors';
import { mapError } from '../../errors/mapper';
import { csrfToken } from '../../services/auth/session.service';
import { saveIfDirty, updateSession } from './context';
import type { PageSlots } from './slots';

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
  user: { name: string; isAdmin: boolean } | null;
  csrf: string;
  flashes: { kind: string; text: string }[];
  title: string;
}

// why: pages load nothing from elsewhere and run only the forge's own script; a document's HTML
// (sanitized already) is held to the same rules, and no other site may frame a page.
const CSP = "default-src 'self'; img-src 'self' data: https: http:; style-src 'self'; script-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'";

/** Render `view` inside the layout and send it; `slots` places the large HTML the data names by marker. */
export async function renderPage(req: Request, res: Response, view: string, title: string, data: Record<string, unknown> = {}, status = 200, slots?: PageSlots): Promise<void> {
  const session = req.web.session;
  const flashes = session?.data.flash ?? [];
  if (flashes.length) updateSession(req, (d) => { delete d.flash; });
  await saveIfDirty(req);
  const s = settings();
  const user = req.web.principal.user;
  const page: PageFrame = {
    app: s.appName, root: new URL(s.server.rootUrl).pathname, rootUrl: s.server.rootUrl,
    user: user ? { name: user.name, isAdmin: user.isAdmin } : null, csrf: session ? csrfToken(session) : '', flashes, title,
  };
  const html = engine().render(view, { ...data, page });
  res.status(status);
  res.setHeader('Content-Security-Policy', CSP);
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
  return engine().render(view, data);
}

/** The pages' error handler: an HTML page with the status and message (a 500 says no more than that). */
export function pageErrors() {
  return (err: unknown, req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent || !req.web) return next(err);
    const out = mapError(err, `${settings().server.rootUrl}api/swagger`, !!req.web.principal.user?.isAdmin);
    if (out.log) console.error(`[${req.requestId ?? '-'}] ${req.method} ${req.originalUrl}:`, err);
    const message = err instanceof HttpError || out.status < 500 ? out.body.message : 'An internal error occurred.';
    // why: a refusal that names a page of the forge (where to enrol a second factor) offers it as a link.
    const root = settings().server.rootUrl;
    const at = message.indexOf(root);
    const link = at >= 0 ? /^\S*/.exec(message.slice(at))![0] : null;
    renderPage(req, res, 'error', `${out.status}`, { status: out.status, message, link }, out.status).catch(next);
  };
}
