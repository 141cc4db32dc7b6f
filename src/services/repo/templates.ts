/**
 * The instance's repository init templates (.gitignore, license, README), shipped in `templates/`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Validation } from '../../errors';
import type { InitialFile } from '../../git/init';

// why: compiled code runs from dist/src/services/repo; the templates stay at the project root.
const ROOT = [path.resolve(__dirname, '../../../templates'), path.resolve(__dirname, '../../../../templates')].find((d) => fs.existsSync(d)) ?? '';

function load(kind: 'gitignore' | 'license', name: string): string {
  const names = fs.existsSync(path.join(ROOT, kind)) ? fs.readdirSync(path.join(ROOT, kind)) : [];
  const hit = names.find((n) => n === name);
  if (!hit) throw new Validation(`GetRepoInitFile[${name}]: ${kind} template does not exist`);
  return fs.readFileSync(path.join(ROOT, kind, hit), 'utf8');
}

/** What the first commit of an auto-initialized repository holds. */
export interface InitRequest { name: string; description: string; owner: string; gitignores?: string; license?: string; readme?: string }

/** The files of the first commit; throws 422 for an unknown template (before anything is created). */
export function initialFiles(r: InitRequest): InitialFile[] {
  if (r.readme && r.readme !== 'Default') throw new Validation(`GetRepoInitFile[${r.readme}]: readme template does not exist`);
  const files: InitialFile[] = [{ name: 'README.md', content: `# ${r.name}\n\n${r.description}\n` }];
  const ignores = (r.gitignores ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  if (ignores.length) files.push({ name: '.gitignore', content: ignores.map((n) => load('gitignore', n)).join('\n') });
  if (r.license) {
    const text = load('license', r.license).replace(/\{\{YEAR\}\}/g, String(new Date().getUTCFullYear())).replace(/\{\{OWNER\}\}/g, r.owner);
    files.push({ name: 'LICENSE', content: text });
  }
  return files;
}
