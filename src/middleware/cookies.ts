/** The browser session's cookie: its name (Gitea's) and reading one cookie from a request. */
import type { Request } from 'express';

/** The session cookie's name, as Gitea names it. */
export const SESSION_COOKIE = 'i_like_gitea';

/** The value of cookie `name`, or null. */
export function cookieValue(req: Request, name: string): string | null {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      try { return decodeURIComponent(part.slice(eq + 1).trim()); } catch { return null; }
    }
  }
  return null;
}
