/**
 * The instance's templates for new repositories, and the API's listings of them: `.gitignore` files
 * (the CC0 collection of github/gitignore, shipped in `templates/gitignore`), license texts (SPDX's,
 * from the `spdx-license-list` package) and the README.
 */
import fs from 'node:fs';
import path from 'node:path';
import { NotFound, Validation } from '../../errors';
import type { InitialFile } from '../../git/init';

// why: compiled code runs from dist/src/services/repo; the templates stay at the project root.
const ROOT = [path.resolve(__dirname, '../../../templates'), path.resolve(__dirname, '../../../../templates')].find((d) => fs.existsSync(d)) ?? '';

let gitignoreNames: string[] | null = null;

/** The names of the `.gitignore` templates, sorted. */
export function gitignoreTemplateNames(): string[] {
  gitignoreNames ??= fs.existsSync(path.join(ROOT, 'gitignore')) ? fs.readdirSync(path.join(ROOT, 'gitignore')).sort((a, b) => a.localeCompare(b)) : [];
  return gitignoreNames;
}

/** The text of a `.gitignore` template, or null when there is none of that name (exact case). */
export function gitignoreTemplate(name: string): string | null {
  // why: the name is looked up among the files, never joined into a path as given.
  return gitignoreTemplateNames().includes(name) ? fs.readFileSync(path.join(ROOT, 'gitignore', name), 'utf8') : null;
}

interface SpdxLicense { name: string; url: string; licenseText: string }
let licenses: Record<string, SpdxLicense> | null = null;
let licenseNames: string[] | null = null;

function spdx(): Record<string, SpdxLicense> {
  // why: the full list holds every license text (several MB); it is read on first use only.
  licenses ??= require('spdx-license-list/full') as Record<string, SpdxLicense>;
  return licenses;
}

// why: Gitea lists its PREFERRED_LICENSES (Apache-2.0, MIT) first, then the rest by name.
const PREFERRED_LICENSES = ['Apache-2.0', 'MIT'];

/** SPDX identifiers of the license templates, preferred ones first. */
export function licenseTemplateNames(): string[] {
  if (!licenseNames) {
    const rest = Object.keys(spdx()).filter((k) => !PREFERRED_LICENSES.includes(k)).sort((a, b) => a.localeCompare(b));
    licenseNames = [...PREFERRED_LICENSES.filter((k) => k in spdx()), ...rest];
  }
  return licenseNames;
}

/** A license template by its SPDX identifier (exact case), or null. */
export function licenseTemplate(id: string): { id: string; name: string; text: string } | null {
  const l = Object.hasOwn(spdx(), id) ? spdx()[id] : undefined;
  return l ? { id, name: l.name, text: l.licenseText } : null;
}

// why: SPDX texts write their blanks in many ways; these are the ones a new repository can fill in.
const YEAR_BLANKS = ['<year>', '[year]', '[yyyy]', '<YEAR>', '[YEAR]', '<Year>', '[Year]', '<yyyy>'];
const OWNER_BLANKS = ['<name of author>', '<copyright holders>', '<copyright holder>', '<owner>', '<OWNER>', '[name of copyright owner]', '[name of copyright holder]', '[NAME]', '[fullname]', '<COPYRIGHT HOLDER>', '<COPYRIGHT HOLDERS>'];
const PROGRAM_BLANKS = ['<program>', '[Software Name]'];

function fillLicense(text: string, owner: string, repo: string): string {
  let out = text;
  const year = String(new Date().getUTCFullYear());
  for (const b of YEAR_BLANKS) out = out.split(b).join(year);
  for (const b of OWNER_BLANKS) out = out.split(b).join(owner);
  for (const b of PROGRAM_BLANKS) out = out.split(b).join(repo);
  return out;
}

/** What the first commit of an auto-initialized repository holds. */
export interface InitRequest { name: string; description: string; owner: string; gitignores?: string; license?: string; readme?: string }

/** The files of the first commit; throws 422 for an unknown template (before anything is created). */
export function initialFiles(r: InitRequest): InitialFile[] {
  if (r.readme && r.readme !== 'Default') throw new Validation(`GetRepoInitFile[${r.readme}]: readme template does not exist`);
  const files: InitialFile[] = [{ name: 'README.md', content: `# ${r.name}\n\n${r.description}\n` }];
  const ignores = (r.gitignores ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  if (ignores.length) {
    const texts = ignores.map((n) => {
      const t = gitignoreTemplate(n);
      if (t === null) throw new Validation(`GetRepoInitFile[${n}]: gitignore template does not exist`);
      return `# ---> ${n}\n${t}`;
    });
    files.push({ name: '.gitignore', content: texts.join('\n') });
  }
  if (r.license) {
    const l = licenseTemplate(r.license);
    if (!l) throw new Validation(`GetRepoInitFile[${r.license}]: license template does not exist`);
    files.push({ name: 'LICENSE', content: fillLicense(l.text, r.owner, r.name) });
  }
  return files;
}

/** 404 unless `found`; the listings' answer for a template name that does not exist. */
export function templateFound<T>(found: T | null, what: string, name: string): T {
  if (found === null) throw new NotFound(`${what} template "${name}" does not exist`);
  return found;
}
