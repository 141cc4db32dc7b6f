/**
 * A browser's HTTP side without a browser: a cookie jar, forms sent with the CSRF token of the
 * page they came from and the forge's own Origin, redirects left to the test.
 */
import type { World } from './world';

/** One answer: status, headers, body text. */
export interface WebResponse { status: number; headers: Headers; text: string; location: string | null }

/** A web client with its own cookies. */
export class WebClient {
  private cookies = new Map<string, string>();
  /** The CSRF token of the last page that had a form. */
  csrf = '';

  constructor(private readonly w: World) {}

  /** A client signed in as `u` with its password. */
  static async signedIn(w: World, u: { name: string; password: string }): Promise<WebClient> {
    const c = new WebClient(w);
    const res = await c.signIn(u.name, u.password);
    if (res.status !== 303) throw new Error(`${u.name} could not sign in: ${res.status}`);
    return c;
  }

  /** The session cookie's value, or undefined. */
  get session(): string | undefined {
    return this.cookies.get('i_like_gitea');
  }

  private absolute(p: string): string {
    return p.startsWith('http') ? p : `${this.w.server.url}${p.replace(/^\//, '')}`;
  }

  private remember(res: Response): void {
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      if (value === '' || /expires=Thu, 01 Jan 1970/i.test(c)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  /** Send a request with the jar's cookies. */
  async request(method: string, p: string, init: { body?: string; headers?: Record<string, string> } = {}): Promise<WebResponse> {
    const headers: Record<string, string> = { ...(init.headers ?? {}) };
    if (this.cookies.size) headers.Cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await fetch(this.absolute(p), { method, headers, body: init.body, redirect: 'manual' });
    this.remember(res);
    const text = await res.text();
    const m = /name="_csrf" value="([^"]+)"/.exec(text);
    if (m) this.csrf = m[1];
    return { status: res.status, headers: res.headers, text, location: res.headers.get('location') };
  }

  /** GET a page. */
  get(p: string): Promise<WebResponse> {
    return this.request('GET', p);
  }

  /**
   * POST a form, with the last page's CSRF token unless `_csrf` is given, from the forge's origin
   * unless `origin` is; `headers` are added (an `X-Forwarded-For` the loopback proxy rule believes).
   */
  form(p: string, fields: Record<string, string>, opts: { origin?: string | null; csrf?: string | null; headers?: Record<string, string> } = {}): Promise<WebResponse> {
    const body = new URLSearchParams(fields);
    const token = opts.csrf === undefined ? this.csrf : opts.csrf;
    if (token !== null && !body.has('_csrf')) body.set('_csrf', token);
    const headers: Record<string, string> = { 'Content-Type': 'application/x-www-form-urlencoded', ...opts.headers };
    const origin = opts.origin === undefined ? new URL(this.w.server.rootUrl).origin : opts.origin;
    if (origin !== null) headers.Origin = origin;
    return this.request('POST', p, { body: body.toString(), headers });
  }

  /** POST a multipart form with one file, the CSRF token first (as a form's hidden field is) unless `csrf` is null. */
  upload(p: string, file: { field: string; name: string; content: Buffer | string }, fields: Record<string, string> = {}, opts: { csrf?: string | null } = {}): Promise<WebResponse> {
    const form = new FormData();
    const token = opts.csrf === undefined ? this.csrf : opts.csrf;
    if (token !== null) form.append('_csrf', token);
    for (const [k, v] of Object.entries(fields)) form.append(k, v);
    form.append(file.field, new Blob([file.content]), file.name);
    const headers: Record<string, string> = { Origin: new URL(this.w.server.rootUrl).origin };
    if (this.cookies.size) headers.Cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    return fetch(this.absolute(p), { method: 'POST', headers, body: form, redirect: 'manual' }).then(async (res) => {
      this.remember(res);
      return { status: res.status, headers: res.headers, text: await res.text(), location: res.headers.get('location') };
    });
  }

  /** POST JSON as the page script does (CSRF header, own origin). */
  json(p: string, body: unknown): Promise<WebResponse> {
    return this.request('POST', p, { body: JSON.stringify(body), headers: { 'Content-Type': 'application/json', 'X-Csrf-Token': this.csrf, Origin: new URL(this.w.server.rootUrl).origin } });
  }

  /** Sign in with a password (and, when asked, a TOTP passcode); the final answer. */
  async signIn(name: string, password: string, passcode?: () => string): Promise<WebResponse> {
    await this.get('user/login');
    let res = await this.form('user/login', { user_name: name, password });
    if (res.status === 303 && res.location?.endsWith('/user/two_factor') && passcode) {
      await this.get('user/two_factor');
      res = await this.form('user/two_factor', { passcode: passcode() });
    }
    return res;
  }
}
