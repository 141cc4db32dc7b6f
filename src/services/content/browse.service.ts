/**
 * What the repository pages show of a tree: a folder's entries with its README rendered, or a
 * file highlighted, rendered (Markdown, CSV), shown as an image, or described (binary, LFS, too
 * large). Highlighted and rendered files are kept by blob id, which never changes meaning, so a file
 * read again costs no highlighting.
 */
import path from 'node:path/posix';
import { settings } from '../../config';
import { Validation } from '../../errors';
import type { DbContext } from '../../db';
import { entriesAt, listDir, readBlob, type TreeEntry } from '../../git/objects';
import { readCommits } from '../../git/history';
import { WeightedLru } from '../../git/lru';
import { escapeHtml, fileRenderer, highlightFile, languageOf, splitHighlighted } from '../../markup';
import { blameFile, type Blame } from '../../git/blame';
import { grepTree, type GrepFile } from '../../git/grep';
import { runTask } from '../../pool';
import type { Principal } from '../auth/principal';
import { renderDocument } from '../markup/markup.service';
import type { CodeRepo } from './access';
import { LFS_POINTER_MAX, parseLfsPointer } from './lfs-pointer';
import { locate, type RefKind, type TreeLocation } from './raw.service';
import { notFoundWith } from './access';
import { lfsLinked } from './read.service';

/** The commit that last changed an entry, as a folder's listing shows it. */
export interface EntryCommit { sha: string; subject: string; when: Date }

/**
 * The last commit of each entry of a folder (Gitea's "latest commit" column), by entry name: one
 * walk in the worker pool for the folder, then the subjects of the commits it names.
 */
export async function entryCommits(cr: CodeRepo, loc: TreeLocation, names: string[]): Promise<Map<string, EntryCommit>> {
  if (names.length === 0) return new Map();
  const lasts = await runTask('lastCommits', { gitDir: cr.gitDir, commitId: loc.commitId, dir: loc.treePath, names });
  const shas = [...new Set(Object.values(lasts).map((l) => l.sha))];
  const subjects = new Map((await readCommits(cr.gitDir, shas)).map((c) => [c.id, c.message.split('\n')[0]]));
  return new Map(Object.entries(lasts).map(([name, l]) => [name, { sha: l.sha, subject: subjects.get(l.sha) ?? '', when: new Date(l.committed * 1000) }]));
}

/** An entry of a folder as a page lists it. */
export interface DirEntryView { name: string; path: string; kind: 'dir' | 'file' | 'symlink' | 'submodule'; size: number }

/** A file as a page shows it. */
export interface FileView {
  path: string; name: string; size: number; oid: string;
  /** An LFS pointer's object (its size), when the object is stored here. */
  lfs: { oid: string; size: number } | null;
  kind: 'text' | 'image' | 'binary' | 'too-large';
  /** Highlighted source (one `<code>` body) and its line count, for text. */
  code?: { html: string; lines: number; language: string | null };
  /** The rendered form of a Markdown or CSV file (sanitized). */
  rendered?: string;
}

/** What a browse path shows. */
export type BrowseView = { location: TreeLocation; dir: DirEntryView[]; readme: { name: string; html: string } | null } | { location: TreeLocation; file: FileView };

const IMAGE = /\.(png|jpe?g|gif|webp|avif|bmp|ico|svg)$/i;
// why: a file this large is shown as a link to its raw form, as Gitea's MAX_DISPLAY_FILE_SIZE.
const MAX_DISPLAY_BYTES = 8 * 1024 * 1024;
// why: highlighting runs at a few hundred KB per second; larger files go to the pool, bounded in time.
const INLINE_HIGHLIGHT_CHARS = 32 * 1024;
const HIGHLIGHT_TIMEOUT_MS = 5000;

// why: keyed by blob id (and for rendered files the links' base): the same key is the same output.
const shown = new WeightedLru<FileView['code'] | string>(64 * 1024 * 1024, (v) => (typeof v === 'string' ? v.length : v!.html.length) + 64);

/** Resolve `{ref}/{path}` of a browse URL (`/src/{kind}/...`); the default branch's root for ''. */
export function locateBrowse(cr: CodeRepo, kind: RefKind | undefined, rest: string): Promise<TreeLocation> {
  return locate(cr, rest, undefined, kind);
}

function entryKind(e: TreeEntry): DirEntryView['kind'] {
  if (e.type === 'tree') return 'dir';
  if (e.type === 'commit') return 'submodule';
  return e.mode === '120000' ? 'symlink' : 'file';
}

/** The folder or file at a location, as a page shows it. */
export async function browse(ctx: DbContext, p: Principal, cr: CodeRepo, loc: TreeLocation): Promise<BrowseView> {
  const entry = loc.treePath ? (await entriesAt(cr.gitDir, loc.commitId, [loc.treePath])).get(loc.treePath) : undefined;
  if (loc.treePath && !entry) throw notFoundWith(`path "${loc.treePath}" does not exist in ${loc.refName}`, null);
  if (entry && entry.type !== 'tree') {
    if (entry.type === 'commit') throw notFoundWith(`"${loc.treePath}" is a submodule`, null);
    return { location: loc, file: await fileView(ctx, p, cr, loc, entry) };
  }
  const entries = (await listDir(cr.gitDir, loc.commitId, loc.treePath)).map((e) => ({ name: path.basename(e.path), path: e.path, kind: entryKind(e), size: e.size }));
  entries.sort((a, b) => Number(b.kind === 'dir') - Number(a.kind === 'dir') || a.name.localeCompare(b.name));
  return { location: loc, dir: entries, readme: await readmeOf(ctx, p, cr, loc, entries) };
}

const README = /^readme(\.(md|markdown|mdown|mkd|txt|rst|org))?$/i;

async function readmeOf(ctx: DbContext, p: Principal, cr: CodeRepo, loc: TreeLocation, entries: DirEntryView[]): Promise<{ name: string; html: string } | null> {
  const candidates = entries.filter((e) => e.kind === 'file' && README.test(e.name));
  // why: a Markdown README is preferred, as Gitea picks it.
  const pick = candidates.find((e) => fileRenderer(e.name) === 'markdown') ?? candidates[0];
  if (!pick || pick.size > MAX_DISPLAY_BYTES) return null;
  const e = (await entriesAt(cr.gitDir, loc.commitId, [pick.path])).get(pick.path)!;
  return { name: pick.name, html: await renderedFile(ctx, p, cr, loc, e) };
}

/** The rendered form of a Markdown or CSV file, or its text escaped in a `<pre>`. */
async function renderedFile(ctx: DbContext, p: Principal, cr: CodeRepo, loc: TreeLocation, e: TreeEntry): Promise<string> {
  const dir = path.dirname(e.path);
  const branchPath = `${loc.refKind}/${loc.refName}`;
  const kind = fileRenderer(e.path);
  // why: a rendered document links mentions and commits as the reader may see them, so it is kept
  // by the renderer under a key that holds those; plain text is the same for everyone.
  if (kind !== 'text') {
    const text = (await readBlob(cr.gitDir, e.oid)).toString('utf8');
    return renderDocument(ctx, p, { mode: 'file', text, filePath: e.path, links: { app: settings().server.rootUrl, repo: cr.urls.html, branchPath, treePath: dir === '.' ? '' : dir } }, cr);
  }
  const key = `r\0${cr.gitDir}\0${e.oid}`;
  const hit = shown.get(key);
  if (typeof hit === 'string') return hit;
  const html = `<pre>${escapeHtml((await readBlob(cr.gitDir, e.oid)).toString('utf8'))}</pre>`;
  shown.set(key, html);
  return html;
}

async function highlighted(cr: CodeRepo, e: TreeEntry, text: string): Promise<NonNullable<FileView['code']>> {
  const key = `h\0${e.oid}\0${languageOf(e.path) ?? ''}`;
  const hit = shown.get(key);
  if (hit && typeof hit !== 'string') return hit;
  const code = text.length <= INLINE_HIGHLIGHT_CHARS
    ? highlightFile(text, e.path)
    : (await runTask('highlightFile', { text, fileName: e.path, timeoutMs: HIGHLIGHT_TIMEOUT_MS }))
      ?? { html: escapeHtml(text.replace(/\n$/, '')), lines: text.replace(/\n$/, '').split('\n').length, language: null };
  shown.set(key, code);
  return code;
}

/** What a code search found: files with their matching lines, and whether more files matched. */
export interface CodeSearch { query: string; ref: string; files: GrepFile[]; more: boolean }

/**
 * Search the default branch's files for a text (case-insensitive; Gitea's code search without an
 * indexer): 422 for an empty or overlong query, nothing for an empty repository.
 */
export async function searchCode(cr: CodeRepo, query: string): Promise<CodeSearch> {
  const q = query.trim();
  if (!q) throw new Validation('type something to search for');
  if (q.length > 256 || /[\0\n]/.test(q)) throw new Validation('the search text is too long or has a line break');
  const ref = cr.repo.defaultBranch;
  if (cr.repo.isEmpty) return { query: q, ref, files: [], more: false };
  const loc = await locate(cr, '', ref, 'branch');
  const { files, more } = await grepTree(cr.gitDir, loc.commitId, q, 50, 5);
  return { query: q, ref, files, more };
}

/** A file's blame as a page shows it: the hunks and their commits, and each line highlighted. */
export interface BlameView { path: string; blame: Blame; lines: string[] }

/**
 * The blame of the file at a location: 404 for a folder or a missing path, 422 for a binary or
 * too large a file (Gitea shows no blame for those either).
 */
export async function blameAt(cr: CodeRepo, loc: TreeLocation): Promise<BlameView> {
  const e = loc.treePath ? (await entriesAt(cr.gitDir, loc.commitId, [loc.treePath])).get(loc.treePath) : undefined;
  if (!e || e.type !== 'blob') throw notFoundWith(`path "${loc.treePath}" is not a file in ${loc.refName}`, null);
  if (e.size > MAX_DISPLAY_BYTES) throw new Validation('the file is too large to blame');
  const buf = await readBlob(cr.gitDir, e.oid);
  if (buf.subarray(0, 8000).includes(0)) throw new Validation('a binary file has no blame');
  const [blame, code] = await Promise.all([blameFile(cr.gitDir, loc.commitId, e.path), highlighted(cr, e, buf.toString('utf8'))]);
  return { path: e.path, blame, lines: splitHighlighted(code.html) };
}

/** The text of the file at a location and its blob id, for the editor; 422 for a folder, a binary or too large a file. */
export async function readTextAt(cr: CodeRepo, loc: TreeLocation): Promise<{ text: string; oid: string }> {
  const e = loc.treePath ? (await entriesAt(cr.gitDir, loc.commitId, [loc.treePath])).get(loc.treePath) : undefined;
  if (!e) throw notFoundWith(`path "${loc.treePath}" does not exist in ${loc.refName}`, null);
  if (e.type !== 'blob' || e.mode === '120000') throw new Validation(`"${loc.treePath}" is not a file that can be edited`);
  if (e.size > MAX_DISPLAY_BYTES) throw new Validation(`"${loc.treePath}" is too large to edit here`);
  const buf = await readBlob(cr.gitDir, e.oid);
  if (buf.subarray(0, 8000).includes(0)) throw new Validation(`"${loc.treePath}" is a binary file`);
  return { text: buf.toString('utf8'), oid: e.oid };
}

async function fileView(ctx: DbContext, p: Principal, cr: CodeRepo, loc: TreeLocation, e: TreeEntry): Promise<FileView> {
  const view: FileView = { path: e.path, name: path.basename(e.path), size: e.size, oid: e.oid, lfs: null, kind: 'binary' };
  if (e.size > MAX_DISPLAY_BYTES) return { ...view, kind: 'too-large' };
  const buf = await readBlob(cr.gitDir, e.oid);
  const pointer = e.size <= LFS_POINTER_MAX ? parseLfsPointer(buf) : null;
  if (pointer) {
    view.lfs = await lfsLinked(ctx, cr.repo.id, pointer.oid);
    // why: the object itself is served by /media; a page says what it is rather than loading it whole.
    return { ...view, kind: IMAGE.test(e.path) ? 'image' : 'binary' };
  }
  if (IMAGE.test(e.path)) return { ...view, kind: 'image' };
  if (buf.subarray(0, 8000).includes(0)) return view;
  const text = buf.toString('utf8');
  view.kind = 'text';
  view.code = await highlighted(cr, e, text);
  if (fileRenderer(e.path) !== 'text') view.rendered = await renderedFile(ctx, p, cr, loc, e);
  return view;
}
