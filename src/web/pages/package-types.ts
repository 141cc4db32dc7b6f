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
  /** "Repository Info" of the Linux formats: where the version's files are (Distributions: bookworm, ...). */
  repository: { label: string; values: string[] }[];
}

/** What one type's pages need. */
export interface PackageTypePage {
  /** The type's display name (Gitea's: `Go`, `CRAN`). */
  name: string;
  /** The registry documentation. */
  docs: string;
  /** How to install `name` at `version` from `registry` (the owner's registry of this type, absolute), by `owner` (its name) and where the files are. */
  install(registry: string, name: string, version: string, owner: string, fileProps: Record<string, string>[]): InstallStep[];
  /** The metadata of a version, from its stored metadata JSON, its properties and its files' properties. */
  metadata(metadataJson: string, props: Record<string, string>, fileProps: Record<string, string>[]): PackageMetadata;
  /** The registry URL that downloads a file of the version. */
  fileUrl(registry: string, name: string, version: string, file: { name: string; compositeKey: string }): string;
}

const none = (): PackageMetadata => ({ about: null, dependencies: [], license: '', authors: [], links: [], documents: [], repository: [] });

/** The sorted distinct values of a file property, for "Repository Info". */
const valuesOf = (fileProps: Record<string, string>[], name: string) => [...new Set(fileProps.map((p) => p[name]).filter((v) => v !== undefined))].sort();

/** A Go module path or version in the proxy protocol's case encoding (`X` is `!x`). */
function goEscape(s: string): string {
  return s.replace(/[A-Z]/g, (c) => `!${c.toLowerCase()}`);
}
const segments = (path: string) => path.split('/').map(encodeURIComponent).join('/');

function parseJson<T>(text: string): Partial<T> {
  try { return (JSON.parse(text) ?? {}) as Partial<T>; } catch { return {}; }
}
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string' && x !== '') : []);
const text = (v: unknown): string => (typeof v === 'string' ? v : '');
/** The uploader's project addresses that may become links: http and https only. */
const webLinks = (urls: string[]) => urls.filter((u) => /^https?:\/\//i.test(u));

/** A Debian Description: its first line is the synopsis; the rest is indented by one space, ` .` standing for an empty line. */
function debianAbout(text: string): PackageMetadata['about'] {
  if (!text) return null;
  const [title, ...rest] = text.split('\n');
  return { title: title.trim(), description: rest.map((l) => (/^\s\.\s*$/.test(l) ? '' : l.replace(/^\s/, ''))).join('\n') };
}

/** The metadata of a Debian version (Gitea's: maintainer, project site, description, dependencies). */
function debianMetadata(json: string, _props: Record<string, string>, fileProps: Record<string, string>[]): PackageMetadata {
  const m = parseJson<{ maintainer: string; project_url: string; description: string; dependencies: string[] }>(json);
  return {
    ...none(),
    about: debianAbout(text(m.description)),
    dependencies: strings(m.dependencies).length ? [{ kind: 'Depends', items: strings(m.dependencies) }] : [],
    authors: text(m.maintainer) ? [text(m.maintainer)] : [],
    links: webLinks([text(m.project_url)]),
    repository: [['Distributions', 'debian.distribution'], ['Components', 'debian.component'], ['Architectures', 'debian.architecture']]
      .map(([label, name]) => ({ label, values: valuesOf(fileProps, name) })),
  };
}

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
      const title = text(m.title);
      const description = text(m.description);
      return {
        ...none(),
        about: title || description ? { title, description } : null,
        dependencies: ([['Imports', m.imports], ['Depends', m.depends], ['LinkingTo', m.linkingTo], ['Suggests', m.suggests]] as const)
          .map(([kind, items]) => ({ kind, items: strings(items) })).filter((d) => d.items.length > 0),
        license: text(m.license),
        authors: strings(m.authors),
        // why: a DESCRIPTION's URL field is the uploader's text; only web addresses become links.
        links: webLinks(strings(m.url)),
      };
    },
    fileUrl: (registry, _name, _version, file) => {
      const [platform, rversion] = file.compositeKey.split('|');
      return file.compositeKey
        ? `${registry}/bin/${encodeURIComponent(platform)}/contrib/${encodeURIComponent(rversion ?? '')}/${encodeURIComponent(file.name)}`
        : `${registry}/src/contrib/${encodeURIComponent(file.name)}`;
    },
  },
  debian: {
    name: 'Debian',
    docs: 'https://docs.gitea.com/usage/packages/debian/',
    install: (registry, name, version, owner) => {
      const keyring = `/etc/apt/keyrings/gitea-${owner}.asc`;
      return [
        {
          label: 'Set up this registry from the command line (choose <code>$distribution</code> and <code>$component</code> from the Repository Info):',
          code: `sudo curl ${registry}/repository.key -o ${keyring}\necho "deb [signed-by=${keyring}] ${registry} $distribution $component" | sudo tee -a /etc/apt/sources.list.d/gitea.list\nsudo apt update`,
        },
        { label: 'To install the package, run the following command:', code: `sudo apt install ${name}=${version}` },
      ];
    },
    metadata: debianMetadata,
    fileUrl: (registry, _name, _version, file) => {
      const [dist, component] = file.compositeKey.split('|');
      return `${registry}/pool/${encodeURIComponent(dist)}/${encodeURIComponent(component ?? '')}/${encodeURIComponent(file.name)}`;
    },
  },
  rpm: {
    name: 'RPM',
    docs: 'https://docs.gitea.com/usage/packages/rpm/',
    install: (registry, name, _version, _owner, fileProps) => {
      const groups = valuesOf(fileProps, 'rpm.group');
      const repoFiles = (groups.length ? groups : ['']).map((g) => `${registry}${g ? `/${g.split('/').map(encodeURIComponent).join('/')}` : ''}.repo`);
      return [
        { label: 'Set up this registry on RedHat based distributions (dnf):', code: repoFiles.map((u) => `dnf config-manager --add-repo ${u}`).join('\n') },
        { label: 'Set up this registry on SUSE based distributions (zypper):', code: repoFiles.map((u) => `zypper addrepo ${u}`).join('\n') },
        { label: 'To install the package, run the following command:', code: `dnf install ${name}\nzypper install ${name}` },
      ];
    },
    metadata: (json, _props, fileProps) => {
      const m = parseJson<{ summary: string; description: string; license: string; project_url: string }>(json);
      return {
        ...none(),
        about: text(m.summary) || text(m.description) ? { title: text(m.summary), description: text(m.description) } : null,
        license: text(m.license),
        links: webLinks([text(m.project_url)]),
        repository: [{ label: 'Architectures', values: valuesOf(fileProps, 'rpm.architecture') }],
      };
    },
    fileUrl: (registry, name, version, file) => {
      const arch = /\.([^.]+)\.rpm$/.exec(file.name)?.[1] ?? '';
      const group = file.compositeKey;
      return `${registry}${group ? `/${group.split('/').map(encodeURIComponent).join('/')}` : ''}/package/${encodeURIComponent(name)}/${encodeURIComponent(version)}/${encodeURIComponent(arch)}`;
    },
  },
  alpine: {
    name: 'Alpine',
    docs: 'https://docs.gitea.com/usage/packages/alpine/',
    install: (registry, name, version) => [
      {
        label: 'Set up this registry by adding the url in your <code>/etc/apk/repositories</code> file (choose <code>$branch</code> and <code>$repository</code> from the Repository Info):',
        code: `${registry}/$branch/$repository`,
      },
      { label: 'Download the registry public RSA key into the <code>/etc/apk/keys/</code> folder to verify the index signature:', code: `curl -JO ${registry}/key` },
      { label: 'To install the package, run the following command:', code: `sudo apk add ${name}=${version}` },
    ],
    metadata: (json, _props, fileProps) => {
      const m = parseJson<{ description: string; license: string; project_url: string; maintainer: string }>(json);
      return {
        ...none(),
        about: text(m.description) ? { title: '', description: text(m.description) } : null,
        license: text(m.license),
        authors: text(m.maintainer) ? [text(m.maintainer)] : [],
        links: webLinks([text(m.project_url)]),
        repository: [['Branches', 'alpine.branch'], ['Repositories', 'alpine.repository'], ['Architectures', 'alpine.architecture']]
          .map(([label, name]) => ({ label, values: valuesOf(fileProps, name) })),
      };
    },
    fileUrl: (registry, _name, _version, file) => `${registry}/${file.compositeKey.split('|').map(encodeURIComponent).join('/')}/${encodeURIComponent(file.name)}`,
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
