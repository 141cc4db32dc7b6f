/**
 * Issue templates parsed and checked as Gitea 1.24 does (modules/issue/template,
 * modules/markup/markdown/meta.go), with no I/O, and the YAML decoding the issue config shares
 * (./template). YAML is decoded the way Go's yaml.v3 fills Gitea's structs: a null leaves a value alone, a
 * scalar fills a string with its text, a wrong kind is a "cannot unmarshal" error, and `any`
 * values keep Go's types (ints as bigint, floats as number, maps with a non-string key apart).
 */
import { isAlias, isMap, isScalar, isSeq, LineCounter, parseAllDocuments, visit, type Document, type Node } from 'yaml';
import type { IssueFormField, IssueTemplate } from '../../api/issue-template';

/** A YAML value as yaml.v3 decodes it into Go's `any`. */
export type GoValue = null | boolean | string | number | bigint | GoValue[] | GoMap;

/** A decoded mapping; `stringKeys` is false when a key is not a string (Go's map[interface{}]interface{}). */
export class GoMap {
  constructor(readonly entries: Map<string, GoValue>, readonly stringKeys: boolean) {}
}

/** An error that ends decoding at once (an UnmarshalYAML error in Go, or a hostile document). */
class Abort extends Error {}

// why: aliases may repeat a subtree many times over (a "billion laughs" file), so decoding may look
// at a few times as many nodes as the document has, and no deeper than this.
const VISITS_PER_NODE = 4;
const MAX_DEPTH = 200;
const YES = new Set(['y', 'Y', 'yes', 'Yes', 'YES', 'on', 'On', 'ON']);
const NO = new Set(['n', 'N', 'no', 'No', 'NO', 'off', 'Off', 'OFF']);

const text = (n: Node): string => (isScalar(n) && typeof n.source === 'string' ? n.source : String(isScalar(n) ? n.value : n));

function tagOf(n: Node): string {
  if (isMap(n)) return '!!map';
  if (isSeq(n)) return '!!seq';
  const v = isScalar(n) ? n.value : null;
  return v === null ? '!!null' : typeof v === 'boolean' ? '!!bool' : typeof v === 'bigint' ? '!!int' : typeof v === 'number' ? '!!float' : '!!str';
}

/** Fills typed values from YAML nodes, collecting yaml.v3's "cannot unmarshal" errors. */
export class Decoder {
  readonly errors: string[] = [];
  /** Each alias and the node it names (the last one anchored so before it). */
  private readonly targets = new Map<unknown, Node | undefined>();
  private budget = 10_000;
  constructor(doc: Document, private readonly lines: LineCounter) {
    const anchored = new Map<string, Node>();
    // why: one walk instead of yaml's Alias.resolve, which walks the whole document per alias.
    visit(doc, {
      Node: (_key, n) => {
        this.budget += VISITS_PER_NODE;
        if (isAlias(n)) this.targets.set(n, anchored.get(n.source));
        else if (n.anchor) anchored.set(n.anchor, n);
      },
    });
  }

  /** The node behind an alias; null for a missing node or an explicit null. */
  node(n: unknown): Node | null {
    const x = isAlias(n) ? this.targets.get(n) : n;
    if (--this.budget < 0) throw new Abort('yaml: document contains excessive aliasing');
    if (!x || (isScalar(x) && x.value === null)) return null;
    return x as Node;
  }

  /** The 1-based line a node starts on. */
  line(n: Node): number {
    return this.lines.linePos(n.range?.[0] ?? 0).line;
  }

  /** Record yaml.v3's type error for `n` decoded into Go type `into`. */
  terror(n: Node, into: string): void {
    const v = text(n);
    const shown = isScalar(n) ? (v.length > 10 ? ` \`${v.slice(0, 7)}...\`` : ` \`${v}\``) : '';
    this.errors.push(`line ${this.line(n)}: cannot unmarshal ${tagOf(n)}${shown} into ${into}`);
  }

  /** A Go string: undefined when null (the value stays as it was). */
  str(n: unknown, into = 'string'): string | undefined {
    const x = this.node(n);
    if (!x) return undefined;
    if (isScalar(x)) return text(x);
    this.terror(x, into);
    return undefined;
  }

  /** A Go bool (YAML 1.1 yes/no/on/off accepted, as yaml.v3 does for typed bools). */
  bool(n: unknown): boolean | undefined {
    const x = this.node(n);
    if (!x) return undefined;
    const v = isScalar(x) ? x.value : undefined;
    if (typeof v === 'boolean') return v;
    if (typeof v === 'string' && (YES.has(v) || NO.has(v))) return YES.has(v);
    this.terror(x, 'bool');
    return undefined;
  }

  /** A Go slice's items: null for nil, undefined after an error. */
  seq(n: unknown, into: string): unknown[] | null | undefined {
    const x = this.node(n);
    if (!x) return null;
    if (isSeq(x)) return x.items;
    this.terror(x, into);
    return undefined;
  }

  /** A mapping's entries with keys decoded as Go strings (null and failing keys are skipped). */
  pairs(n: unknown, into: string): [string, unknown][] | null | undefined {
    const x = this.node(n);
    if (!x) return null;
    if (!isMap(x)) {
      this.terror(x, into);
      return undefined;
    }
    const out: [string, unknown][] = [];
    for (const p of x.items) {
      const k = this.str(p.key);
      if (k !== undefined) out.push([k, p.value]);
    }
    return out;
  }

  /** A Go map[string]any: null for nil. */
  strMap(n: unknown): Map<string, GoValue> | null {
    const pairs = this.pairs(n, 'map[string]interface {}');
    return pairs ? new Map(pairs.map(([k, v]) => [k, this.any(v, 1)])) : null;
  }

  /** A Go `any`. */
  any(n: unknown, depth: number): GoValue {
    const x = this.node(n);
    if (!x) return null;
    if (depth > MAX_DEPTH) throw new Abort('yaml: exceeded max depth');
    if (isSeq(x)) return x.items.map((i) => this.any(i, depth + 1));
    if (isMap(x)) {
      const entries = new Map<string, GoValue>();
      let stringKeys = true;
      for (const p of x.items) {
        const k = this.node(p.key);
        if (!k || !isScalar(k) || typeof k.value !== 'string') stringKeys = false;
        entries.set(k ? text(k) : 'null', this.any(p.value, depth + 1));
      }
      return new GoMap(entries, stringKeys);
    }
    const v = isScalar(x) ? x.value : null;
    return typeof v === 'string' || typeof v === 'boolean' || typeof v === 'number' || typeof v === 'bigint' ? v : text(x);
  }
}

/**
 * Decode the first document of `src` with `fill`, as yaml.v3's Unmarshal: null when it went well,
 * else the error message (syntax errors name their line; type errors are listed).
 */
export function decodeYaml(src: string, fill: (d: Decoder, root: unknown) => void): string | null {
  const lines = new LineCounter();
  try {
    const [doc] = parseAllDocuments(src, { lineCounter: lines, intAsBigInt: true, prettyErrors: false });
    if (!doc) return null;
    const bad = doc.errors[0];
    if (bad) return `yaml: line ${lines.linePos(bad.pos[0]).line}: ${bad.message}`;
    const d = new Decoder(doc as Document, lines);
    fill(d, doc.contents);
    return d.errors.length ? `yaml: unmarshal errors:\n  ${d.errors.join('\n  ')}` : null;
  } catch (err) {
    // why: a crafted file (deep nesting, alias bombs) is a bad template, never a server error.
    if (err instanceof Abort) return err.message;
    if (err instanceof RangeError) return 'yaml: document is too deeply nested';
    throw err;
  }
}

/** An issue form field as decoded, before defaults. */
interface FieldDraft { type: string; id: string; attributes: Map<string, GoValue> | null; validations: Map<string, GoValue> | null; visible: string[] | null }

/** A template as decoded, before defaults and checks. */
interface Draft {
  name: string; title: string; about: string; labels: string[] | null; assignees: string[] | null; ref: string;
  content: string; body: (FieldDraft | null)[] | null;
}

/** Gitea's IssueTemplateStringSlice: a list, or a comma-separated string (trimmed, empties dropped). */
function stringSlice(d: Decoder, n: unknown): string[] | null {
  const x = d.node(n);
  if (!x) return null;
  if (isSeq(x)) return x.items.map((i) => d.str(i) ?? '');
  if (!isScalar(x)) throw new Abort(`line ${d.line(x)}: cannot unmarshal ${tagOf(x)} into IssueTemplateStringSlice`);
  const out = text(x).split(',').map((s) => goTrim(s)).filter((s) => s !== '');
  return out.length ? out : null;
}

function decodeField(d: Decoder, n: unknown): FieldDraft | null {
  if (!d.node(n)) return null;
  const f: FieldDraft = { type: '', id: '', attributes: null, validations: null, visible: null };
  for (const [k, v] of d.pairs(n, 'structs.IssueFormField') ?? []) {
    if (k === 'type' || k === 'id') f[k] = d.str(v) ?? f[k];
    else if (k === 'attributes' || k === 'validations') f[k] = d.strMap(v);
    else if (k === 'visible') {
      const items = d.seq(v, '[]structs.IssueFormFieldVisible');
      if (items !== undefined) f.visible = items && items.map((i) => d.str(i, 'structs.IssueFormFieldVisible') ?? '');
    }
  }
  return f;
}

function decodeTemplate(d: Decoder, root: unknown, t: Draft): void {
  for (const [k, v] of d.pairs(root, 'structs.IssueTemplate') ?? []) {
    if (k === 'name' || k === 'title' || k === 'about' || k === 'ref') t[k] = d.str(v) ?? t[k];
    else if (k === 'labels' || k === 'assignees') t[k] = stringSlice(d, v);
    else if (k === 'body') {
      const items = d.seq(v, '[]*structs.IssueFormField');
      if (items !== undefined) t.body = items && items.map((i) => decodeField(d, i));
    }
  }
}

/** The `description` key, which Gitea takes for `about` when `about` is empty. */
function description(src: string): string {
  let out = '';
  const err = decodeYaml(src, (d, root) => {
    for (const [k, v] of d.pairs(root, 'struct { About string "yaml:\\"description\\"" }') ?? []) if (k === 'description') out = d.str(v) ?? out;
  });
  return err ? '' : out;
}

/** Is `cp` a space for Go's unicode.IsSpace? */
function isGoSpace(cp: number): boolean {
  return (cp >= 9 && cp <= 13) || cp === 32 || cp === 0x85 || cp === 0xa0 || cp === 0x1680 || (cp >= 0x2000 && cp <= 0x200a)
    || cp === 0x2028 || cp === 0x2029 || cp === 0x202f || cp === 0x205f || cp === 0x3000;
}

/** Go's strings.TrimSpace. */
export function goTrim(s: string): string {
  const cps = [...s];
  let a = 0;
  let b = cps.length;
  while (a < b && isGoSpace(cps[a].codePointAt(0)!)) a++;
  while (b > a && isGoSpace(cps[b - 1].codePointAt(0)!)) b--;
  return cps.slice(a, b).join('');
}

/** The rune at byte `i` and its length (U+FFFD and 1 when invalid), as Go's utf8.DecodeRune. */
function decodeRune(b: Buffer, i: number): [number, number] {
  const c = b[i];
  const n = c >= 0xf0 && c <= 0xf4 ? 4 : c >= 0xe0 && c < 0xf0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
  if (n === 0 || i + n > b.length) return [0xfffd, 1];
  let r = c & (0x7f >> n);
  for (let k = 1; k < n; k++) {
    if ((b[i + k] & 0xc0) !== 0x80) return [0xfffd, 1];
    r = (r << 6) | (b[i + k] & 0x3f);
  }
  return [r, n];
}

/** Gitea's isYAMLSeparator: spaces, three or more dashes, spaces (skipping as its loop does). */
function isSeparator(line: Buffer): boolean {
  let i = 0;
  const spaces = (stopAtOther: boolean): boolean => {
    for (; i < line.length; i++) {
      if (line[i] >= 0x80) {
        const [r, size] = decodeRune(line, i);
        if (!isGoSpace(r)) return false;
        i += size;
        continue;
      }
      if (line[i] !== 0x20) return stopAtOther;
    }
    return true;
  };
  if (!spaces(true)) return false;
  let dashes = 0;
  for (; i < line.length && line[i] === 0x2d; i++) dashes++;
  return dashes >= 3 && spaces(false);
}

/** Gitea's ExtractMetadata: the YAML between the first two separator lines and the rest; null when none. */
export function splitFrontMatter(content: Buffer): { front: Buffer; body: Buffer } | null {
  const lineEnd = (from: number) => { const nl = content.indexOf(0x0a, from); return nl < 0 ? content.length : nl; };
  let end = lineEnd(0);
  if (!isSeparator(content.subarray(0, end))) return null;
  const frontStart = end + 1;
  for (let start = frontStart; start < content.length; start = end + 1) {
    end = lineEnd(start);
    if (!isSeparator(content.subarray(start, end))) continue;
    if (start === frontStart) return null;
    return { front: content.subarray(frontStart, start), body: end + 1 < content.length ? content.subarray(end + 1) : Buffer.alloc(0) };
  }
  return null;
}

/** Gitea's guess of a rune's display width for EllipsisDisplayString. */
function displayWidth(ch: string): number {
  const r = ch.codePointAt(0)!;
  if (r <= 255) return 1;
  return r !== 0x3000 && /^\p{Z}$/u.test(ch) ? 1 : 2;
}

/** Gitea's EllipsisDisplayString: at most `limit` ASCII widths (wide runes count 2), ending in "…". */
export function ellipsisDisplay(str: string, limit: number): string {
  const bytes = Buffer.byteLength(str);
  if (bytes <= limit) return str;
  let used = 0;
  let cut = 0;
  let at = 0;
  let posByte = 0;
  let posIndex = 0;
  let invalid = false;
  for (const ch of str) {
    invalid ||= ch === '\ufffd';
    posByte = at;
    posIndex = cut;
    const w = displayWidth(ch);
    if (used + w + 3 > limit) break;
    used += w;
    cut += ch.length;
    at += Buffer.byteLength(ch);
  }
  if (bytes - posByte <= 12) {
    const next = [...str.slice(posIndex)].slice(0, 4);
    if (next.length <= 3 && used + next.reduce((s, ch) => s + displayWidth(ch), 0) <= limit) return str;
  }
  return str.slice(0, cut) + (invalid ? '...' : '…');
}

/** The kind of template a file name makes: "md", "yaml", or "" (not a template; config.y*ml never is). */
export function templateKind(fileName: string): 'md' | 'yaml' | '' {
  const base = fileName.slice(fileName.lastIndexOf('/') + 1);
  if (base === 'config.yaml' || base === 'config.yml') return '';
  const dot = base.lastIndexOf('.');
  const ext = dot < 0 ? '' : base.slice(dot);
  return ext === '.md' ? 'md' : ext === '.yaml' || ext === '.yml' ? 'yaml' : '';
}

const EMPTY = new Map<string, GoValue>();
const INT64 = 2n ** 63n;

/** The first missing-but-required or mistyped string among `names` (Gitea stops at the first absent optional one). */
function checkStrings(m: Map<string, GoValue>, required: boolean, names: string[]): string | null {
  for (const name of names) {
    if (!m.has(name)) return required ? `'${name}' is required` : null;
    const v = m.get(name);
    if (typeof v !== 'string') return `'${name}' should be a string`;
    if (required && goTrim(v) === '') return `'${name}' is required`;
  }
  return null;
}

function checkBool(m: Map<string, GoValue>, name: string): string | null {
  return m.has(name) && typeof m.get(name) !== 'boolean' ? `'${name}' should be a bool` : null;
}

/** Dropdown options are strings; checkbox options are dictionaries with a label and sound `visible`/`required`. */
function checkOptions(f: FieldDraft, at: string): string | null {
  const opts = (f.attributes ?? EMPTY).get('options');
  if (!Array.isArray(opts) || opts.length === 0) return `${at}: 'options' is required and should be a array`;
  for (const [j, o] of opts.entries()) {
    const fail = (m: string) => `${at}, option[${j}]: ${m}`;
    if (f.type === 'dropdown') {
      if (typeof o !== 'string') return fail('should be a string');
      continue;
    }
    if (!(o instanceof GoMap) || !o.stringKeys) return fail('should be a dictionary');
    const label = o.entries.get('label');
    if (typeof label !== 'string' || label === '') return fail("'label' is required and should be a string");
    const vis = o.entries.get('visible');
    if (o.entries.has('visible')) {
      if (!Array.isArray(vis)) return fail("'visible' should be list");
      if (vis.some((v) => v !== 'form' && v !== 'content')) return fail("'visible' list can only contain strings of 'form' and 'content'");
    }
    if (o.entries.has('required')) {
      if (typeof o.entries.get('required') !== 'boolean') return fail("'required' should be a bool");
      if (Array.isArray(vis) && !vis.includes('form')) return fail('can not require a hidden checkbox');
    }
  }
  return null;
}

function checkDefault(attrs: Map<string, GoValue>): string | null {
  if (!attrs.has('default')) return null;
  const v = attrs.get('default');
  if (typeof v !== 'bigint' || v < -INT64 || v >= INT64) return "'default' should be an int";
  const opts = attrs.get('options');
  return Array.isArray(opts) && v >= 0n && v < BigInt(opts.length) ? null : "the value of 'default' is out of range";
}

/** The first problem of form field `idx` (ids seen so far in `ids`), prefixed `body[idx](type)`. */
function checkField(f: FieldDraft, idx: number, ids: Set<string>): string | null {
  const at = `body[${idx}](${f.type})`;
  const attrs = f.attributes ?? EMPTY;
  const vals = f.validations ?? EMPTY;
  const first = (...checks: (() => string | null)[]) => {
    for (const c of checks) { const e = c(); if (e) return e; }
    return null;
  };
  const own = (e: string | null) => (e ? `${at}: ${e}` : null);
  if (f.type !== 'markdown') {
    if (f.id === '') return own("'id' is required");
    if (/[^0-9A-Za-z_-]/.test(f.id)) return own("'id' should contain only alphanumeric, '-' and '_'");
    if (ids.has(f.id)) return own("'id' should be unique");
    ids.add(f.id);
    const e = own(checkStrings(attrs, true, ['label']));
    if (e) return e;
  }
  let e: string | null;
  switch (f.type) {
    case 'markdown': e = own(checkStrings(attrs, true, ['value'])); break;
    case 'textarea': e = own(checkStrings(attrs, false, ['description', 'placeholder', 'value', 'render'])); break;
    case 'input':
      e = own(first(() => checkStrings(attrs, false, ['description', 'placeholder', 'value']), () => checkBool(vals, 'is_number'), () => checkStrings(vals, false, ['regex'])));
      break;
    case 'dropdown':
      e = own(first(() => checkStrings(attrs, false, ['description']), () => checkBool(attrs, 'multiple'), () => checkBool(attrs, 'list')))
        ?? checkOptions(f, at) ?? own(checkDefault(attrs));
      break;
    case 'checkboxes': e = own(checkStrings(attrs, false, ['description'])) ?? checkOptions(f, at); break;
    default: e = own('unknown type');
  }
  if (e || f.type === 'markdown' || f.type === 'checkboxes') return e;
  const hidden = f.visible !== null && f.visible.length > 0 && !f.visible.includes('form');
  return own(checkBool(vals, 'required') ?? (vals.get('required') === true && hidden ? 'can not require a hidden field' : null));
}

/** Gitea's template.Validate: name and about, then (YAML forms) the body. */
function check(t: Draft, kind: string): string | null {
  if (goTrim(t.name) === '') return "'name' is required";
  if (goTrim(t.about) === '') return "'about' is required";
  if (kind !== 'yaml') return null;
  if (!t.body || t.body.length === 0) return "'body' is required";
  const ids = new Set<string>();
  for (const [i, f] of t.body.entries()) {
    const e = f ? checkField(f, i, ids) : `body[${i}]: should be a dictionary`;
    if (e) return e;
  }
  return null;
}

/** A Go `any` as Go's encoding/json writes it (map keys sorted). */
function plain(v: GoValue): unknown {
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (Array.isArray(v)) return v.map(plain);
  if (v instanceof GoMap) return plainMap(v.entries);
  return v;
}

function plainMap(m: Map<string, GoValue> | null): Record<string, unknown> | null {
  return m && Object.fromEntries([...m.keys()].sort().map((k) => [k, plain(m.get(k)!)]));
}

function toField(f: FieldDraft | null): IssueFormField {
  const out: IssueFormField = { type: f?.type ?? '', id: f?.id ?? '', attributes: plainMap(f?.attributes ?? null), validations: plainMap(f?.validations ?? null) };
  if (f?.visible?.length) out.visible = f.visible;
  return out;
}

/** A template, or why the file is not one. */
export type ParsedTemplate = { template: IssueTemplate } | { error: string };

/**
 * Parse and check template file `fileName` (its repository path). Markdown: YAML front matter,
 * else the whole file as content named after the file; YAML: a form whose fields get default ids
 * (their index) and visibility. The ref is returned as written.
 */
export function parseTemplate(fileName: string, content: Buffer): ParsedTemplate {
  const kind = templateKind(fileName);
  const t: Draft = { name: '', title: '', about: '', labels: null, assignees: null, ref: '', content: '', body: null };
  const fill = (d: Decoder, root: unknown) => decodeTemplate(d, root, t);
  if (kind === 'md') {
    const fm = splitFrontMatter(content);
    const front = fm?.front.toString('utf8') ?? '';
    if (fm && decodeYaml(front, fill) === null) {
      t.content = fm.body.toString('utf8');
      if (t.about === '') t.about = description(front);
    } else {
      // why: Gitea cannot tell broken front matter from none, and takes the file as plain content.
      t.content = content.toString('utf8');
      t.name = fileName.slice(fileName.lastIndexOf('/') + 1);
      t.about = ellipsisDisplay(t.content, 80);
    }
  } else if (kind === 'yaml') {
    const src = content.toString('utf8');
    const err = decodeYaml(src, fill);
    if (err) return { error: `yaml unmarshal: ${err}` };
    if (t.about === '') t.about = description(src);
    for (const [i, f] of (t.body ?? []).entries()) {
      if (!f) continue;
      if (f.id === '') f.id = String(i);
      f.visible ??= f.type === 'markdown' ? ['form'] : ['form', 'content'];
    }
  }
  const err = check(t, kind);
  if (err) return { error: err };
  const { name, title, about, labels, assignees, ref } = t;
  return { template: { name, title, about, labels, assignees, ref, content: t.content, body: t.body && t.body.map(toField), file_name: fileName } };
}

/** Gitea's reading of a template's ref: anything not under refs/ names a branch (even ""). */
export function branchRef(ref: string): string {
  return ref.startsWith('refs/') ? ref : `refs/heads/${ref}`;
}
