/**
 * The one mapper from any thrown error to Gitea's error body and status.
 */
import { HttpError, OwnerRenamed, RepoUnavailable, type ApiErrorBody } from './index';

/** A ready-to-send error response. */
export interface ErrorResponse { status: number; headers: Record<string, string>; body: ApiErrorBody; log: boolean }

interface TsoaValidateError { status: number; fields: Record<string, { message: string; value?: unknown }> }
interface BodyParserError { type?: string; status?: number; expose?: boolean; message: string }

/**
 * Map an error to its response. `swaggerUrl` is `<ROOT_URL>api/swagger`; internal details of a
 * 500 are shown only when `showInternals` (site admins), and always logged.
 */
export function mapError(err: unknown, swaggerUrl: string, showInternals: boolean): ErrorResponse {
  const url = swaggerUrl;
  if (err instanceof RepoUnavailable && showInternals) {
    return { status: err.status, headers: err.headers, body: { message: `${err.message} (${err.detail})`, url }, log: true };
  }
  if (err instanceof HttpError) {
    return { status: err.status, headers: err.headers, body: { message: err.message, url, ...err.extra }, log: err.log };
  }
  const e = err as Partial<TsoaValidateError & BodyParserError & { name: string; parent?: { code?: string } }>;
  if (e?.name === 'ValidateError' && e.fields) {
    const errors = Object.entries(e.fields).map(([field, f]) => `${field.replace(/^(body|requestBody)\.?/, '') || 'body'}: ${f.message}`);
    return { status: 422, headers: {}, body: { message: errors.join('; '), url, errors }, log: false };
  }
  if (e?.type === 'entity.parse.failed') {
    return { status: 400, headers: {}, body: { message: `invalid JSON body: ${e.message}`, url }, log: false };
  }
  if (e?.type === 'entity.too.large') return { status: 413, headers: {}, body: { message: 'request body is too large', url }, log: false };
  if (e?.expose && typeof e.status === 'number' && e.status >= 400 && e.status < 500) {
    return { status: e.status, headers: {}, body: { message: e.message ?? 'bad request', url }, log: false };
  }
  if (e?.name === 'SequelizeUniqueConstraintError' || e?.parent?.code === '23505') {
    return { status: 409, headers: {}, body: { message: 'the resource already exists', url }, log: true };
  }
  // why: a value the database cannot hold (a number out of range, bytes it cannot store) is the
  // caller's input that a check upstream missed; the statement failed, so nothing changed. Logged, to add that check.
  const code = e?.parent?.code ?? '';
  if (e?.name === 'SequelizeDatabaseError' && (/^22/.test(code) || code === 'SQLITE_MISMATCH' || code === 'SQLITE_TOOBIG')) {
    return { status: 422, headers: {}, body: { message: 'a value in the request is out of range or not allowed for its field', url }, log: true };
  }
  const message = showInternals && err instanceof Error ? err.message : 'internal server error';
  return { status: 500, headers: {}, body: { message, url }, log: true };
}

/**
 * Where a request that named an account by its old name goes (Gitea's RedirectToUser): the same
 * path and query with the segment that holds the old name replaced by the new one, or null when no
 * such segment holds it (the name came from elsewhere: the answer stays a 404). Names sit where the
 * routes put them: in the API after `repos`, `orgs`, `org` or `users` (`/api/v1/admin/users/{name}`
 * too); on pages first (`/{owner}/...`) or after `org` or `avatar` (`/user/avatar/{name}/{size}`).
 */
export function renamedLocation(err: unknown, originalUrl: string): string | null {
  if (!(err instanceof OwnerRenamed)) return null;
  const q = originalUrl.indexOf('?');
  const [pathPart, query] = q < 0 ? [originalUrl, ''] : [originalUrl.slice(0, q), originalUrl.slice(q)];
  const segments = pathPart.split('/');
  const api = segments[1] === 'api' && segments[2] === 'v1';
  const after = api ? ['repos', 'orgs', 'org', 'users'] : ['org', 'avatar'];
  const old = err.oldName.toLowerCase();
  for (let i = api ? 4 : 1; i < segments.length; i++) {
    if (!(after.includes(segments[i - 1]) || (!api && i === 1))) continue;
    let seg: string;
    try { seg = decodeURIComponent(segments[i]); } catch { return null; }
    if (seg.toLowerCase() !== old) continue;
    segments[i] = encodeURIComponent(err.newName);
    return `${segments.join('/')}${query}`;
  }
  return null;
}
