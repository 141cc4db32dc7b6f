/**
 * R packages (Gitea's cran registry): the DESCRIPTION of an uploaded source package (tar.gz) or
 * binary (zip or tar.gz) is read by streaming from `pkg/DESCRIPTION`, its name and version checked
 * by Gitea's patterns; `PACKAGES` lists, per package, the newest version (by R's version order)
 * that has a file of the kind asked for.
 */
import fs from 'node:fs';
import { BadRequest } from '../../errors';
import { readTarGz, readZip, type ArchiveCaps } from './archive';

/** The largest package file accepted. */
export const CRAN_MAX_BYTES = 2 * 1024 * 1024 * 1024;

const CAPS: ArchiveCaps = { maxEntries: 100_000, maxUnpackedBytes: 2 * 1024 * 1024 * 1024, maxRatio: 1000 };
const MAX_DESCRIPTION_BYTES = 1024 * 1024;
const NAME = /^[A-Za-z][A-Za-z0-9.]*[A-Za-z0-9]$/;
const VERSION = /^[0-9]+(?:[.-][0-9]+){1,3}$/;

/** The fields of a DESCRIPTION that the index and the pages use. */
export interface CranMetadata {
  title: string; description: string; url: string[]; license: string; authors: string[]; depends: string[]; imports: string[];
  suggests: string[]; linkingTo: string[]; needsCompilation: boolean;
}

/** What an upload is. */
export interface CranPackage { name: string; version: string; isZip: boolean; metadata: CranMetadata }

/** Parse a DESCRIPTION (Debian control file syntax: `Field: value`, continuation lines indented). */
export function parseDescription(text: string): Record<string, string> {
  const fields: Record<string, string> = {};
  let last = '';
  for (const line of text.split(/\r?\n/)) {
    const m = /^(\S+?):\s*(.*)$/.exec(line);
    if (m && !/^\s/.test(line)) {
      last = m[1];
      fields[last] = m[2].trim();
    } else if (last && line.trim()) {
      fields[last] = `${fields[last]} ${line.trim()}`.trim();
    }
  }
  return fields;
}

const list = (v: string | undefined) => (v ?? '').split(',').map((s) => s.trim()).filter(Boolean);

/** A DESCRIPTION entry: `DESCRIPTION` or `<dir>/DESCRIPTION`, no deeper. */
const isDescription = (name: string) => /^(?:[^/]+\/)?DESCRIPTION$/.test(name);

/** Read and check the package at `file` (400 with the reason otherwise). */
export async function readCranPackage(file: string): Promise<CranPackage> {
  const head = Buffer.alloc(2);
  const fd = fs.openSync(file, 'r');
  try { fs.readSync(fd, head, 0, 2, 0); } finally { fs.closeSync(fd); }
  const isZip = !(head[0] === 0x1f && head[1] === 0x8b);
  let description: Buffer | null = null;
  if (isZip) {
    await readZip(file, CAPS, async (e) => {
      if (!description && !e.isDirectory && isDescription(e.name)) description = await e.read(MAX_DESCRIPTION_BYTES, 'DESCRIPTION');
    });
  } else {
    await readTarGz(file, CAPS, MAX_DESCRIPTION_BYTES, (e) => !description && isDescription(e.name), (_e, bytes) => { description = bytes; });
  }
  if (!description) throw new BadRequest('DESCRIPTION file is missing');
  const f = parseDescription((description as Buffer).toString('utf8'));
  if (!NAME.test(f.Package ?? '')) throw new BadRequest('package name is invalid');
  if (!VERSION.test(f.Version ?? '')) throw new BadRequest('package version is invalid');
  return {
    name: f.Package, version: f.Version, isZip,
    metadata: {
      title: f.Title ?? '', description: f.Description ?? '', url: list(f.URL), license: f.License ?? '',
      authors: list((f.Author ?? '').replace(/\[[^\]]*\]/g, '')), depends: list(f.Depends), imports: list(f.Imports), suggests: list(f.Suggests),
      linkingTo: list(f.LinkingTo), needsCompilation: (f.NeedsCompilation ?? '').toLowerCase() === 'yes',
    },
  };
}

/** R's order of versions: components split at `.` and `-`, compared as numbers. */
export function compareRVersions(a: string, b: string): number {
  const pa = a.split(/[.-]/).map(Number);
  const pb = b.split(/[.-]/).map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? -1) - (pb[i] ?? -1);
    if (d !== 0) return d;
  }
  return 0;
}

/** One stanza of PACKAGES. */
export function packagesStanza(name: string, version: string, m: CranMetadata, md5: string): string {
  const lines = [`Package: ${name}`, `Version: ${version}`];
  if (m.license) lines.push(`License: ${m.license}`);
  for (const [field, values] of [['Depends', m.depends], ['Imports', m.imports], ['LinkingTo', m.linkingTo], ['Suggests', m.suggests]] as const) {
    if (values.length) lines.push(`${field}: ${values.join(', ')}`);
  }
  lines.push(`NeedsCompilation: ${m.needsCompilation ? 'yes' : 'no'}`, `MD5sum: ${md5}`);
  return `${lines.join('\n')}\n`;
}
