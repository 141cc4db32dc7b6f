/**
 * Reading app.ini and the FORGE__SECTION__KEY variables into the sections the forge knows, and
 * the warnings for keys it does not know.
 */
import fs from 'node:fs';
import ini from 'ini';
import { ConfigError } from './errors';
import { camel, convert, envName, envSection, type SectionSpec } from './spec';

/** The typed values of every section, and the warnings for unknown keys. */
export interface ReadSections {
  /** The value of one section, as its SectionSpec declares it. */
  get<T>(spec: SectionSpec<T>): T;
  warnings: string[];
}

/** Parse the ini file (when given): its sections as objects, keys before any section at the top. */
export function readIniFile(configPath: string | null): Record<string, unknown> {
  if (!configPath) return {};
  if (!fs.existsSync(configPath)) throw new ConfigError(`config file ${configPath} does not exist`);
  return ini.parse(fs.readFileSync(configPath, 'utf8'));
}

/**
 * Read `sections` from the parsed file and the environment: a variable wins over the file, the file
 * over the default. Throws ConfigError naming the key on a bad value.
 */
export function readSections(sections: SectionSpec<unknown>[], file: Record<string, unknown>, env: NodeJS.ProcessEnv): ReadSections {
  const warnings = unknownKeys(sections, file, env);
  const values = new Map<string, Record<string, unknown>>();
  for (const { name, keys } of sections) {
    const fromFile = fileSection(file, name) ?? {};
    const target: Record<string, unknown> = {};
    for (const [key, spec] of Object.entries(keys)) {
      const fv = fromFile[key];
      let raw = spec.def;
      if (fv !== undefined && typeof fv !== 'object') raw = String(fv);
      const ev = env[envName(name, key)];
      if (ev !== undefined) raw = ev;
      target[camel(key)] = convert(name, key, spec, raw);
    }
    values.set(name, target);
  }
  return { get: <T>(spec: SectionSpec<T>) => values.get(spec.name) as T, warnings };
}

/**
 * The keys of one section in the parsed file. why: the ini package reads `[repository.signing]` as
 * the object `signing` inside `repository`, so a dotted section is found by walking its parts.
 */
function fileSection(file: Record<string, unknown>, name: string): Record<string, unknown> | undefined {
  if (name === '') return file;
  let at: unknown = file;
  for (const part of name.split('.')) {
    at = at && typeof at === 'object' ? (at as Record<string, unknown>)[part] : undefined;
  }
  return at && typeof at === 'object' ? at as Record<string, unknown> : undefined;
}

/** The known key nearest to `key` (a typo of it), if any. */
function nearestKey(key: string, known: string[]): string | null {
  const distance = (a: string, b: string): number => {
    let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
    for (let i = 1; i <= a.length; i++) {
      const row = [i];
      for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = row;
    }
    return prev[b.length];
  };
  let best: string | null = null;
  let bestD = 3;
  for (const k of known) {
    const d = distance(key.toUpperCase(), k);
    if (d < bestD) [best, bestD] = [k, d];
  }
  return best;
}

/**
 * Warnings for keys that sections the forge reads do not have, in the ini file and in
 * FORGE__SECTION__KEY variables, as Gitea warns of unknown keys: a typo is otherwise silently ignored.
 */
function unknownKeys(sections: SectionSpec<unknown>[], file: Record<string, unknown>, env: NodeJS.ProcessEnv): string[] {
  const out: string[] = [];
  const keysOf = new Map(sections.map((s) => [s.name, s.keys]));
  const warn = (sectionName: string, key: string, where: string) => {
    const known = Object.keys(keysOf.get(sectionName)!);
    const hint = nearestKey(key, known);
    const name = sectionName === '' ? key : `[${sectionName}] ${key}`;
    out.push(`${where}: unknown key ${name} is ignored${hint ? ` (did you mean ${hint}?)` : ''}`);
  };
  for (const { name, keys } of sections) {
    const fromFile = fileSection(file, name);
    if (!fromFile) continue;
    for (const [key, value] of Object.entries(fromFile)) {
      // why: an object is a section nested in this one ([repository.signing] in [repository]), not a key.
      if (typeof value === 'object') continue;
      if (!(key in keys)) warn(name, key, 'app.ini');
    }
  }
  const byEnvName = new Map(sections.map((s) => [envSection(s.name), s.name]));
  for (const varName of Object.keys(env)) {
    const m = /^FORGE__(.+?)__(.+)$/.exec(varName);
    const sectionName = m ? byEnvName.get(m[1]) : undefined;
    if (m && sectionName !== undefined && !(m[2] in keysOf.get(sectionName)!)) warn(sectionName, m[2], varName);
  }
  return out;
}
