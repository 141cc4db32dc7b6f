/**
 * What the package pages say per package type (Gitea's templates/package/content/*.tmpl): the
 * type's display name, how to install a version from the registry, the metadata shown beside it,
 * and the registry URL of each file. A new type adds one entry to PACKAGE_PAGES.
 */
import type { PackageType } from '../../config';
import type { CranMetadata } from '../../services/packages/cran';

/** One step of the install instructions: a label (HTML the forge wrote, never user text) and the code to run or write. */
export interface InstallStep { label: string; code: string }

/** The type-specific metadata a version page shows; empty parts are left out. */
export interface PackageMetadata {
  /** "About this package": a title and a description. */
  about: { title: string; description: string } | null;
  /** Dependency kinds, each with its list (CRAN: Imports, Depends, LinkingTo, Suggests). */
  dependencies: { kind: string; items: string[] }[];
  license: string;
  authors: string[];
  /** Project sites (http and https only). */
  links: string[];
  /** Documents shown as text (Go: the go.mod). */
  documents: { heading: string; text: string }[];
}

/** What one type's pages need. */
export interface PackageTypePage {
  /** The type's display name (Gitea's: `Go`, `CRAN`). */
  name: string;
  /** The registry documentation. */
  docs: string;
  /** How to install `name` at `version` from `registry` (the owner's registry of this type, absolute). */
  install(registry: string, name: string, version: string): InstallStep[];
  /** The metadata of a version, from its stored metadata JSON and its properties. */
  metadata(metadataJson: string, props: Record<string, string>): PackageMetadata;
  /** The registry URL that downloads a file of the version. */
  fileUrl(registry: string, name: string, version: string, file: { name: string; compositeKey: string }): string;
}

const none = (): PackageMetadata => ({ about: null, dependencies: [], license: '', authors: [], links: [], documents: [] });

/** A Go module path or version in the proxy protocol's case encoding (`X` is `!x`). */
function goEscape(s: string): string {
  return s.replace(/[A-Z]/g, (c) => `!${c.toLowerCase()}`);
}
const segments = (path: string) => path.split('/').map(encodeURIComponent).join('/');

function parseJson<T>(text: string): Partial<T> {
  try { return (JSON.parse(text) ?? {}) as Partial<T>; } catch { return {}; }
}
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string' && x !== '') : []);

/** Every package type's pages. */
export const PACKAGE_PAGES: Record<PackageType, PackageTypePage> = {
  go: {
    name: 'Go',
    docs: 'https://docs.gitea.com/usage/packages/go',
    install: (registry, name, version) => [{ label: 'Install the package from the command line:', code: `GOPROXY=${registry} go install ${name}@${version}` }],
    metadata: (_json, props) => ({ ...none(), documents: props['go.mod'] ? [{ heading: 'go.mod', text: props['go.mod'] }] : [] }),
    fileUrl: (registry, name, _version, file) => `${registry}/${segments(goEscape(name))}/@v/${encodeURIComponent(goEscape(file.name))}`,
  },
  cran: {
    name: 'CRAN',
    docs: 'https://docs.gitea.com/usage/packages/cran/',
    install: (registry, name) => [
      // why: Gitea's exact R line, so what users copy is what Gitea's page shows them.
      { label: 'Set up this registry in your <code>Rprofile.site</code> file:', code: `options("repos" = c(getOption("repos"), c(gitea="${registry}")))` },
      { label: 'To install the package, run the following command:', code: `install.packages("${name}")` },
    ],
    metadata: (json) => {
      const m = parseJson<CranMetadata>(json);
      const title = typeof m.title === 'string' ? m.title : '';
      const description = typeof m.description === 'string' ? m.description : '';
      return {
        ...none(),
        about: title || description ? { title, description } : null,
        dependencies: ([['Imports', m.imports], ['Depends', m.depends], ['LinkingTo', m.linkingTo], ['Suggests', m.suggests]] as const)
          .map(([kind, items]) => ({ kind, items: strings(items) })).filter((d) => d.items.length > 0),
        license: typeof m.license === 'string' ? m.license : '',
        authors: strings(m.authors),
        // why: a DESCRIPTION's URL field is the uploader's text; only web addresses become links.
        links: strings(m.url).filter((u) => /^https?:\/\//i.test(u)),
      };
    },
    fileUrl: (registry, _name, _version, file) => {
      const [platform, rversion] = file.compositeKey.split('|');
      return file.compositeKey
        ? `${registry}/bin/${encodeURIComponent(platform)}/contrib/${encodeURIComponent(rversion ?? '')}/${encodeURIComponent(file.name)}`
        : `${registry}/src/contrib/${encodeURIComponent(file.name)}`;
    },
  },
};

/** Is `type` a package type the pages know? */
export function isPackageType(type: string): type is PackageType {
  return Object.hasOwn(PACKAGE_PAGES, type);
}

/** A size in IEC units as Gitea shows it (humanize.IBytes: `512 B`, `1.5 KiB`, `15 KiB`). */
export function humanSize(bytes: number): string {
  if (bytes < 10) return `${bytes} B`;
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'];
  const e = Math.min(units.length - 1, Math.floor(Math.log(bytes) / Math.log(1024)));
  const value = Math.floor((bytes / 1024 ** e) * 10 + 0.5) / 10;
  return `${value < 10 ? value.toFixed(1) : value.toFixed(0)} ${units[e]}`;
}
