/**
 * The credentials of a mirror's remote: stored sealed with the instance secret (never in a URL, a
 * git config, a log line or an answer), opened only to hand to git for one command.
 */
import { open, seal } from '../auth/secret-box';

/** A remote's user name and password (a token is the password). */
export interface Credentials { username: string; password: string }

/** The stored form ('' when there is nothing to keep). */
export function sealCredentials(c: Credentials): string {
  return c.username || c.password ? seal(JSON.stringify({ u: c.username, p: c.password })) : '';
}

/** The credentials of a stored form (empty when none, or when the instance secret changed). */
export function openCredentials(sealed: string): Credentials {
  const text = open(sealed);
  if (!text) return { username: '', password: '' };
  const v = JSON.parse(text) as { u?: string; p?: string };
  return { username: v.u ?? '', password: v.p ?? '' };
}

/**
 * `text` with every credential taken out: URL userinfo becomes Gitea's `sanitized-credential`, and
 * the password (or token), wherever else it appears, `[REDACTED]`.
 */
export function scrubSecrets(text: string, c: Credentials): string {
  let out = text.replace(/(\b[a-z][a-z0-9+.-]*:\/\/)[^/@\s]+@/gi, '$1sanitized-credential@');
  if (c.password) out = out.split(c.password).join('[REDACTED]');
  return out;
}

/** Why a sync or push failed, as it may be stored and shown: git's last lines (or the refusal of the address), without any credential. */
export function failureText(err: unknown, c: Credentials): string {
  const e = err as { stderr?: string; problem?: string; message?: string };
  const text = e.problem ? `the remote address is not allowed (${e.problem})` : (e.stderr?.trim() || e.message || String(err));
  return scrubSecrets(text.split('\n').slice(-5).join('\n'), c);
}
