/**
 * Access token scopes with Gitea's names: `all`, `public-only`, and `read:`/`write:` + category.
 * write implies read; `all` grants write on every category.
 */
export const SCOPE_CATEGORIES = [
  'activitypub', 'admin', 'issue', 'misc', 'notification', 'organization', 'package', 'repository', 'user',
] as const;
export type ScopeCategory = (typeof SCOPE_CATEGORIES)[number];
export enum ScopeLevel { None = 0, Read = 1, Write = 2 }

/** A parsed, normalized token scope. */
export interface ScopeSet {
  all: boolean;
  publicOnly: boolean;
  levels: Partial<Record<ScopeCategory, ScopeLevel>>;
}

/** Thrown for a scope string that is not one of Gitea's names. */
export class InvalidScope extends Error {}

/** Parse a comma-separated (or array) scope list; throws InvalidScope naming the bad entry. */
export function parseScopes(input: string | string[]): ScopeSet {
  const parts = (Array.isArray(input) ? input : input.split(',')).map((p) => p.trim()).filter(Boolean);
  const set: ScopeSet = { all: false, publicOnly: false, levels: {} };
  for (const p of parts) {
    if (p === 'all') { set.all = true; continue; }
    if (p === 'public-only') { set.publicOnly = true; continue; }
    const m = /^(read|write):([a-z]+)$/.exec(p);
    if (!m || !(SCOPE_CATEGORIES as readonly string[]).includes(m[2])) throw new InvalidScope(`invalid access token scope: ${p}`);
    const cat = m[2] as ScopeCategory;
    const level = m[1] === 'write' ? ScopeLevel.Write : ScopeLevel.Read;
    set.levels[cat] = Math.max(set.levels[cat] ?? ScopeLevel.None, level);
  }
  return set;
}

/** The canonical string stored in the database and returned by the API (sorted, deduplicated). */
export function formatScopes(set: ScopeSet): string {
  const out: string[] = [];
  if (set.all) out.push('all');
  else for (const cat of SCOPE_CATEGORIES) {
    const l = set.levels[cat];
    if (l) out.push(`${l === ScopeLevel.Write ? 'write' : 'read'}:${cat}`);
  }
  if (set.publicOnly) out.push('public-only');
  return out.join(',');
}

/** Does the scope grant at least `level` on `category`? */
export function hasScope(set: ScopeSet, category: ScopeCategory, level: ScopeLevel): boolean {
  if (set.all) return true;
  return (set.levels[category] ?? ScopeLevel.None) >= level;
}

/** The level an HTTP method needs, as Gitea decides it: reads for GET/HEAD/OPTIONS, writes otherwise. */
export function levelForMethod(method: string): ScopeLevel {
  return ['GET', 'HEAD', 'OPTIONS'].includes(method.toUpperCase()) ? ScopeLevel.Read : ScopeLevel.Write;
}
