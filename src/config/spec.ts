/**
 * The table every section file describes its keys in, and the conversion of a key's raw text
 * (from app.ini or a FORGE__SECTION__KEY variable) to its typed value.
 */
import { ConfigError } from './errors';
import { parseGoDuration } from './duration';

/** How a key's text is read. */
export type Kind = 'string' | 'int' | 'bool' | 'list' | 'url' | 'duration' | 'bytes';

/** One key: its kind, its default (as app.ini text) and its bounds. */
export interface KeySpec {
  kind: Kind;
  def: string;
  /** Allowed values for an enum-like string key. */
  oneOf?: string[];
  min?: number;
  max?: number;
  /** Keep the case of list items (paths); other lists are lower-cased. */
  keepCase?: boolean;
  /** An enum-like string key whose value is matched and kept lower-cased (Gitea's `LEVEL = Info`). */
  ignoreCase?: boolean;
}

/**
 * One app.ini section: its name (`''` for the keys before any section) and its keys. The loader
 * reads it into an object with a camel-cased property per key (`HTTP_PORT` -> `httpPort`), of type T.
 */
export interface SectionSpec<T> {
  name: string;
  keys: Record<string, KeySpec>;
  /** Only carries T for the loader's typing; never set. */
  readonly shape?: T;
}

/** Declare a section whose keys read into an object of type T. */
export function section<T>(name: string, keys: Record<string, KeySpec>): SectionSpec<T> {
  return { name, keys };
}

/** The FORGE__SECTION__KEY variable of a key (a dot in a section is written _0X2E_, as Gitea's env-to-ini does). */
export function envName(sectionName: string, key: string): string {
  return `FORGE__${envSection(sectionName)}__${key}`;
}

/** The section part of a key's variable name. */
export function envSection(sectionName: string): string {
  return sectionName === '' ? 'DEFAULT' : sectionName.toUpperCase().replace(/\./g, '_0X2E_');
}

/** The property a key reads into: `HTTP_PORT` -> `httpPort`. */
export function camel(key: string): string {
  return key.toLowerCase().replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** The typed value of a key's raw text; throws ConfigError naming the key when the text does not fit. */
export function convert(sectionName: string, key: string, spec: KeySpec, raw: string): unknown {
  const where = sectionName === '' ? key : `[${sectionName}] ${key}`;
  const value = raw.trim();
  switch (spec.kind) {
    case 'int': {
      if (value === '') return undefined;
      if (!/^-?\d+$/.test(value)) throw new ConfigError(`${where}: "${raw}" is not an integer`);
      const n = Number(value);
      if ((spec.min !== undefined && n < spec.min) || (spec.max !== undefined && n > spec.max)) {
        throw new ConfigError(`${where}: ${n} is outside ${spec.min}..${spec.max}`);
      }
      return n;
    }
    case 'bool': {
      const v = value.toLowerCase();
      if (['true', '1', 'yes', 'on'].includes(v)) return true;
      if (['false', '0', 'no', 'off', ''].includes(v)) return false;
      throw new ConfigError(`${where}: "${raw}" is not a boolean (true/false)`);
    }
    case 'list':
      return value === '' ? [] : value.split(',').map((s) => (spec.keepCase ? s.trim() : s.trim().toLowerCase())).filter(Boolean);
    case 'duration': {
      // why: Gitea writes durations as Go does ("60s", "1m30s"); a bare number is seconds.
      if (value === '') return undefined;
      const n = /^\d+$/.test(value) ? Number(value) : parseGoDuration(value) ?? NaN;
      if (!Number.isFinite(n)) throw new ConfigError(`${where}: "${raw}" is not a duration (e.g. 60s, 5m, 1h)`);
      if ((spec.min !== undefined && n < spec.min) || (spec.max !== undefined && n > spec.max)) {
        throw new ConfigError(`${where}: ${n}s is outside ${spec.min}..${spec.max} seconds`);
      }
      return n;
    }
    case 'bytes': {
      // why: Gitea reads sizes with go-humanize: "1 MB" is 10^6 bytes, "1 MiB" 2^20; -1 means no limit.
      if (value === '') return undefined;
      const n = parseByteSize(value);
      if (n === null || (spec.min !== undefined && n < spec.min)) throw new ConfigError(`${where}: "${raw}" is not a size (e.g. 500 MiB, 2 GB, -1)`);
      return n;
    }
    case 'url':
      if (value !== '') {
        try {
          const u = new URL(value);
          if (!['http:', 'https:'].includes(u.protocol)) throw new Error('scheme');
        } catch {
          throw new ConfigError(`${where}: "${raw}" is not an http(s) URL`);
        }
      }
      return value;
    default: {
      const v = spec.ignoreCase ? value.toLowerCase() : value;
      if (spec.oneOf && !spec.oneOf.includes(v)) {
        throw new ConfigError(`${where}: "${raw}" is not one of ${spec.oneOf.map((o) => o || '""').join(', ')}${spec.ignoreCase ? ' (in any case)' : ''}`);
      }
      return v;
    }
  }
}

const BYTE_UNITS: Record<string, number> = {
  '': 1, b: 1, k: 1e3, kb: 1e3, m: 1e6, mb: 1e6, g: 1e9, gb: 1e9, t: 1e12, tb: 1e12,
  ki: 2 ** 10, kib: 2 ** 10, mi: 2 ** 20, mib: 2 ** 20, gi: 2 ** 30, gib: 2 ** 30, ti: 2 ** 40, tib: 2 ** 40,
};

/** A size as go-humanize reads it (`500 MiB`, `2GB`, `1024`; `-1`), in bytes, or null. */
export function parseByteSize(text: string): number | null {
  if (text.trim() === '-1') return -1;
  const m = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i.exec(text.trim());
  const unit = m ? BYTE_UNITS[m[2].toLowerCase()] : undefined;
  return m && unit !== undefined ? Math.floor(Number(m[1]) * unit) : null;
}
