/**
 * Reading a repository's issues and the rest from a Gitea-compatible API (this forge, Gitea,
 * Forgejo), as migration documents. Every request goes out by the migration network rules
 * (services/net/http-get), with the given token or password, a bounded answer and a time limit;
 * a failed read is tried again ([migrations] MAX_ATTEMPTS, RETRY_BACKOFF seconds apart). Pages
 * are read until one comes back short, empty, or the same as the one before (Gitea's issue
 * comments route ignores paging). The reads of one page's items (reactions, comments) go out a
 * few at a time, so a migration waits on the source's answers, not on the round trips.
 */
import http from 'node:http';
import https from 'node:https';
import { settings } from '../../config';
import { Validation } from '../../errors';
import type { Readable } from 'node:stream';
import { guardedGet, guardedResponse } from '../net/http-get';
import { RemoteAddressError } from '../net/remote-address';
import type {
  AssetDoc, CommentDoc, IssueDoc, LabelDoc, MilestoneDoc, PullRequestDoc, ReactionDoc, ReleaseDoc, RepositoryDoc, ReviewDoc,
} from './document-types';

/* eslint-disable @typescript-eslint/no-explicit-any -- the source's JSON, read field by field into documents */
type Json = any;

/** The most bytes of one API answer. */
const MAX_ANSWER_BYTES = 32 * 1024 * 1024;
const TIMEOUT_MS = 60_000;
/** How many requests to the source are in flight at once. */
const IN_FLIGHT = 8;

/** At most `limit` holders at once; the others wait their turn. */
class Gate {
  private held = 0;
  private readonly waiting: (() => void)[] = [];
  constructor(private readonly limit: number) {}

  async run<R>(fn: () => Promise<R>): Promise<R> {
    if (this.held >= this.limit) await new Promise<void>((r) => this.waiting.push(r));
    else this.held++;
    try {
      return await fn();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.held--;
    }
  }
}

/** `source`'s items with the next one already being read while the caller works on the current one. */
export async function* readAhead<T>(source: AsyncIterable<T>): AsyncGenerator<T> {
  const it = source[Symbol.asyncIterator]();
  let next = it.next();
  for (;;) {
    const cur = await next;
    if (cur.done) return;
    next = it.next();
    // why: if the caller stops early, the read ahead may fail unobserved; it must not end the process.
    next.catch(() => undefined);
    yield cur.value;
  }
}

/** Where a repository's API is, from its clone address: scheme, host and any path prefix; owner and name. */
export function giteaApiOf(cloneAddr: string): { base: string; owner: string; repo: string } {
  const u = new URL(cloneAddr);
  const parts = u.pathname.replace(/\/+$/, '').replace(/\.git$/, '').split('/').filter(Boolean);
  if (parts.length < 2) throw new Validation(`invalid path: ${u.pathname}`);
  const repo = parts.pop()!;
  const owner = parts.pop()!;
  return { base: `${u.protocol}//${u.host}${parts.length ? `/${parts.join('/')}` : ''}/api/v1`, owner, repo };
}

const user = (u: Json) => ({ id: Number(u?.id ?? 0), name: String(u?.login ?? u?.username ?? ''), email: String(u?.email ?? '') });
const reactionsOf = (list: Json[]): ReactionDoc[] => list.map((r) => ({ user_id: user(r.user).id, user_name: user(r.user).name, content: String(r.content) }));
const labelOf = (l: Json): LabelDoc => ({ name: String(l.name), color: String(l.color ?? ''), description: String(l.description ?? ''), exclusive: !!l.exclusive, archived: !!l.is_archived });

/** A source forge's repository, read through its API. */
export class GiteaSource {
  private readonly base: string;
  private readonly path: string;
  private readonly headers: Record<string, string>;
  private pageSize = 50;
  private readonly gate = new Gate(IN_FLIGHT);
  /** Connections kept open between reads (one per request in flight). */
  private readonly agent: http.Agent;

  constructor(cloneAddr: string, auth: { username?: string; password?: string; token?: string }) {
    const { base, owner, repo } = giteaApiOf(cloneAddr);
    this.agent = new (base.startsWith('https:') ? https.Agent : http.Agent)({ keepAlive: true, maxSockets: IN_FLIGHT });
    this.base = base;
    this.path = `/repos/${encodeURIComponent(owner)}/${encodeURIComponent(repo)}`;
    this.headers = { Accept: 'application/json' };
    if (auth.token) this.headers.Authorization = `token ${auth.token}`;
    else if (auth.username || auth.password) this.headers.Authorization = `Basic ${Buffer.from(`${auth.username ?? ''}:${auth.password ?? ''}`).toString('base64')}`;
  }

  /** GET an API path, tried again after a network failure or a 5xx; 404 and other answers are final. */
  private async get(apiPath: string): Promise<Json> {
    const m = settings().migrations;
    for (let attempt = 1; ; attempt++) {
      try {
        const doc = await this.gate.run(() => guardedGet(`${this.base}${apiPath}`, { headers: this.headers, maxBytes: MAX_ANSWER_BYTES, timeoutMs: TIMEOUT_MS, agent: this.agent }));
        if (doc.status === 200) return JSON.parse(doc.body.toString('utf8'));
        if (doc.status === 401 || doc.status === 403) throw new Validation(`Authentication failed: the source answered ${doc.status} for ${apiPath}.`);
        if (doc.status < 500 || attempt >= m.maxAttempts) throw new Validation(`Migration failed: the source answered ${doc.status} for ${apiPath}.`);
      } catch (err) {
        if (err instanceof Validation || err instanceof RemoteAddressError || attempt >= m.maxAttempts) throw err;
      }
      await new Promise((r) => setTimeout(r, m.retryBackoff * 1000));
    }
  }

  /** Every item of a paged list, page by page. */
  private async *pages(apiPath: string, query = ''): AsyncGenerator<Json[]> {
    let previous = '';
    for (let page = 1; ; page++) {
      const list = (await this.get(`${apiPath}?${query ? `${query}&` : ''}page=${page}&limit=${this.pageSize}`)) as Json[];
      if (!Array.isArray(list) || list.length === 0) return;
      const key = JSON.stringify([list[0]?.id, list.length]);
      // why: a route that ignores paging answers the same page forever.
      if (key === previous) return;
      previous = key;
      yield list;
      if (list.length < this.pageSize) return;
    }
  }

  /** Close the connections kept open (the migration is over). */
  close(): void {
    this.agent.destroy();
  }

  /** The repository, and the page size the source allows. */
  async repository(): Promise<RepositoryDoc> {
    const api = await this.get('/settings/api').catch(() => null);
    if (api?.max_response_items) this.pageSize = Math.max(1, Math.min(50, Number(api.max_response_items)));
    const r = await this.get(this.path);
    const topics = await this.get(`${this.path}/topics`).then((t: Json) => (t.topics ?? []) as string[], () => []);
    return {
      name: String(r.name), owner: String(r.owner?.login ?? ''), description: String(r.description ?? ''), website: String(r.website ?? ''),
      is_private: !!r.private, is_mirror: !!r.mirror, default_branch: String(r.default_branch || 'main'), original_url: String(r.html_url ?? ''), topics,
    };
  }

  /** Every milestone. */
  async *milestones(): AsyncGenerator<MilestoneDoc[]> {
    for await (const list of this.pages(`${this.path}/milestones`, 'state=all')) {
      yield list.map((m) => ({
        title: String(m.title), description: String(m.description ?? ''), deadline: m.due_on ?? null, created: String(m.created_at),
        updated: m.updated_at ?? null, closed: m.closed_at ?? null, state: m.state === 'closed' ? 'closed' as const : 'open' as const,
      }));
    }
  }

  /** Every label. */
  async *labels(): AsyncGenerator<LabelDoc[]> {
    for await (const list of this.pages(`${this.path}/labels`)) yield list.map(labelOf);
  }

  /** The reactions of an issue (`issues/N`) or a comment (`issues/comments/N`); none when the source does not answer. */
  private async reactions(of: string): Promise<ReactionDoc[]> {
    return reactionsOf((await this.get(`${this.path}/${of}/reactions`).catch(() => null)) ?? []);
  }

  /** Every issue (not pull requests), with its reactions. */
  async *issues(): AsyncGenerator<IssueDoc[]> {
    for await (const list of this.pages(`${this.path}/issues`, 'state=all&type=issues')) {
      yield await Promise.all(list.map(async (i): Promise<IssueDoc> => {
        const poster = user(i.user);
        return {
          number: Number(i.number), poster_id: poster.id, poster_name: poster.name, poster_email: poster.email, title: String(i.title), content: String(i.body ?? ''),
          ref: String(i.ref ?? ''), milestone: i.milestone?.title ?? '', state: i.state === 'closed' ? 'closed' : 'open', is_locked: !!i.is_locked,
          created: String(i.created_at), updated: String(i.updated_at), closed: i.closed_at ?? null, labels: (i.labels ?? []).map(labelOf),
          reactions: await this.reactions(`issues/${i.number}`), assignees: (i.assignees ?? []).map((a: Json) => user(a).name),
        };
      }));
    }
  }

  /** The comments of issue or pull request `number`, with their reactions. */
  async comments(number: number): Promise<CommentDoc[]> {
    const out: CommentDoc[] = [];
    for await (const list of this.pages(`${this.path}/issues/${number}/comments`)) {
      out.push(...await Promise.all(list.map(async (c): Promise<CommentDoc> => {
        const poster = user(c.user);
        return {
          issue_index: number, comment_type: 'comment', poster_id: poster.id, poster_name: poster.name, poster_email: poster.email,
          content: String(c.body ?? ''), created: String(c.created_at), updated: String(c.updated_at), reactions: await this.reactions(`issues/comments/${c.id}`),
        };
      })));
    }
    return out.map((c, i) => ({ ...c, index: i + 1 }));
  }

  /** The comments of several issues or pull requests, in their order. */
  async commentsOf(numbers: number[]): Promise<CommentDoc[]> {
    return (await Promise.all(numbers.map((n) => this.comments(n)))).flat();
  }

  /** Every pull request; a head or patch address off the source's host is dropped (Gitea's CheckAndEnsureSafePR). */
  async *pullRequests(): AsyncGenerator<PullRequestDoc[]> {
    const origin = new URL(this.base).origin;
    const sameHost = (u: unknown) => (typeof u === 'string' && u.startsWith(`${origin}/`) ? u : '');
    for await (const list of this.pages(`${this.path}/pulls`, 'state=all')) {
      yield await Promise.all(list.map(async (p): Promise<PullRequestDoc> => {
        const poster = user(p.user);
        return {
          number: Number(p.number), title: String(p.title), poster_id: poster.id, poster_name: poster.name, poster_email: poster.email, content: String(p.body ?? ''),
          milestone: p.milestone?.title ?? '', state: p.state === 'closed' ? 'closed' : 'open', created: String(p.created_at),
          updated: String(p.updated_at), closed: p.closed_at ?? null, labels: (p.labels ?? []).map(labelOf), patch_url: sameHost(p.patch_url),
          merged: !!p.merged, merged_time: p.merged_at ?? null, merge_commit_sha: String(p.merge_commit_sha ?? ''),
          head: { clone_url: sameHost(p.head?.repo?.clone_url), ref: String(p.head?.ref ?? ''), sha: String(p.head?.sha ?? ''), repo_name: String(p.head?.repo?.name ?? ''), owner_name: String(p.head?.repo?.owner?.login ?? '') },
          base: { clone_url: sameHost(p.base?.repo?.clone_url), ref: String(p.base?.ref ?? ''), sha: String(p.base?.sha ?? ''), repo_name: String(p.base?.repo?.name ?? ''), owner_name: String(p.base?.repo?.owner?.login ?? '') },
          assignees: (p.assignees ?? []).map((a: Json) => user(a).name), is_locked: !!p.is_locked, is_draft: !!p.draft,
          reactions: await this.reactions(`issues/${p.number}`),
        };
      }));
    }
  }

  /** The reviews of pull request `number`, each with its line comments; reviews without a reviewer (teams) are left out. */
  async reviews(number: number): Promise<ReviewDoc[]> {
    const out: ReviewDoc[] = [];
    for await (const list of this.pages(`${this.path}/pulls/${number}/reviews`)) {
      for (const r of list) {
        if (!r.user) continue;
        const reviewer = user(r.user);
        const comments = (await this.get(`${this.path}/pulls/${number}/reviews/${r.id}/comments`).catch(() => [])) as Json[];
        out.push({
          id: Number(r.id), issue_index: number, reviewer_id: reviewer.id, reviewer_name: reviewer.name, reviewer_email: reviewer.email, official: !!r.official, commit_id: String(r.commit_id ?? ''),
          content: String(r.body ?? ''), created_at: String(r.submitted_at ?? r.updated_at), state: ['APPROVED', 'CHANGES_REQUESTED', 'COMMENTED', 'REQUEST_REVIEW'].includes(r.state) ? r.state : 'COMMENTED',
          comments: comments.map((c) => ({
            id: Number(c.id), content: String(c.body ?? ''), tree_path: String(c.path ?? ''), diff_hunk: String(c.diff_hunk ?? ''), position: Number(c.position ?? 0),
            line: c.position ? Number(c.position) : -Number(c.original_position ?? 0), commit_id: String(c.commit_id ?? ''), poster_id: user(c.user).id,
            poster_name: user(c.user).name, poster_email: user(c.user).email, created_at: String(c.created_at), updated_at: String(c.updated_at ?? c.created_at),
          })),
        });
      }
    }
    return out;
  }

  /** The reviews of several pull requests, in their order. */
  async reviewsOf(numbers: number[]): Promise<ReviewDoc[]> {
    return (await Promise.all(numbers.map((n) => this.reviews(n)))).flat();
  }

  /** The bytes of a release asset on the source's host, streamed (null when the source does not give them). */
  async asset(a: AssetDoc): Promise<Readable | null> {
    if (!a.download_url) return null;
    const res = await guardedResponse(a.download_url, {
      headers: this.headers, maxBytes: settings().attachment.maxSize * 1024 * 1024, timeoutMs: settings().gitTimeout.migrate * 1000,
    });
    if (res.status !== 200) {
      res.body.resume();
      return null;
    }
    return res.body;
  }

  /** Every release with its assets' addresses (kept only on the source's host). */
  async *releases(): AsyncGenerator<ReleaseDoc[]> {
    const origin = new URL(this.base).origin;
    for await (const list of this.pages(`${this.path}/releases`)) {
      yield list.map((r) => ({
        tag_name: String(r.tag_name), target_commitish: String(r.target_commitish ?? ''), name: String(r.name ?? ''), body: String(r.body ?? ''), draft: !!r.draft,
        prerelease: !!r.prerelease, publisher_id: user(r.author).id, publisher_name: user(r.author).name, publisher_email: user(r.author).email,
        created: String(r.created_at), published: r.published_at ?? null,
        assets: (r.assets ?? []).filter((a: Json) => String(a.browser_download_url ?? '').startsWith(`${origin}/`)).map((a: Json) => ({
          id: Number(a.id), name: String(a.name), size: Number(a.size ?? 0), download_count: Number(a.download_count ?? 0), created: String(a.created_at), download_url: String(a.browser_download_url),
        })),
      }));
    }
  }
}
