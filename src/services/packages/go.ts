/**
 * Go modules (the GOPROXY protocol, as Gitea's goproxy registry): an uploaded module zip is checked
 * by the rules the go command holds zips to (every file under `{module}@{version}/`, a valid module
 * path, a canonical semantic version matching the path's major version suffix, no two names equal
 * under case folding, go.mod only at the top and at most 16 MiB, at most 500 MiB unpacked) and
 * stored unchanged as `{version}.zip`: users' go.sum files hold its hash. Its go.mod (or `module
 * {path}` when it has none) is kept as a version property, served as `.mod`.
 */
import semver from 'semver';
import { BadRequest } from '../../errors';
import { readZip } from './archive';

/** The version property that holds a module version's go.mod. */
export const GO_MOD_PROPERTY = 'go.mod';

const MAX_ZIP_BYTES = 500 * 1024 * 1024;
const MAX_GO_MOD_BYTES = 16 * 1024 * 1024;
const MAX_ENTRIES = 100_000;
/** Larger compression ratios than this are refused (a zip bomb, not source code). */
const MAX_RATIO = 1000;

/** The largest module zip accepted (the go command's limit). */
export const GO_MAX_ZIP_BYTES = MAX_ZIP_BYTES;

/** A path element of a module path (golang.org/x/mod/module's rules, simplified to what a proxy needs). */
const ELEMENT = /^[A-Za-z0-9~_+-]+(?:\.[A-Za-z0-9~_+-]+)*$/;

/** Is `path` a valid module path: a lower-case host with a dot first, then path elements? */
export function validModulePath(path: string): boolean {
  if (path.length === 0 || path.length > 500) return false;
  const parts = path.split('/');
  if (!/^[a-z0-9-]+(?:\.[a-z0-9-]+)+$/.test(parts[0]) || parts[0].startsWith('-')) return false;
  return parts.slice(1).every((p) => ELEMENT.test(p) && !p.endsWith('~') && !/^(?:con|prn|aux|nul|com\d|lpt\d)(?:\.|$)/i.test(p));
}

/** The major version a module path's suffix says (`/v2` -> 2; gopkg.in's `.v2` -> 2), or null for v0/v1 paths. */
function pathMajor(path: string): number | null {
  const m = /\/v(\d+)$/.exec(path) ?? (path.startsWith('gopkg.in/') ? /\.v(\d+)(?:-unstable)?$/.exec(path) : null);
  return m ? Number(m[1]) : null;
}

/** Is `version` canonical semver (`v1.2.3`, `v1.2.3-pre`) and does it fit `path`'s major version? */
export function validModuleVersion(path: string, version: string): boolean {
  const incompatible = version.endsWith('+incompatible');
  const bare = incompatible ? version.slice(0, -'+incompatible'.length) : version;
  if (!bare.startsWith('v') || semver.valid(bare.slice(1)) !== bare.slice(1) || bare.includes('+')) return false;
  const major = semver.major(bare.slice(1));
  const wanted = pathMajor(path);
  if (wanted !== null) return !incompatible && (wanted === major || (path.startsWith('gopkg.in/') && wanted <= 1 && major <= 1));
  return incompatible ? major >= 2 : major <= 1;
}

/** `!x` in an escaped module path or version (the proxy protocol's case encoding) is `X`. */
export function unescapeModule(s: string): string | null {
  if (/![^a-z]|!$/.test(s) || /[A-Z]/.test(s)) return null;
  return s.replace(/!([a-z])/g, (_, c: string) => c.toUpperCase());
}

/** What an uploaded module zip is. */
export interface GoModule { path: string; version: string; goMod: string }

/** Check the module zip at `file`; answers its path, version and go.mod (400 with the reason otherwise). */
export async function readGoModuleZip(file: string): Promise<GoModule> {
  let prefix = '';
  let goMod: string | null = null;
  const seen = new Set<string>();
  await readZip(file, { maxEntries: MAX_ENTRIES, maxUnpackedBytes: MAX_ZIP_BYTES, maxRatio: MAX_RATIO }, async (e) => {
    if (e.isDirectory) return;
    if (!prefix) {
      const at = e.name.indexOf('@');
      const slash = e.name.indexOf('/', at);
      if (at < 1 || slash < 0) throw new BadRequest('package has invalid structure');
      prefix = e.name.slice(0, slash + 1);
    }
    if (!e.name.startsWith(prefix)) throw new BadRequest(`package has invalid structure: ${JSON.stringify(e.name)} is not under ${JSON.stringify(prefix)}`);
    const folded = e.name.toLowerCase();
    if (seen.has(folded)) throw new BadRequest(`package has invalid structure: two files named ${JSON.stringify(e.name)} apart from case`);
    seen.add(folded);
    const rest = e.name.slice(prefix.length);
    // why: as the go command's zip rules, go.mod is the module root's only, and lower case.
    if (/(^|\/)go\.mod$/i.test(rest) && rest !== 'go.mod') throw new BadRequest(`package has invalid structure: ${JSON.stringify(e.name)} is not the module's go.mod`);
    if (rest === 'go.mod') goMod = (await e.read(MAX_GO_MOD_BYTES, 'go.mod file')).toString('utf8');
  });
  if (!prefix) throw new BadRequest('package has invalid structure');
  const [path, version] = prefix.slice(0, -1).split('@');
  if (!validModulePath(path)) throw new BadRequest(`invalid module path: ${JSON.stringify(path)}`);
  if (!validModuleVersion(path, version)) throw new BadRequest(`package version is invalid: ${JSON.stringify(version)}`);
  return { path, version, goMod: goMod ?? `module ${path}` };
}

/** The `.info` document of a version. */
export function versionInfo(version: string, createdUnix: number): { Version: string; Time: string } {
  return { Version: version, Time: new Date(createdUnix * 1000).toISOString().replace('.000Z', 'Z') };
}
