/**
 * `GET /repos/{owner}/{repo}/editorconfig/{filepath}` (Gitea's GetEditorconfig): the properties the
 * `.editorconfig` at the root of a ref gives one path. As Gitea, only the root file is read (no
 * `.editorconfig` in subdirectories), a missing or oversized file is a 404, and a path no section
 * matches gets an empty object. The file is parsed by the EditorConfig project's own parser.
 */
import { matcher } from 'editorconfig';
import { NotFound } from '../../errors';
import { entriesAt, readBlob } from '../../git/objects';
import type { EditorConfigDefinition } from '../../api/contents';
import type { CodeRepo } from './access';
import { refOr404 } from './read.service';

// why: Gitea refuses an .editorconfig of [ui] MAX_DISPLAY_FILE_SIZE (8 MiB by default) or more.
const MAX_EDITORCONFIG_BYTES = 8 * 1024 * 1024;

/** The properties Gitea's JSON carries (its Definition's exported fields); others it leaves out. */
const SHOWN = ['charset', 'indent_style', 'indent_size', 'end_of_line'] as const;

/** The EditorConfig definition that applies to `filepath` at `ref` (default branch when empty). */
export async function editorconfigFor(cr: CodeRepo, filepath: string, ref: string | undefined): Promise<EditorConfigDefinition> {
  const r = await refOr404(cr, ref);
  const entry = (await entriesAt(cr.gitDir, r.commitId, ['.editorconfig'])).get('.editorconfig');
  if (!entry || entry.type !== 'blob' || entry.size >= MAX_EDITORCONFIG_BYTES) {
    throw new NotFound('object does not exist [id: , rel_path: .editorconfig]');
  }
  // why: the parser matches absolute paths against the root it is given; a virtual root keeps it off the server's disk.
  const props = matcher({ root: '/', config: '.editorconfig' }, Buffer.from(await readBlob(cr.gitDir, entry.oid)))(`/${filepath.replace(/^\/+/, '')}`);
  const out: EditorConfigDefinition = {};
  for (const k of SHOWN) {
    const v = props[k];
    if (v === undefined || v === null || v === '' || v === 'unset') continue;
    out[k] = String(v);
  }
  return out;
}
