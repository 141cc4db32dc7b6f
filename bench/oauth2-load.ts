/**
 * The OAuth2 part of bench/api: 64 confidential applications of one user, each authorized once
 * through the consent form (as a browser would: session, CSRF token), then the token endpoint under
 * 64 concurrent clients, exchanging codes issued beforehand (a code is good once) and refreshing
 * (each client follows its own chain: a refresh token is good once too). The first access token
 * issued is what the API rows compare with a personal access token.
 */
import http from 'node:http';
import { World } from '../test/helpers/world';
import { WebClient } from '../test/helpers/web';
import type { TestServer } from '../test/helpers/server';
import type { PacedResult } from './http';

const REDIRECT = 'http://127.0.0.1:9/callback';
const CLIENTS = 64;

/** One registered application with its credentials. */
interface App { client_id: string; client_secret: string }

/** A POST of a form to the token endpoint on a kept-alive connection: status, body, milliseconds. */
function post(agent: http.Agent, url: string, form: Record<string, string>): Promise<{ status: number; body: Record<string, string>; ms: number }> {
  const body = new URLSearchParams(form).toString();
  const t0 = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', agent, headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Length': Buffer.byteLength(body) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.once('end', () => {
        let parsed: Record<string, string> = {};
        try { parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, string>; } catch { /* not JSON */ }
        resolve({ status: res.statusCode ?? 0, body: parsed, ms: Number(process.hrtime.bigint() - t0) / 1e6 });
      });
    });
    req.once('error', reject);
    req.end(body);
  });
}

function summary(latencies: number[], errors: number, seconds: number): PacedResult {
  latencies.sort((a, b) => a - b);
  const at = (q: number) => Math.round((latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN) * 10) / 10;
  return { rps: latencies.length / seconds, p50: at(0.5), p99: at(0.99), errors };
}

/** The provider under load, on a started server whose user `name` has an `all` token. */
export class OAuth2Load {
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS });
  private apps: App[] = [];
  private web!: WebClient;
  /** An access token of a live grant (from `setup`). */
  accessToken = '';

  constructor(private readonly s: TestServer, private readonly user: { name: string; password: string }, private readonly token: string) {}

  private get tokenUrl(): string { return `${this.s.url}login/oauth/access_token`; }

  /** Register the applications and authorize each once through the consent form. */
  async setup(): Promise<void> {
    for (let i = 0; i < CLIENTS; i++) {
      const res = await fetch(`${this.s.api}/user/applications/oauth2`, {
        method: 'POST', headers: { Authorization: `token ${this.token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: `bench-${i}`, redirect_uris: [REDIRECT], confidential_client: true }),
      });
      if (res.status !== 201) throw new Error(`creating an application: ${res.status} ${await res.text()}`);
      this.apps.push(await res.json() as App);
    }
    this.web = await WebClient.signedIn(new World(this.s), this.user);
    for (const app of this.apps) {
      const r = await this.exchange(app, await this.code(app));
      if (r.status !== 200) throw new Error(`exchange: ${r.status} ${JSON.stringify(r.body)}`);
      this.accessToken ||= r.body.access_token;
    }
  }

  /** A code for `app` (through the consent form the first time; an application the user granted is not asked again). */
  private async code(app: App): Promise<string> {
    const q = new URLSearchParams({ client_id: app.client_id, redirect_uri: REDIRECT, response_type: 'code', scope: 'openid', state: 's' });
    let r = await this.web.get(`login/oauth/authorize?${q}`);
    if (r.status === 200) r = await this.web.form('login/oauth/grant', { client_id: app.client_id, state: 's', scope: 'openid', nonce: '', redirect_uri: REDIRECT, granted: 'true' });
    const code = r.location ? new URL(r.location).searchParams.get('code') : null;
    if (!code) throw new Error(`no code: ${r.status} ${r.location}`);
    return code;
  }

  private exchange(app: App, code: string) {
    return post(this.agent, this.tokenUrl, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, client_id: app.client_id, client_secret: app.client_secret });
  }

  /** Exchange `total` codes issued beforehand, from 64 clients at once. */
  async codeExchanges(total: number): Promise<PacedResult> {
    const codes: [App, string][] = [];
    for (let i = 0; i < total; i += 16) {
      const batch = this.apps.slice(0, Math.min(16, total - i)).map((_, k) => this.apps[(i + k) % CLIENTS]);
      codes.push(...await Promise.all(batch.map(async (app) => [app, await this.code(app)] as [App, string])));
    }
    const latencies: number[] = [];
    let errors = 0;
    const t0 = Date.now();
    await Promise.all(Array.from({ length: CLIENTS }, async () => {
      for (let next = codes.pop(); next; next = codes.pop()) {
        const r = await this.exchange(next[0], next[1]);
        if (r.status === 200) latencies.push(r.ms);
        else errors++;
      }
    }));
    return summary(latencies, errors, (Date.now() - t0) / 1000);
  }

  /** Each of 64 clients refreshes its own chain for `seconds`, each refresh token used once. */
  async refreshes(seconds: number): Promise<PacedResult> {
    // why: the code exchanges moved every grant's counter on; each chain starts from a fresh exchange.
    const chains = await Promise.all(this.apps.map(async (app) => {
      const r = await this.exchange(app, await this.code(app));
      if (r.status !== 200) throw new Error(`exchange: ${r.status} ${JSON.stringify(r.body)}`);
      return { app, refresh: r.body.refresh_token };
    }));
    const latencies: number[] = [];
    let errors = 0;
    const t0 = Date.now();
    const end = t0 + seconds * 1000;
    await Promise.all(chains.map(async (c) => {
      while (Date.now() < end) {
        const r = await post(this.agent, this.tokenUrl, { grant_type: 'refresh_token', refresh_token: c.refresh, client_id: c.app.client_id, client_secret: c.app.client_secret });
        if (r.status !== 200) { errors++; break; }
        latencies.push(r.ms);
        c.refresh = r.body.refresh_token;
      }
    }));
    return summary(latencies, errors, (Date.now() - t0) / 1000);
  }

  /** Close the kept-alive connections. */
  close(): void {
    this.agent.destroy();
  }
}
