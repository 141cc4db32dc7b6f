/**
 * A repository's issue templates and issue config, read from its default branch's head as Gitea's
 * services/issue/template.go does: the template directories in Gitea's order, each directory's
 * `.md`/`.yaml`/`.yml` files in tree order, and the first config file found. Templates are parsed
 * and checked in ./template-parse; the config (small) is parsed and checked here.
 */
import type { DbContext } from '../../db';
import type { IssueConfig, IssueTemplate } from '../../api/issue-template';
import { entriesAt, listDir, readBlob, readBlobHead, type TreeEntry } from '../../git/objects';
import { WeightedLru } from '../../git/lru';
import { repoPath } from '../../git/paths';
import { branchHead } from '../content/refs';
import type { RepoContext } from '../repo/context';
import { branchRef, decodeYaml, parseTemplate, templateKind, type ParsedTemplate } from './template-parse';

/** Where templates are looked for, in order. */
export const TEMPLATE_DIRS = [
  'ISSUE_TEMPLATE', 'issue_template', '.gitea/ISSUE_TEMPLATE', '.gitea/issue_template',
  '.github/ISSUE_TEMPLATE', '.github/issue_template', '.gitlab/ISSUE_TEMPLATE', '.gitlab/issue_template',
];

/**
 * Where the issue config is looked for, in order (`.yaml` before `.yml`): Gitea's files, with the
 * forge's own `.gitea/issue_config.yaml` after Gitea's `.gitea` ones and before `.github`'s.
 * why: the forge's documentation names `.gitea/issue_config.yaml`; a repository that also has
 * Gitea's file keeps Gitea's meaning.
 */
export const CONFIG_FILES = [
  ...['.gitea/ISSUE_TEMPLATE', '.gitea/issue_template'].flatMap((dir) => [`${dir}/config.yaml`, `${dir}/config.yml`]),
  '.gitea/issue_config.yaml', '.gitea/issue_config.yml',
  ...['.github/ISSUE_TEMPLATE', '.github/issue_template'].flatMap((dir) => [`${dir}/config.yaml`, `${dir}/config.yml`]),
];

/**
 * Gitea's [ui] MAX_DISPLAY_FILE_SIZE default (8 MiB): larger template files are refused.
 * why: the forge has no [ui] MAX_DISPLAY_FILE_SIZE setting yet, so Gitea's default is used.
 */
export const MAX_DISPLAY_FILE_SIZE = 8 * 1024 * 1024;

// why: a large form takes a while to parse, and a blob id fixes its bytes: each file (id and path,
// the name counts too) is parsed once per process. The result depends on nothing else.
const parsedTemplates = new WeightedLru<{ r: ParsedTemplate; size: number }>(32 * 1024 * 1024, (v) => v.size + 1024);

// why: as later Gitea, at most 1 MiB of a config file is read (a bigger one fails to parse).
const MAX_CONFIG_READ = 1024 * 1024;

/** The issue config without a config file: blank issues allowed, no contact links. */
export function defaultIssueConfig(): IssueConfig {
  return { blank_issues_enabled: true, contact_links: [] };
}

/** An issue config, or (with the default config) why the file was refused. */
export interface ParsedConfig { config: IssueConfig; error: string | null }

/** Parse and check an issue config file: YAML, then every contact link's name, url and about. */
export function parseIssueConfig(content: Buffer): ParsedConfig {
  const cfg = defaultIssueConfig();
  const refuse = (error: string): ParsedConfig => ({ config: defaultIssueConfig(), error });
  const err = decodeYaml(content.toString('utf8'), (d, root) => {
    for (const [k, v] of d.pairs(root, 'structs.IssueConfig') ?? []) {
      if (k === 'blank_issues_enabled') cfg.blank_issues_enabled = d.bool(v) ?? cfg.blank_issues_enabled;
      if (k !== 'contact_links') continue;
      const items = d.seq(v, '[]structs.IssueConfigContactLink');
      if (items === undefined) continue;
      cfg.contact_links = items && items.map((item) => {
        const link = { name: '', url: '', about: '' };
        for (const [lk, lv] of d.pairs(item, 'structs.IssueConfigContactLink') ?? []) {
          if (lk === 'name' || lk === 'url' || lk === 'about') link[lk] = d.str(lv) ?? link[lk];
        }
        return link;
      });
    }
  });
  if (err) return refuse(err);
  for (const [i, link] of (cfg.contact_links ?? []).entries()) {
    for (const key of ['name', 'url', 'about'] as const) {
      if (link[key] === '') return refuse(`contact_link at position ${i + 1} is missing ${key} key`);
    }
    if (!isRequestUri(link.url)) return refuse(`${link.url} is not a valid URL`);
  }
  return { config: cfg, error: null };
}

const HOST_OK = /^[A-Za-z0-9\-_.~!$&'()*+,;=:[\]<>"]$/;

/** Go's url unescape checks: every % starts a hex pair; hosts take only %-escaped non-ASCII (or %25) and no odd ASCII. */
function escapesOk(s: string, mode: 'path' | 'host' | 'zone' | 'user'): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '%') {
      const hex = s.slice(i + 1, i + 3);
      if (!/^[0-9A-Fa-f]{2}$/.test(hex)) return false;
      const v = parseInt(hex, 16);
      if (mode === 'host' && v < 0x80 && hex !== '25') return false;
      if (mode === 'zone' && hex !== '25' && v !== 0x20 && !HOST_OK.test(String.fromCharCode(v))) return false;
      i += 2;
    } else if ((mode === 'host' || mode === 'zone') && c.charCodeAt(0) < 0x80 && !HOST_OK.test(c)) {
      return false;
    }
  }
  return true;
}

const validPort = (p: string) => p === '' || /^:[0-9]*$/.test(p);

function hostOk(host: string): boolean {
  if (host.startsWith('[')) {
    const i = host.lastIndexOf(']');
    if (i < 0 || !validPort(host.slice(i + 1))) return false;
    const zone = host.slice(0, i).indexOf('%25');
    if (zone >= 0) return escapesOk(host.slice(0, zone), 'host') && escapesOk(host.slice(zone, i), 'zone') && escapesOk(host.slice(i), 'host');
  } else if (host.includes(':') && !validPort(host.slice(host.lastIndexOf(':')))) {
    return false;
  }
  return escapesOk(host, 'host');
}

/** Does Go's url.ParseRequestURI accept `s` (an absolute URI or an absolute path)? */
export function isRequestUri(s: string): boolean {
  if (s === '' || [...s].some((c) => c < ' ' || c === '\x7f')) return false;
  if (s === '*') return true;
  const m = /^[A-Za-z][A-Za-z0-9+.-]*:|^:/.exec(s);
  if (m?.[0] === ':') return false;
  const scheme = m ? m[0].slice(0, -1) : '';
  let rest = m ? s.slice(m[0].length) : s;
  rest = rest.endsWith('?') && rest.indexOf('?') === rest.length - 1 ? rest.slice(0, -1) : rest.split('?')[0];
  if (!rest.startsWith('/')) return scheme !== '';
  if (scheme && rest.startsWith('//')) {
    const slash = rest.indexOf('/', 2);
    const authority = slash < 0 ? rest.slice(2) : rest.slice(2, slash);
    rest = slash < 0 ? '' : rest.slice(slash);
    const at = authority.lastIndexOf('@');
    if (!hostOk(authority.slice(at + 1))) return false;
    const user = at < 0 ? '' : authority.slice(0, at);
    if (at >= 0 && (!/^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/.test(user) || !escapesOk(user, 'user'))) return false;
  }
  return escapesOk(rest, 'path');
}

/** The templates of the default branch (null when none) and why each refused file was refused, by path. */
export interface TemplateList { templates: IssueTemplate[] | null; errors: Map<string, string> }

/** The git directory and the default branch's head; `commit` is null when the branch is missing; null for an empty repository. */
async function defaultHead(rc: RepoContext): Promise<{ gitDir: string; commit: string | null } | null> {
  if (rc.repo.isEmpty) return null;
  const gitDir = repoPath(rc.owner.name, rc.repo.name);
  return { gitDir, commit: await branchHead(gitDir, rc.repo.defaultBranch) };
}

async function readTemplate(gitDir: string, e: TreeEntry): Promise<ParsedTemplate> {
  // why: Gitea reads a submodule (or a directory) named like a template as a blob and fails; so do we.
  if (e.type !== 'blob') return { error: `${e.path}: not a file` };
  if (e.size > MAX_DISPLAY_FILE_SIZE) return { error: `too large: ${e.size} > MaxDisplayFileSize` };
  const key = `${e.oid}\0${e.path}`;
  const kept = parsedTemplates.get(key);
  if (kept) return kept.r;
  const r = parseTemplate(e.path, await readBlob(gitDir, e.oid));
  parsedTemplates.set(key, { r, size: e.size });
  return r;
}

/**
 * Every template of the default branch's head, in Gitea's order, with its ref made a full ref
 * (`refs/heads/` is added to anything not under `refs/`). Files that fail to parse or check are
 * left out and reported in `errors`. An empty repository or a missing default branch has none.
 */
export async function listIssueTemplates(rc: RepoContext): Promise<TemplateList> {
  const errors = new Map<string, string>();
  const head = await defaultHead(rc);
  if (!head?.commit) return { templates: null, errors };
  const { gitDir, commit } = head;
  const dirs = await entriesAt(gitDir, commit, TEMPLATE_DIRS);
  let templates: IssueTemplate[] | null = null;
  for (const dir of TEMPLATE_DIRS) {
    if (dirs.get(dir)?.type !== 'tree') continue;
    for (const e of await listDir(gitDir, commit, dir)) {
      if (templateKind(e.path) === '') continue;
      const r = await readTemplate(gitDir, e);
      if ('error' in r) errors.set(e.path, r.error);
      else (templates ??= []).push({ ...r.template, ref: branchRef(r.template.ref) });
    }
  }
  return { templates, errors };
}

/**
 * The issue config of the default branch's head. On any problem the default config comes back
 * with the reason (Gitea's GET /issue_config shows the default, /issue_config/validate the reason).
 */
export async function loadIssueConfig(rc: RepoContext): Promise<ParsedConfig> {
  const head = await defaultHead(rc);
  if (!head) return { config: defaultIssueConfig(), error: null };
  if (!head.commit) return { config: defaultIssueConfig(), error: `object does not exist [id: refs/heads/${rc.repo.defaultBranch}, rel_path: ]` };
  const found = await entriesAt(head.gitDir, head.commit, CONFIG_FILES);
  const file = CONFIG_FILES.find((p) => found.has(p));
  const e = file ? found.get(file)! : undefined;
  if (!e) return { config: defaultIssueConfig(), error: null };
  // why: Gitea cannot read a submodule's object and then quietly keeps the default; a directory fails to parse.
  if (e.type === 'commit') return { config: defaultIssueConfig(), error: null };
  if (e.type === 'tree') return { config: defaultIssueConfig(), error: `${e.path}: not a file` };
  const data = e.size <= MAX_CONFIG_READ ? await readBlob(head.gitDir, e.oid) : await readBlobHead(head.gitDir, e.oid, MAX_CONFIG_READ);
  return parseIssueConfig(data);
}

/**
 * May an issue be opened blank (not from a template)? False only when the config says
 * `blank_issues_enabled: false` and the default branch has templates or contact links (Gitea's
 * HasTemplatesOrContactLinks). Gitea applies this in the web UI's new-issue page alone (it
 * redirects to the template chooser unless a template was picked); its API never refuses.
 */
export async function blankIssueAllowed(_ctx: DbContext, rc: RepoContext): Promise<boolean> {
  const { config } = await loadIssueConfig(rc);
  if (config.blank_issues_enabled) return true;
  if ((config.contact_links ?? []).length > 0) return false;
  const { templates } = await listIssueTemplates(rc);
  return !templates?.length;
}
