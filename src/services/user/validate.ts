/**
 * Name and email rules, as Gitea has them: names of users, organizations and teams, email syntax,
 * and the instance's email domain allow/block lists.
 */
import { settings } from '../../config';
import { BadRequest, Validation } from '../../errors';

const NAME_PATTERN = /^[\da-zA-Z][\w.-]*$/;
const BAD_RUNS = /[-._]{2,}|[-._]$/;
const RESERVED = new Set([
  '.', '..', '.well-known', 'admin', 'api', 'assets', 'attachments', 'avatar', 'avatars', 'captcha', 'commits', 'debug',
  'error', 'explore', 'favicon.ico', 'ghost', 'issues', 'login', 'manifest.json', 'metrics', 'milestones', 'new',
  'notifications', 'org', 'pulls', 'raw', 'repo', 'repo-avatars', 'robots.txt', 'search', 'serviceworker.js',
  'ssh_info', 'swagger.v1.json', 'user', 'v2', 'gitea-actions', 'forge-actions',
]);
const RESERVED_SUFFIXES = ['.keys', '.gpg', '.rss', '.atom', '.png', '.git', '.wiki'];

/** Why a user or organization name is not allowed, or null when it is. */
export function usernameProblem(name: string): string | null {
  if (!name) return 'name is empty';
  if (name.length > 40) return 'name is longer than 40 characters';
  if (!NAME_PATTERN.test(name) || BAD_RUNS.test(name)) {
    return 'name must start with a letter or digit and contain only letters, digits, dashes, underscores and dots, without consecutive or trailing punctuation';
  }
  const lower = name.toLowerCase();
  if (RESERVED.has(lower) || RESERVED_SUFFIXES.some((s) => lower.endsWith(s))) return `name is reserved [name: ${name}]`;
  return null;
}

/** Throw 422 when a user or organization name is not allowed. */
export function assertUsername(name: string, field = 'UserName'): void {
  const p = usernameProblem(name);
  if (p) throw new Validation(`[${field}]: ${p}`);
}

const EMAIL = /^[a-zA-Z0-9.!#$%&'*+\-/=?^_`{|}~]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;

/** Throw 422 unless the email address is syntactically valid. */
export function assertEmail(email: string): void {
  if (!email || email.length > 255 || email.startsWith('-') || !EMAIL.test(email)) {
    throw new Validation(`e-mail invalid [email: ${email}]`);
  }
}

function domainMatches(domain: string, pattern: string): boolean {
  if (pattern.startsWith('*.')) return domain.endsWith(pattern.slice(1));
  return domain === pattern;
}

/** Is the email's domain allowed by EMAIL_DOMAIN_ALLOWLIST / EMAIL_DOMAIN_BLOCKLIST? */
export function emailDomainAllowed(email: string): boolean {
  const domain = email.slice(email.lastIndexOf('@') + 1).toLowerCase();
  const { emailDomainAllowlist, emailDomainBlocklist } = settings().service;
  if (emailDomainAllowlist.length > 0) return emailDomainAllowlist.some((p) => domainMatches(domain, p));
  return !emailDomainBlocklist.some((p) => domainMatches(domain, p));
}

/** Throw 422 when a team name is not allowed (Gitea: alphanumerics, dash, dot, underscore; at most 255). */
export function assertTeamName(name: string): void {
  if (!name || name.length > 255 || !/^[\w.-]+$/.test(name)) throw new Validation('[Name]: team name must be valid alpha or numeric or dash(-_) or dot characters');
}

/** Throw 422 when the password is shorter than MIN_PASSWORD_LENGTH. */
export function assertPassword(password: string): void {
  const min = settings().security.minPasswordLength;
  if (typeof password !== 'string' || password.length < min) throw new BadRequest(`password must be at least ${min} characters`);
  if (password.length > 255) throw new BadRequest('password must be at most 255 characters');
}
