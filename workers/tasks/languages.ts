/**
 * Bytes per language of a commit's tree, in the spirit of linguist/enry as Gitea uses them: files are
 * classified by name and extension; vendored, documentation and dot files are left out, and only
 * programming and markup languages count (data and prose formats do not). Cached per commit id.
 */
import { walkTree } from '../../src/git/objects';

type Kind = 'programming' | 'markup' | 'data' | 'prose';

// why: a compact extension table instead of a dependency; the common languages cover almost every repository.
const LANGS: [string, Kind, string[]][] = [
  ['Go', 'programming', ['.go']], ['TypeScript', 'programming', ['.ts', '.cts', '.mts']], ['TSX', 'programming', ['.tsx']],
  ['JavaScript', 'programming', ['.js', '.cjs', '.mjs', '.jsx']], ['Python', 'programming', ['.py', '.pyi', '.pyw']],
  ['Java', 'programming', ['.java']], ['Kotlin', 'programming', ['.kt', '.kts']], ['Scala', 'programming', ['.scala', '.sc']],
  ['C', 'programming', ['.c', '.h']], ['C++', 'programming', ['.cpp', '.cc', '.cxx', '.hpp', '.hh', '.hxx', '.c++', '.h++']],
  ['C#', 'programming', ['.cs']], ['Rust', 'programming', ['.rs']], ['Ruby', 'programming', ['.rb', '.rake', '.gemspec']],
  ['PHP', 'programming', ['.php']], ['Shell', 'programming', ['.sh', '.bash', '.zsh', '.ksh']], ['PowerShell', 'programming', ['.ps1', '.psm1']],
  ['Swift', 'programming', ['.swift']], ['Objective-C', 'programming', ['.m']], ['Dart', 'programming', ['.dart']],
  ['Lua', 'programming', ['.lua']], ['Perl', 'programming', ['.pl', '.pm']], ['R', 'programming', ['.r']],
  ['Haskell', 'programming', ['.hs']], ['Elixir', 'programming', ['.ex', '.exs']], ['Erlang', 'programming', ['.erl', '.hrl']],
  ['Clojure', 'programming', ['.clj', '.cljs', '.cljc']], ['OCaml', 'programming', ['.ml', '.mli']], ['F#', 'programming', ['.fs', '.fsx']],
  ['Zig', 'programming', ['.zig']], ['Nim', 'programming', ['.nim']], ['Julia', 'programming', ['.jl']], ['Groovy', 'programming', ['.groovy', '.gradle']],
  ['Vue', 'markup', ['.vue']], ['Svelte', 'markup', ['.svelte']], ['HTML', 'markup', ['.html', '.htm', '.xhtml']],
  ['CSS', 'markup', ['.css']], ['SCSS', 'markup', ['.scss']], ['Less', 'markup', ['.less']], ['Sass', 'markup', ['.sass']],
  ['Go Template', 'markup', ['.tmpl', '.gotmpl']], ['SQL', 'data', ['.sql']], ['Makefile', 'programming', ['.mk', '.mak']],
  ['Dockerfile', 'programming', ['.dockerfile']], ['Vim Script', 'programming', ['.vim']], ['Assembly', 'programming', ['.asm', '.s']],
  ['Markdown', 'prose', ['.md', '.markdown']], ['Text', 'prose', ['.txt']], ['JSON', 'data', ['.json']], ['YAML', 'data', ['.yml', '.yaml']],
  ['TOML', 'data', ['.toml']], ['XML', 'data', ['.xml']], ['INI', 'data', ['.ini', '.cfg']],
];
const BY_NAME: Record<string, [string, Kind]> = { Makefile: ['Makefile', 'programming'], Dockerfile: ['Dockerfile', 'programming'], Rakefile: ['Ruby', 'programming'], Gemfile: ['Ruby', 'programming'] };
const BY_EXT = new Map<string, [string, Kind]>();
for (const [name, kind, exts] of LANGS) for (const e of exts) BY_EXT.set(e, [name, kind]);

const VENDORED = /(^|\/)(node_modules|vendor|third[_-]party|bower_components|\.yarn)\//i;
const DOCS = /(^|\/)(docs?|documentation)\//i;

/** The language of a path and its kind, or null. */
export function languageOf(path: string): [string, Kind] | null {
  const base = path.slice(path.lastIndexOf('/') + 1);
  if (BY_NAME[base]) return BY_NAME[base];
  const dot = base.lastIndexOf('.');
  return dot > 0 ? BY_EXT.get(base.slice(dot).toLowerCase()) ?? null : null;
}

const cache = new Map<string, Record<string, number>>();

/** Arguments of languageStats. */
export interface LanguageStatsArgs { gitDir: string; commitId: string }

/** Bytes per language of the tree of `commitId` (largest first). */
export async function languageStats({ gitDir, commitId }: LanguageStatsArgs): Promise<Record<string, number>> {
  const key = `${gitDir}\0${commitId}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const sizes = new Map<string, number>();
  // why: streamed and bounded (walkTree); a tree past the bound is counted as far as it was read.
  await walkTree(gitDir, commitId, true, (e) => {
    if (e.type !== 'blob' || e.mode === '120000') return;
    if (VENDORED.test(e.path) || DOCS.test(e.path) || e.path.split('/').some((s) => s.startsWith('.'))) return;
    const lang = languageOf(e.path);
    if (!lang || (lang[1] !== 'programming' && lang[1] !== 'markup')) return;
    sizes.set(lang[0], (sizes.get(lang[0]) ?? 0) + e.size);
  });
  const out: Record<string, number> = {};
  for (const [k, v] of [...sizes].sort((a, b) => b[1] - a[1])) out[k] = v;
  cache.set(key, out);
  if (cache.size > 256) cache.delete(cache.keys().next().value as string);
  return out;
}
