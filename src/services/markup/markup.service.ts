/**
 * Rendering user documents for the API (`/markup`, `/markdown`, `/markdown/raw`) and the pages:
 * where the document's links point (its `Context`), which `@mentions` and commit ids are real, and
 * whether it renders here or in the worker pool.
 */
import path from 'node:path/posix';
import type { DbContext } from '../../db';
import { settings } from '../../config';
import { NotFound, Validation } from '../../errors';
import { peekObjects } from '../../git/objects';
import { repoPath } from '../../git/paths';
import { fileRenderer, referenceCandidates, render, RENDER_MODES, type LinkBase, type RenderInput, type RenderMode } from '../../markup';
import { AccessMode, UnitType } from '../../models/perm';
import { visibleNamesAmong } from '../../models/user.model';
import { runTask } from '../../pool';
import type { Principal } from '../auth/principal';
import { repoAssignment, type RepoContext } from '../repo/context';
import { visibilityScopeOf } from '../user/directory.service';

/** A render request as Gitea's MarkupOption carries it. */
export interface MarkupRequest {
  mode?: string;
  text?: string;
  /** `owner/repo`, or a page path such as `/owner/repo/src/branch/main/docs`. */
  context?: string;
  filePath?: string;
  /** Deprecated flag for mode `wiki`. */
  wiki?: boolean;
}

// why: up to this size a document renders on the event loop in well under a millisecond or two;
// larger ones go to the pool, where a time limit applies.
const INLINE_MAX_CHARS = 16 * 1024;
// why: each candidate is one line to the repository's cat-file; a text of hex words costs no more than this.
const MAX_COMMIT_CANDIDATES = 100;
const MAX_MENTION_CANDIDATES = 100;

/** Render a document for the API; 422 for an unknown mode or a text over [markup] MAX_INPUT_SIZE. */
export async function renderMarkupRequest(ctx: DbContext, p: Principal, req: MarkupRequest): Promise<string> {
  const mode = (req.wiki ? 'wiki' : req.mode || 'markdown') as RenderMode;
  if (!RENDER_MODES.includes(mode)) throw new Validation(`Unknown mode: ${req.mode}`);
  const text = req.text ?? '';
  assertRenderable(text);
  const where = parseContext(req.context ?? '', req.filePath ?? '');
  let rc: RepoContext | null = null;
  if (where && mode !== 'markdown') rc = await repoAssignment(ctx, p, where.owner, where.repo).catch((e) => (e instanceof NotFound ? null : Promise.reject(e)));
  const links: LinkBase = { app: settings().server.rootUrl };
  if (where) Object.assign(links, { repo: `${links.app}${where.owner}/${where.repo}`, branchPath: where.branchPath, treePath: where.treePath });
  return renderDocument(ctx, p, { mode, text, filePath: req.filePath, links }, mode === 'markdown' ? null : rc);
}

/** 422 when a text is larger than [markup] MAX_INPUT_SIZE. */
export function assertRenderable(text: string): void {
  const max = settings().markup.maxInputSize;
  // why: a character is at most 3 bytes of UTF-8 (4 for a surrogate pair of 2), so short texts need no count.
  if (text.length * 3 > max && Buffer.byteLength(text) > max) {
    throw new Validation(`the text is ${Buffer.byteLength(text)} bytes; documents of up to ${max} bytes are rendered ([markup] MAX_INPUT_SIZE)`);
  }
}

/**
 * Render `input` to safe HTML. With a repository (`rc`, already authorized for the caller), `@names`
 * link to users the caller may see and hex words to the repository's commits they name.
 */
export async function renderDocument(ctx: DbContext, p: Principal, input: RenderInput, rc: RepoContext | null): Promise<string> {
  const full: RenderInput = { ...input, breaks: lineBreaks(input.mode) };
  const markdown = input.mode === 'file' ? fileRenderer(input.filePath ?? '') === 'markdown' : true;
  if (markdown && input.mode !== 'markdown') {
    const { users, shas } = referenceCandidates(input.text);
    full.mentionable = await visibleNamesAmong(ctx, users.slice(0, MAX_MENTION_CANDIDATES), visibilityScopeOf(p));
    if (rc && !rc.repo.isEmpty && rc.perm.can(UnitType.Code, AccessMode.Read)) full.commits = await existingCommits(rc, shas.slice(0, MAX_COMMIT_CANDIDATES));
  }
  return renderHere(full);
}

/** A short text renders in this thread; a long one in the worker pool, within `[markup] RENDER_TIMEOUT`. */
function renderHere(input: RenderInput): Promise<string> | string {
  if (input.text.length <= INLINE_MAX_CHARS) return render(input);
  return runTask('renderMarkup', { input, timeoutMs: settings().markup.renderTimeout * 1000 });
}

/**
 * Render many comments of one repository (an issue's timeline) with one look-up of the users they
 * mention and one of the commit ids they name, not one per comment.
 */
export async function renderComments(ctx: DbContext, p: Principal, rc: RepoContext, texts: string[]): Promise<string[]> {
  const root = settings().server.rootUrl;
  const links: LinkBase = { app: root, repo: `${root}${rc.owner.name}/${rc.repo.name}` };
  const users = new Set<string>();
  const shas = new Set<string>();
  for (const t of texts) {
    assertRenderable(t);
    const c = referenceCandidates(t);
    c.users.forEach((u) => users.add(u));
    c.shas.forEach((x) => shas.add(x));
  }
  const mentionable = await visibleNamesAmong(ctx, [...users].slice(0, MAX_MENTION_CANDIDATES * 10), visibilityScopeOf(p));
  const commits = !rc.repo.isEmpty && rc.perm.can(UnitType.Code, AccessMode.Read) ? await existingCommits(rc, [...shas].slice(0, MAX_COMMIT_CANDIDATES * 10)) : {};
  const breaks = lineBreaks('comment');
  return Promise.all(texts.map((text) => renderHere({ mode: 'comment', text, links, mentionable, commits, breaks })));
}

function lineBreaks(mode: RenderMode): boolean {
  const m = settings().markup;
  return mode === 'comment' ? m.enableHardLineBreakInComments : m.enableHardLineBreakInDocuments;
}

async function existingCommits(rc: RepoContext, shas: string[]): Promise<Record<string, string>> {
  const infos = await peekObjects(repoPath(rc.owner.name, rc.repo.name), shas.map((s) => `${s}^{commit}`));
  const out: Record<string, string> = {};
  infos.forEach((info, i) => { if (info) out[shas[i]] = info.oid; });
  return out;
}

const NAME = /^[A-Za-z0-9_.-]+$/;

/**
 * The repository and tree a `Context` names, as Gitea reads it: `owner/repo[/...]`, and for
 * `owner/repo/src/{branch|commit|tag}/<ref>/<dir>` the ref path without the document's folder.
 */
export function parseContext(context: string, filePath: string): { owner: string; repo: string; branchPath?: string; treePath?: string } | null {
  const root = settings().server.rootUrl;
  let c = context.startsWith(root) ? context.slice(root.length) : context;
  const sub = new URL(root).pathname;
  if (sub !== '/' && c.startsWith(sub)) c = c.slice(sub.length);
  const f = c.replace(/^\/+/, '').split('/');
  if (f.length < 2 || !NAME.test(f[0]) || !NAME.test(f[1]) || f[0].startsWith('.') || f[1].startsWith('.')) return null;
  const out: { owner: string; repo: string; branchPath?: string; treePath?: string } = { owner: f[0], repo: f[1] };
  if (f.length >= 5 && f[2] === 'src' && ['branch', 'commit', 'tag'].includes(f[3])) {
    const dir = path.dirname(filePath);
    const refPath = f.slice(3).join('/').replace(/\/+$/, '');
    out.treePath = dir === '.' ? '' : dir;
    out.branchPath = out.treePath && refPath.endsWith(`/${out.treePath}`) ? refPath.slice(0, -out.treePath.length - 1) : refPath;
  }
  return out;
}
