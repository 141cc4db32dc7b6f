/**
 * Workflow files as Gitea reads them: the `on:` triggers and their filters, and the jobs split into
 * one single-job workflow per matrix combination (Gitea's jobparser), each with its name, the job
 * ids it needs and its `runs-on` labels. Pure: no git, no database.
 */
import YAML from 'yaml';

type Doc = Record<string, unknown>;

/** A workflow file that parsed: its name and triggers, and the document. */
export interface Workflow { name: string; on: Map<string, Doc | null>; doc: Doc }

/** One job of a run: a matrix combination of a YAML job. */
export interface PlannedJob {
  /** The YAML key (shared by the combinations). */
  jobId: string;
  name: string;
  needs: string[];
  runsOn: string[];
  hasIf: boolean;
  /** The single-job workflow sent to the runner (without `needs`). */
  payload: string;
}

/** A workflow file that is not a valid workflow; the message says why. */
export class WorkflowError extends Error {}

const asDoc = (v: unknown): Doc | null => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Doc) : null);
const asList = (v: unknown): string[] => (v === undefined || v === null ? [] : Array.isArray(v) ? v.map(String) : [String(v)]);

/** Parse a workflow file; throws WorkflowError naming the problem. */
export function parseWorkflow(content: string): Workflow {
  let doc: Doc | null;
  try {
    const parsed = YAML.parseDocument(content, { prettyErrors: true, uniqueKeys: true });
    if (parsed.errors.length) throw new WorkflowError(parsed.errors[0].message);
    doc = asDoc(parsed.toJS({ maxAliasCount: 100 }));
  } catch (err) {
    throw err instanceof WorkflowError ? err : new WorkflowError((err as Error).message);
  }
  if (!doc) throw new WorkflowError('the workflow is not a mapping');
  const on = new Map<string, Doc | null>();
  const rawOn = doc.on;
  if (typeof rawOn === 'string') on.set(rawOn, null);
  else if (Array.isArray(rawOn)) for (const e of rawOn) on.set(String(e), null);
  else if (asDoc(rawOn)) for (const [k, v] of Object.entries(asDoc(rawOn)!)) on.set(k, asDoc(v));
  else throw new WorkflowError('"on" is missing: the workflow has no trigger');
  const jobs = asDoc(doc.jobs);
  if (!jobs || Object.keys(jobs).length === 0) throw new WorkflowError('"jobs" is missing: the workflow has no job');
  for (const [id, job] of Object.entries(jobs)) {
    const j = asDoc(job);
    if (!j) throw new WorkflowError(`job "${id}" is not a mapping`);
    if (j['runs-on'] === undefined && j.uses === undefined) throw new WorkflowError(`job "${id}": "runs-on" is missing`);
    for (const need of asList(j.needs)) if (!(need in jobs)) throw new WorkflowError(`job "${id}" needs "${need}", which is not a job of this workflow`);
    if (j.steps !== undefined && !Array.isArray(j.steps)) throw new WorkflowError(`job "${id}": "steps" is not a list`);
  }
  return { name: typeof doc.name === 'string' ? doc.name : '', on, doc };
}

/**
 * A GitHub workflow pattern as a regular expression: `*` is any run of characters but `/`, `**`
 * any run, `?` makes the previous character optional, `+` repeats it, `[...]` is a class.
 */
function patternRegex(p: string): RegExp {
  let out = '';
  for (let i = 0; i < p.length; i++) {
    const c = p[i];
    if (c === '*') {
      if (p[i + 1] === '*') { out += '.*'; i++; } else out += '[^/]*';
    } else if (c === '?' || c === '+') {
      out += c;
    } else if (c === '[') {
      const end = p.indexOf(']', i);
      if (end < 0) out += '\\[';
      else { out += p.slice(i, end + 1).replace(/\\/g, '\\\\'); i = end; }
    } else {
      out += c.replace(/[.^$|(){}\\]/g, '\\$&');
    }
  }
  return new RegExp(`^${out}$`);
}

/** Whether `name` passes a pattern list where later `!pattern`s exclude again (GitHub's order rule). */
function matchesList(patterns: string[], name: string): boolean {
  let hit = false;
  for (const raw of patterns) {
    const negated = raw.startsWith('!');
    if (patternRegex(negated ? raw.slice(1) : raw).test(name)) hit = !negated;
  }
  return hit;
}

/** Whether a filter pair (`x` and `x-ignore`) lets `name` through. */
function filterPasses(spec: Doc, key: string, name: string): boolean {
  if (spec[key] !== undefined) return matchesList(asList(spec[key]), name);
  if (spec[`${key}-ignore`] !== undefined) return !matchesList(asList(spec[`${key}-ignore`]), name);
  return true;
}

/**
 * Whether a push of `ref` triggers a workflow with this `on.push` value. `changedFiles` is read
 * only when the filter has paths. With branch filters only, tags do not trigger, and the other way round.
 */
export async function pushMatches(spec: Doc | null, ref: string, changedFiles: () => Promise<string[]>): Promise<boolean> {
  if (!spec) return true;
  const isTag = ref.startsWith('refs/tags/');
  const short = ref.replace(/^refs\/(heads|tags)\//, '');
  const hasBranches = spec.branches !== undefined || spec['branches-ignore'] !== undefined;
  const hasTags = spec.tags !== undefined || spec['tags-ignore'] !== undefined;
  if (hasBranches || hasTags) {
    if (isTag ? !hasTags || !filterPasses(spec, 'tags', short) : !hasBranches || !filterPasses(spec, 'branches', short)) return false;
  }
  if (isTag || (spec.paths === undefined && spec['paths-ignore'] === undefined)) return true;
  const files = await changedFiles();
  if (spec.paths !== undefined) return files.some((f) => matchesList(asList(spec.paths), f));
  return files.some((f) => !matchesList(asList(spec['paths-ignore']), f));
}

/** The inputs a `workflow_dispatch` trigger declares, with their defaults. */
export function dispatchInputs(wf: Workflow): Map<string, string> {
  const spec = wf.on.get('workflow_dispatch');
  const inputs = asDoc(spec?.inputs) ?? {};
  return new Map(Object.entries(inputs).map(([k, v]) => [k, asDoc(v)?.default === undefined ? '' : String(asDoc(v)!.default)]));
}

const sameValue = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** The combinations of a `strategy.matrix` (GitHub's rules for `include` and `exclude`), or [] without one. */
export function matrixCombinations(matrix: unknown): Doc[] {
  const m = asDoc(matrix);
  if (!m) return [];
  const keys = Object.keys(m).filter((k) => k !== 'include' && k !== 'exclude');
  let combos: Doc[] = [{}];
  for (const k of keys) {
    const values = Array.isArray(m[k]) ? (m[k] as unknown[]) : [m[k]];
    combos = combos.flatMap((c) => values.map((v) => ({ ...c, [k]: v })));
  }
  if (keys.length === 0) combos = [];
  const excludes = Array.isArray(m.exclude) ? m.exclude.map(asDoc).filter((d): d is Doc => !!d) : [];
  combos = combos.filter((c) => !excludes.some((e) => Object.entries(e).every(([k, v]) => sameValue(c[k], v))));
  const base = combos.map((c) => ({ ...c }));
  for (const inc of Array.isArray(m.include) ? m.include.map(asDoc).filter((d): d is Doc => !!d) : []) {
    // why: GitHub adds an include to every original combination whose own values it does not change; if none, it is a combination of its own.
    const fits = base.map((c, i) => [c, i] as const).filter(([c]) => Object.entries(inc).every(([k, v]) => !keys.includes(k) || sameValue(c[k], v)));
    if (fits.length === 0) combos.push({ ...inc });
    else for (const [, i] of fits) Object.assign(combos[i], Object.fromEntries(Object.entries(inc).filter(([k]) => !keys.includes(k) || !(k in base[i]))));
  }
  return combos;
}

const show = (v: unknown) => (typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v));

/** `${{ matrix.x }}` (and `${{ matrix['x'] }}`) replaced by the combination's values; other expressions are left. */
function interpolateMatrix(text: string, combo: Doc): string {
  return text.replace(/\$\{\{\s*matrix(?:\.([\w-]+)|\[['"]([^'"]+)['"]\])\s*\}\}/g, (all, a?: string, b?: string) => {
    const k = a ?? b!;
    return k in combo ? show(combo[k]) : all;
  });
}

/** The jobs of a parsed workflow, one per matrix combination, in YAML order and then by name. */
export function planJobs(wf: Workflow): PlannedJob[] {
  const jobs = asDoc(wf.doc.jobs)!;
  const top: Doc = {};
  for (const k of ['name', 'run-name', 'on', 'env', 'defaults']) if (wf.doc[k] !== undefined) top[k] = wf.doc[k];
  const out: PlannedJob[] = [];
  for (const [jobId, raw] of Object.entries(jobs)) {
    const job = asDoc(raw)!;
    const strategy = asDoc(job.strategy);
    const combos = matrixCombinations(strategy?.matrix);
    const baseName = typeof job.name === 'string' && job.name ? job.name : jobId;
    const legs = (combos.length ? combos : [null]).map((combo) => {
      let name = baseName;
      if (combo) {
        name = baseName.includes('${{') ? interpolateMatrix(baseName, combo) : `${baseName} (${Object.keys(combo).sort().map((k) => show(combo[k])).join(', ')})`;
      }
      const runsOn = asList(job['runs-on']).map((l) => (combo ? interpolateMatrix(l, combo) : l));
      const single: Doc = { ...job, name };
      delete single.needs;
      if (combo) single.strategy = { ...strategy, matrix: Object.fromEntries(Object.entries(combo).map(([k, v]) => [k, [v]])) };
      if (job['runs-on'] !== undefined) single['runs-on'] = Array.isArray(job['runs-on']) ? runsOn : runsOn[0];
      return {
        jobId, name: name.slice(0, 255), needs: asList(job.needs), runsOn, hasIf: job.if !== undefined && String(job.if).trim() !== '',
        payload: YAML.stringify({ ...top, jobs: { [jobId]: single } }),
      };
    });
    out.push(...legs.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)));
  }
  return out;
}

/** The names of a single-job workflow's steps, as the task's steps are named (name, else uses, else run). */
export function stepNames(payload: string): string[] {
  const doc = asDoc(YAML.parse(payload));
  const job = Object.values(asDoc(doc?.jobs) ?? {}).map(asDoc)[0];
  const steps = Array.isArray(job?.steps) ? job.steps.map(asDoc) : [];
  return steps.map((s, i) => String(s?.name ?? s?.uses ?? s?.run ?? s?.id ?? `step ${i}`).trim().slice(0, 255));
}

// GitHub's activity type of a Gitea action, where the words differ.
const ACTIVITY: Record<string, string> = { synchronized: 'synchronize', label_updated: 'labeled', label_cleared: 'unlabeled', updated: 'edited' };
// The activity types a trigger takes when it names none.
const DEFAULT_TYPES: Record<string, string[]> = { pull_request: ['opened', 'reopened', 'synchronize'], pull_request_target: ['opened', 'reopened', 'synchronize'] };

/** GitHub's activity type of a Gitea event action. */
export function activityOf(action: string): string {
  return ACTIVITY[action] ?? action;
}

/**
 * Whether an event heard by `on.<key>` passes its filters: `types` (with pull requests' defaults),
 * `branches` (against `branch`: a pull request's base, a run's head branch), `workflows` (against the
 * finished run's workflow name), and `paths` (against `changedFiles`, read only when needed).
 */
export async function eventMatches(
  wf: Workflow, key: string, ev: { action?: string; branch?: string; workflow?: string; changedFiles?: () => Promise<string[]> },
): Promise<boolean> {
  if (!wf.on.has(key)) return false;
  const spec = wf.on.get(key) ?? {};
  const types = spec.types !== undefined ? asList(spec.types) : DEFAULT_TYPES[key];
  if (types && ev.action !== undefined && !types.includes(activityOf(ev.action))) return false;
  if (ev.branch !== undefined && !filterPasses(spec, 'branches', ev.branch)) return false;
  if (key === 'workflow_run' && (ev.workflow === undefined || !asList(spec.workflows).includes(ev.workflow))) return false;
  if (ev.changedFiles && (spec.paths !== undefined || spec['paths-ignore'] !== undefined)) {
    const files = await ev.changedFiles();
    if (spec.paths !== undefined) return files.some((f) => matchesList(asList(spec.paths), f));
    return files.some((f) => !matchesList(asList(spec['paths-ignore']), f));
  }
  return true;
}
