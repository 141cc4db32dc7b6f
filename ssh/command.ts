/**
 * The grammar of what an SSH client may ask for, as pure functions (no I/O):
 *
 *   git-upload-pack | git-receive-pack | git-upload-archive  <path>
 *   git-lfs-authenticate  <path>  upload|download
 *   (nothing)                                   -> the greeting
 *
 * where <path> is `owner/repo` or `owner/repo.git`, optionally with one leading `/`, either bare or
 * in single quotes (as git sends it), and both names match ^[A-Za-z0-9_.-]+$ and are not `.`/`..`.
 * `owner/repo.wiki(.git)` names the repository's wiki (git services only).
 * Everything else is refused with a one-line reason; nothing here ever reaches a shell.
 */

/** A git service the client may run. */
export type SshGitService = 'upload-pack' | 'receive-pack' | 'upload-archive';

/** What a well-formed command asks for. */
export type SshCommand =
  | { kind: 'greeting' }
  | { kind: 'git'; service: SshGitService; owner: string; repo: string; wiki?: true }
  | { kind: 'lfs-authenticate'; operation: 'upload' | 'download'; owner: string; repo: string };

/** A refused command; the message is shown to the client on stderr. */
export class CommandRefused extends Error {}

const VERBS: Record<string, SshGitService> = {
  'git-upload-pack': 'upload-pack',
  'git-receive-pack': 'receive-pack',
  'git-upload-archive': 'upload-archive',
};
const LFS_VERB = 'git-lfs-authenticate';
const NAME = /^[A-Za-z0-9_.-]+$/;
/** Characters a word may have outside quotes (and inside them: a quoted word is checked the same way). */
const WORD = /^[A-Za-z0-9_./-]+$/;
const MAX_COMMAND = 1024;

/**
 * Split a command into words: runs of spaces or tabs separate them; a word is either bare or a
 * whole single-quoted string. No escapes, no double quotes, no glued quoting (`a'b'`), no shell
 * characters at all.
 */
export function splitWords(raw: string): string[] {
  if (raw.length > MAX_COMMAND) throw new CommandRefused('Command too long');
  if (/[\0\r\n]/.test(raw)) throw new CommandRefused('Error parsing arguments: control characters');
  const words: string[] = [];
  let i = 0;
  while (i < raw.length) {
    const c = raw[i];
    if (c === ' ' || c === '\t') {
      i++;
      continue;
    }
    let word: string;
    if (c === "'") {
      const end = raw.indexOf("'", i + 1);
      if (end < 0) throw new CommandRefused('Error parsing arguments: unterminated quote');
      word = raw.slice(i + 1, end);
      i = end + 1;
      if (i < raw.length && raw[i] !== ' ' && raw[i] !== '\t') throw new CommandRefused(`Error parsing arguments: unexpected ${JSON.stringify(raw[i])} after a quoted argument`);
      if (word === '') throw new CommandRefused('Error parsing arguments: empty argument');
    } else {
      let end = i;
      while (end < raw.length && raw[end] !== ' ' && raw[end] !== '\t') end++;
      word = raw.slice(i, end);
      i = end;
    }
    const bad = [...word].find((ch) => !WORD.test(ch));
    if (bad !== undefined) throw new CommandRefused(`Error parsing arguments: character ${JSON.stringify(bad)} is not allowed`);
    words.push(word);
  }
  return words;
}

/**
 * Parse `owner/repo(.git)` with an optional leading `/`; `repo.wiki(.git)` is the wiki (`wiki: true`).
 * why: repository names may not end in .wiki, so the suffix always means the wiki.
 */
export function parseRepoPath(path: string): { owner: string; repo: string; wiki?: true } {
  const parts = path.replace(/^\//, '').split('/');
  if (parts.length !== 2) throw new CommandRefused(`Invalid repository path: ${path}`);
  const [owner, withSuffix] = parts;
  let repo = withSuffix.endsWith('.git') ? withSuffix.slice(0, -4) : withSuffix;
  const wiki = /\.wiki$/i.test(repo);
  if (wiki) repo = repo.slice(0, -'.wiki'.length);
  for (const name of [owner, repo]) {
    if (!NAME.test(name) || name === '.' || name === '..' || name.length > 100) throw new CommandRefused(`Invalid repository path: ${path}`);
  }
  return wiki ? { owner, repo, wiki } : { owner, repo };
}

/** Parse an exec request (or the empty command of a shell request). Throws CommandRefused. */
export function parseCommand(raw: string): SshCommand {
  const words = splitWords(raw);
  if (words.length === 0) return { kind: 'greeting' };
  const [verb, ...args] = words;
  const service = VERBS[verb];
  if (service) {
    if (args.length !== 1) throw new CommandRefused(args.length === 0 ? 'Too few arguments' : 'Too many arguments');
    return { kind: 'git', service, ...parseRepoPath(args[0]) };
  }
  if (verb === LFS_VERB) {
    if (args.length < 2) throw new CommandRefused('Too few arguments');
    if (args.length > 2) throw new CommandRefused('Too many arguments');
    const op = args[1];
    // why: unknown LFS operations must never fall through to a default grant (GHSA-7wvc-rvp7-w99x).
    if (op !== 'upload' && op !== 'download') throw new CommandRefused(`Unknown LFS operation: ${op}`);
    const { owner, repo, wiki } = parseRepoPath(args[0]);
    // why: wikis have no LFS storage of their own; a token for the wiki would be one for the code.
    if (wiki) throw new CommandRefused('LFS is not available for wikis');
    return { kind: 'lfs-authenticate', operation: op, owner, repo };
  }
  throw new CommandRefused(`Unknown git command: ${verb}`);
}

/** What to do with an `env` request. */
export type EnvDecision =
  | { action: 'use'; gitProtocol: string }
  | { action: 'ignore' }
  | { action: 'refuse'; reason: string };

const GIT_PROTOCOL = /^version=[0-2](:[A-Za-z0-9_.=-]+)*$/;
/** Locale variables OpenSSH sends by default (Debian's `SendEnv LANG LC_*`) and colour hints: dropped quietly. */
const HARMLESS = /^(LANG|LANGUAGE|LC_[A-Z_]+|COLORTERM|NO_COLOR|TERM)$/;

/**
 * Only GIT_PROTOCOL (well-formed) is used. Locale and terminal variables that stock clients send
 * on their own are dropped without effect; any other variable refuses the session, so an attempt
 * such as LD_PRELOAD or GIT_CONFIG_* fails loudly instead of silently.
 */
export function decideEnv(name: string, value: string): EnvDecision {
  if (name === 'GIT_PROTOCOL') {
    return GIT_PROTOCOL.test(value) ? { action: 'use', gitProtocol: value } : { action: 'refuse', reason: 'Invalid GIT_PROTOCOL value' };
  }
  if (HARMLESS.test(name)) return { action: 'ignore' };
  const shown = /^[A-Za-z0-9_]{1,64}$/.test(name) ? name : JSON.stringify(name.slice(0, 64));
  return { action: 'refuse', reason: `Environment variable ${shown} is not accepted (only GIT_PROTOCOL)` };
}
