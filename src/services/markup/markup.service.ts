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
import { fileRenderer, RENDER_MODES, type LinkBase, type RenderInput, type RenderMode } from '../../markup';
import { AccessMode, UnitType } from '../../models/perm';
import { visibleNamesAmong } from '../../models/user.model';
import type { Principal } from '../auth/principal';
import { repoAssignment, type RepoContext } from '../repo/context';
import { visibilityScopeOf } from '../user/directory.service';
import { candidatesOf, renderAll, Slicer, type RenderUse } from './renderer';

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

// why: each commit candidate is one line to the repository's cat-file and each name one value of a
// query; a text of hex words or @names costs no more than this many of either.
const MAX_CANDIDATES = 100;
// why: a page of many documents looks up at most this many times as many names and ids in all.
const PAGE_CANDIDATES_FACTOR = 10;

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
  return renderDocument(ctx, p, { mode, text, filePath: req.filePath, links }, mode === 'markdown' ? null : rc, 'once');
}

/** Whether a text is larger than [markup] MAX_INPUT_SIZE. */
function tooLarge(text: string): boolean {
  const max = settings().markup.maxInputSize;
  // why: a character is at most 3 bytes of UTF-8 (4 for a surrogate pair of 2), so short texts need no count.
  return text.length * 3 > max && Buffer.byteLength(text) > max;
}

/** 422 when a text is larger than [markup] MAX_INPUT_SIZE. */
export function assertRenderable(text: string): void {
  if (!tooLarge(text)) return;
  throw new Validation(`the text is ${Buffer.byteLength(text)} bytes; documents of up to ${settings().markup.maxInputSize} bytes are rendered ([markup] MAX_INPUT_SIZE)`);
}

/**
 * Render `input` to safe HTML. With a repository (`rc`, already authorized for the caller), `@names`
 * link to users the caller may see and hex words to the repository's commits they name. `page` (the
 * default) keeps the HTML for the next reader; `once` is for previews and the API.
 */
export async function renderDocument(ctx: DbContext, p: Principal, input: RenderInput, rc: RepoContext | null, use: RenderUse = 'page'): Promise<string> {
  if (use === 'once') assertRenderable(input.text);
  const [html] = await renderWithFacts(ctx, p, rc, [{ ...input, breaks: lineBreaks(input.mode) }], use);
  return html.toString('utf8');
}

/**
 * Render many comments of one repository (an issue's timeline, a release list) with one look-up of
 * the users they mention and one of the commit ids they name, not one per comment. The HTML comes as
 * UTF-8 for a page to write as it is (`PageSlots`).
 */
export async function renderComments(ctx: DbContext, p: Principal, rc: RepoContext, texts: string[]): Promise<Buffer[]> {
  const root = settings().server.rootUrl;
  const links: LinkBase = { app: root, repo: `${root}${rc.owner.name}/${rc.repo.name}` };
  const breaks = lineBreaks('comment');
  return renderWithFacts(ctx, p, rc, texts.map((text) => ({ mode: 'comment', text, links, breaks })), 'page');
}

/**
 * A commit message as the commit page shows it: its subject and body escaped, with references linked
 * as in comments (Gitea renders commit messages with the comment rules, not as Markdown).
 */
export async function renderCommitMessage(ctx: DbContext, p: Principal, rc: RepoContext, message: string): Promise<{ subject: string; body: string }> {
  const root = settings().server.rootUrl;
  const links: LinkBase = { app: root, repo: `${root}${rc.owner.name}/${rc.repo.name}` };
  const [first, ...rest] = message.split('\n');
  const [subject, body] = await renderWithFacts(ctx, p, rc, [first, rest.join('\n').trim()].map((text) => ({ mode: 'comment', text, links, textOnly: true })), 'page');
  return { subject: subject.toString('utf8'), body: body.toString('utf8') };
}

/**
 * Give each document the mentions and commit ids of its own text that are real for this reader
 * (one query and one object look-up for all of them), then render them. A page's document over
 * [markup] MAX_INPUT_SIZE shows as its escaped text.
 */
async function renderWithFacts(ctx: DbContext, p: Principal, rc: RepoContext | null, inputs: RenderInput[], use: RenderUse): Promise<Buffer[]> {
  const slicer = new Slicer();
  const users = new Set<string>();
  const shas = new Set<string>();
  const found: ({ users: string[]; shas: string[] } | null)[] = [];
  for (const input of inputs) {
    if (tooLarge(input.text)) input.plain = true;
    const markdown = input.textOnly || (input.mode === 'file' ? fileRenderer(input.filePath ?? '') === 'markdown' : true);
    const c = markdown && input.mode !== 'markdown' && !input.plain ? candidatesOf(input, MAX_CANDIDATES) : null;
    if (c) {
      c.users.forEach((u) => users.add(u));
      c.shas.forEach((x) => shas.add(x));
    }
    found.push(c);
    await slicer.tick();
  }
  const factor = inputs.length > 1 ? PAGE_CANDIDATES_FACTOR : 1;
  // why: the keywords marked in rendered text are the ones that act ([repository.pull-request] CLOSE_KEYWORDS, REOPEN_KEYWORDS).
  const { closeKeywords, reopenKeywords } = settings().repositoryPullRequest;
  const keywords = [...closeKeywords, ...reopenKeywords];
  const named = users.size ? new Set(await visibleNamesAmong(ctx, [...users].slice(0, MAX_CANDIDATES * factor), visibilityScopeOf(p))) : new Set<string>();
  const readable = rc && !rc.repo.isEmpty && rc.perm.can(UnitType.Code, AccessMode.Read);
  const commits = readable && shas.size ? await existingCommits(rc, [...shas].slice(0, MAX_CANDIDATES * factor)) : {};
  inputs.forEach((input, k) => {
    const c = found[k];
    if (!c) return;
    // why: only what this text names, so the cache key holds no more of the reader than the HTML does.
    input.mentionable = c.users.filter((u) => named.has(u));
    input.keywords = keywords;
    input.commits = Object.fromEntries(c.shas.filter((x) => commits[x] !== undefined).map((x) => [x, commits[x]]));
  });
  return renderAll(inputs, use);
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
