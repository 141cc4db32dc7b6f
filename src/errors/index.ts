/**
 * Typed HTTP errors. Services throw these; the one mapper in src/app.ts turns them into Gitea's
 * `{"message": ..., "url": "<ROOT_URL>api/swagger"}` body.
 */
export class HttpError extends Error {
  /** Logged with the request id when answered (a fault of the server, not of the caller). */
  log = false;
  constructor(
    public readonly status: number,
    message: string,
    /** Extra headers for the response (Retry-After, WWW-Authenticate...). */
    public readonly headers: Record<string, string> = {},
    /** Extra body fields (Gitea's validation errors carry `errors`). */
    public readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** 400: the request cannot be parsed. */
export class BadRequest extends HttpError {
  constructor(message = 'bad request') { super(400, message); }
}
/** 401: no or wrong credentials. */
export class Unauthorized extends HttpError {
  constructor(message = 'token is required', headers: Record<string, string> = {}) { super(401, message, headers); }
}
/** 403: known caller without the right. */
export class Forbidden extends HttpError {
  constructor(message = 'forbidden') { super(403, message); }
}
/** 404: missing, or hidden from this caller. */
export class NotFound extends HttpError {
  constructor(message = 'The target couldn\'t be found.') { super(404, message); }
}
/**
 * 404 for a path that names an account by an old name: its message is the missing name's, and the
 * API, the pages and git over HTTP answer it with a 307 to the same path under the new name (Gitea's
 * RedirectToUser); anywhere else it is the plain 404.
 */
export class OwnerRenamed extends NotFound {
  constructor(message: string, public readonly oldName: string, public readonly newName: string) {
    super(message);
  }
}
/** 405 */
export class MethodNotAllowed extends HttpError {
  constructor(message = 'method not allowed') { super(405, message); }
}
/** 409: the resource exists or changed meanwhile. */
export class Conflict extends HttpError {
  constructor(message: string) { super(409, message); }
}
/** 413 */
export class TooLarge extends HttpError {
  constructor(message: string) { super(413, message); }
}
/** 422: well-formed request that breaks a rule. */
export class Validation extends HttpError {
  constructor(message: string, errors?: string[]) { super(422, message, {}, errors ? { errors } : {}); }
}
/** 429: too many attempts. */
export class TooManyRequests extends HttpError {
  constructor(message: string, retryAfterSeconds: number) {
    super(429, message, { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) });
  }
}
/** 503: the repository's write lock could not be had in time. */
export class RepoBusy extends HttpError {
  constructor(message = 'repository is busy, try again', retryAfterSeconds = 2) {
    super(503, message, { 'Retry-After': String(retryAfterSeconds) });
  }
}

/**
 * 500: a repository's storage cannot be read (its directory is missing, its objects are damaged).
 * The answer names the repository and what is wrong, never "not found": the data exists but is
 * unreadable. `detail` (paths, git's words) is logged, and shown to site administrators only.
 */
export class RepoUnavailable extends HttpError {
  constructor(public readonly repo: string, public readonly reason: string, public readonly detail: string) {
    super(500, `repository ${repo} cannot be read: ${reason}`);
    this.log = true;
  }
}

/** 503: a shared service the request needs (the lock service, Redis) cannot be reached. */
export class ServiceUnavailable extends HttpError {
  constructor(message: string, retryAfterSeconds = 5) {
    super(503, message, { 'Retry-After': String(retryAfterSeconds) });
  }
}

/** Shape of every API error body. */
export interface ApiErrorBody {
  message: string;
  url: string;
  errors?: string[];
}
