/**
 * The file editor: edit a file, make a new one, upload one, delete one, each committed to a branch through the
 * same change service as the API (`changeFiles`: the repository lock, branch protection, hostile
 * paths refused). The Preview tab is a form button, shown whenever the file view would show the
 * file rendered (Markdown, CSV): the server renders what the textarea holds, no script needed.
 */
import path from 'node:path/posix';
import express, { type Request, type Response, type Router } from 'express';
import { ctxOf } from '../../middleware/context';
import { settings } from '../../config';
import { HttpError, NotFound } from '../../errors';
import { fileRenderer } from '../../markup';
import { formBody } from '../../middleware/input-guard';
import { readCapped } from '../../middleware/upload';
import { codeRepo, type CodeRepo } from '../../services/content/access';
import { locateBrowse, readTextAt } from '../../services/content/browse.service';
import { changeFiles, type ChangeOp } from '../../services/content/change.service';
import { renderDocument } from '../../services/markup/markup.service';
import { flash, formUpload, requireCsrf, saveIfDirty, unlessRefused } from './context';
import { renderPage } from './render';
import { page, repoHome, signedIn } from './route';

const rest = (req: Request) => String((req.params as unknown as Record<string, string>)[0] ?? '');
const encodePath = (p: string) => p.split('/').map(encodeURIComponent).join('/');

/** What the editor form shows. */
interface EditorState { mode: 'edit' | 'new'; branch: string; dir: string; name: string; content: string; sha: string; message: string; preview: string | null }

async function writable(req: Request, res: Response): Promise<CodeRepo | null> {
  if (!signedIn(req, res)) return null;
  return codeRepo(ctxOf(req), req.principal, String(req.params.owner), String(req.params.repo), 'write');
}

async function showEditor(req: Request, res: Response, cr: CodeRepo, s: EditorState, status = 200): Promise<void> {
  const filePath = s.dir ? `${s.dir}/${s.name}` : s.name;
  await renderPage(req, res, 'repo/editor', `${s.mode === 'new' ? 'New file' : `Edit ${filePath}`} - ${cr.owner.name}/${cr.repo.name}`, {
    ...s, base: repoHome(cr), repoName: `${cr.owner.name}/${cr.repo.name}`, previewable: s.name !== '' && fileRenderer(s.name) !== 'text',
    action: `${repoHome(cr)}/${s.mode === 'new' ? '_new' : '_edit'}/${encodePath(s.branch)}/${encodePath(s.mode === 'new' ? s.dir : filePath)}`,
  }, status);
}

/** The text a browser sent, with its CRLF line ends back to LF unless the file had CRLF. */
function fromTextarea(text: string, crlf: boolean): string {
  return crlf ? text : text.replace(/\r\n/g, '\n');
}

/** Editor routes. */
export function editorPages(): Router {
  const r = express.Router();
  const csrf = requireCsrf();
  const repo = '/:owner/:repo';

  r.get(`${repo}/_edit/*`, page(async (req, res) => {
    const cr = await writable(req, res);
    if (!cr) return;
    const loc = await locateBrowse(cr, 'branch', rest(req));
    const file = await readTextAt(cr, loc);
    await showEditor(req, res, cr, { mode: 'edit', branch: loc.refName, dir: dirOf(loc.treePath), name: path.basename(loc.treePath), content: file.text, sha: file.oid, message: '', preview: null });
  }));

  r.get(`${repo}/_new/*`, page(async (req, res) => {
    const cr = await writable(req, res);
    if (!cr) return;
    const loc = await locateBrowse(cr, 'branch', rest(req));
    await showEditor(req, res, cr, { mode: 'new', branch: loc.refName, dir: loc.treePath, name: '', content: '', sha: '', message: '', preview: null });
  }));

  for (const mode of ['edit', 'new'] as const) {
    r.post(`${repo}/_${mode}/*`, ...formBody('16mb'), csrf, page(async (req, res) => {
      const cr = await writable(req, res);
      if (!cr) return;
      const body = req.body as Record<string, string>;
      const loc = await locateBrowse(cr, 'branch', rest(req));
      const dir = mode === 'new' ? loc.treePath : dirOf(loc.treePath);
      const name = mode === 'new' ? (body.file_name ?? '').trim() : path.basename(loc.treePath);
      // why: a browser sends every line break of a form as CRLF, so the file's own ending travels as a word.
      const content = fromTextarea(body.content ?? '', body.original_eol === 'crlf');
      const state: EditorState = { mode, branch: loc.refName, dir, name, content, sha: body.last_sha ?? '', message: body.commit_message ?? '', preview: null };
      const filePath = dir ? `${dir}/${name}` : name;
      if (body.action === 'preview') {
        state.preview = await renderDocument(ctxOf(req), req.principal, {
          mode: 'file', text: content, filePath, links: { app: settings().server.rootUrl, repo: cr.urls.html, branchPath: `branch/${loc.refName}`, treePath: dir },
        }, cr, 'once');
        return showEditor(req, res, cr, state);
      }
      const op: ChangeOp = mode === 'new'
        ? { operation: 'create', path: filePath, content: Buffer.from(content) }
        : { operation: 'update', path: filePath, content: Buffer.from(content), sha: state.sha };
      const done = await unlessRefused(req, () => changeFiles(ctxOf(req), cr, req.principal.user!, { branch: loc.refName, message: state.message, files: [op] }),
        (status) => showEditor(req, res, cr, state, status));
      if (!done) return;
      flash(req, 'success', `Committed ${filePath} to ${loc.refName}.`);
      await saveIfDirty(req);
      res.redirect(303, `${repoHome(cr)}/src/branch/${encodePath(loc.refName)}/${encodePath(filePath)}`);
    }));
  }

  r.get(`${repo}/_upload/*`, page(async (req, res) => {
    const cr = await writable(req, res);
    if (!cr) return;
    const loc = await locateBrowse(cr, 'branch', rest(req));
    await renderPage(req, res, 'repo/upload', `Upload a file - ${cr.owner.name}/${cr.repo.name}`, {
      repoName: `${cr.owner.name}/${cr.repo.name}`, branch: loc.refName, dir: loc.treePath, maxMb: settings().repositoryUpload.fileMaxSize,
      action: `${repoHome(cr)}/_upload/${encodePath(loc.refName)}/${encodePath(loc.treePath)}`, back: `${repoHome(cr)}/src/branch/${encodePath(loc.refName)}/${encodePath(loc.treePath)}`,
    });
  }));

  // why: the file streams in as multipart; its commit message and CSRF token are the parts before it.
  r.post(`${repo}/_upload/*`, page(async (req, res) => {
    const cr = await writable(req, res);
    if (!cr) return;
    const loc = await locateBrowse(cr, 'branch', rest(req));
    const max = settings().repositoryUpload.fileMaxSize * 1024 * 1024;
    let filePath = '';
    const done = await unlessRefused(req, () => formUpload(req, 'file', async (filename, data, fields) => {
      const name = path.basename(filename.replace(/\\/g, '/'));
      filePath = loc.treePath ? `${loc.treePath}/${name}` : name;
      const content = await readCapped(data, max);
      if (!content) throw new HttpError(413, `the file is larger than ${settings().repositoryUpload.fileMaxSize} MB`);
      return changeFiles(ctxOf(req), cr, req.principal.user!, { branch: loc.refName, message: fields.commit_message || `Upload ${name}`, files: [{ operation: 'upload', path: filePath, content }] });
    }), async () => { await saveIfDirty(req); res.redirect(303, `${repoHome(cr)}/_upload/${encodePath(loc.refName)}/${encodePath(loc.treePath)}`); });
    if (!done) return;
    flash(req, 'success', `Committed ${filePath} to ${loc.refName}.`);
    await saveIfDirty(req);
    res.redirect(303, `${repoHome(cr)}/src/branch/${encodePath(loc.refName)}/${encodePath(filePath)}`);
  }));

  r.post(`${repo}/_delete/*`, ...formBody(), csrf, page(async (req, res) => {
    const cr = await writable(req, res);
    if (!cr) return;
    const loc = await locateBrowse(cr, 'branch', rest(req));
    if (!loc.treePath) throw new NotFound();
    const body = req.body as Record<string, string>;
    await changeFiles(ctxOf(req), cr, req.principal.user!, { branch: loc.refName, message: body.commit_message, files: [{ operation: 'delete', path: loc.treePath, sha: body.last_sha }] });
    flash(req, 'success', `Deleted ${loc.treePath} from ${loc.refName}.`);
    await saveIfDirty(req);
    res.redirect(303, `${repoHome(cr)}/src/branch/${encodePath(loc.refName)}/${encodePath(dirOf(loc.treePath))}`);
  }));
  return r;
}

function dirOf(p: string): string {
  const d = path.dirname(p);
  return d === '.' ? '' : d;
}
