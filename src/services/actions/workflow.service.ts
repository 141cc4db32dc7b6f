/**
 * The workflows of a repository as the REST API shows them (read from its default branch),
 * enabling and disabling them (the Actions unit's `DisabledWorkflows`), and dispatching one at a
 * ref with inputs (`workflow_dispatch`).
 */
import { settings } from '../../config';
import { withTx, type DbContext } from '../../db';
import { Forbidden, NotFound, Validation } from '../../errors';
import { repoPath } from '../../git/paths';
import { readCommits } from '../../git/history';
import { resolveCommit } from '../../git/cat-file';
import { setUnitConfig } from '../../models/repo-unit.model';
import { UnitType } from '../../models/perm';
import type { UserModel } from '../../models/user.model';
import type { ActionWorkflow, CreateActionWorkflowDispatch } from '../../api/actions';
import { repoUrls } from '../content/view';
import { hookRepo, hookUser } from '../payload/parts';
import { assertUnitReadable, assertUnitWriter } from '../repo/access';
import type { RepoContext } from '../repo/context';
import { createRuns } from './run.service';
import { actionsConfig } from './config';
import { dispatchInputs, WorkflowError } from './workflow-parse';
import { parsedWorkflow, workflowFiles, type WorkflowFile } from './workflows';

const NEVER = '0001-01-01T00:00:00Z';

/** The workflow files of the default branch's head (none for an empty repository). */
async function defaultBranchFiles(rc: RepoContext): Promise<{ dir: string; head: string; files: WorkflowFile[] } | null> {
  if (rc.repo.isEmpty) return null;
  const dir = repoPath(rc.owner.name, rc.repo.name);
  const head = await resolveCommit(dir, `refs/heads/${rc.repo.defaultBranch}`);
  return head ? { dir, head, files: await workflowFiles(dir, head) } : null;
}

/** A `workflow_dispatch` input as the run form shows it. */
export interface DispatchInput { name: string; description: string; type: string; required: boolean; default: string; options: string[] }

/** A workflow as the Actions page lists it: disabled or not, the error of a file that does not parse, the inputs of a dispatchable one. */
export interface WorkflowEntry { id: string; name: string; path: string; disabled: boolean; error?: string; dispatch?: DispatchInput[] }

/** The workflows of the default branch for the Actions page (readers of the Actions unit). */
export async function workflowEntries(ctx: DbContext, rc: RepoContext): Promise<WorkflowEntry[]> {
  assertUnitReadable(rc, UnitType.Actions);
  const found = await defaultBranchFiles(rc);
  if (!found) return [];
  const { disabled } = await actionsConfig(ctx, rc.repo.id);
  return found.files.map((f) => {
    const { wf, error } = parsedWorkflow(f.content);
    const entry: WorkflowEntry = { id: f.id, name: wf?.name || f.id, path: f.path, disabled: disabled.includes(f.id) };
    if (!wf) entry.error = error instanceof Error ? error.message : String(error);
    else if (wf.on.has('workflow_dispatch')) {
      const spec = wf.on.get('workflow_dispatch');
      const raw = spec && typeof spec.inputs === 'object' && spec.inputs !== null ? spec.inputs as Record<string, unknown> : {};
      entry.dispatch = Object.entries(raw).map(([name, v]) => {
        const d = (v && typeof v === 'object' ? v : {}) as Record<string, unknown>;
        return {
          name, description: typeof d.description === 'string' ? d.description : '', type: typeof d.type === 'string' ? d.type : 'string', required: d.required === true,
          default: d.default === undefined || d.default === null ? '' : String(d.default), options: Array.isArray(d.options) ? d.options.map(String) : [],
        };
      });
    }
    return entry;
  });
}

/** The workflows of the default branch's head. */
export async function listWorkflows(ctx: DbContext, rc: RepoContext): Promise<ActionWorkflow[]> {
  assertUnitReadable(rc, UnitType.Actions);
  const found = await defaultBranchFiles(rc);
  if (!found) return [];
  const { dir, head } = found;
  const [commit] = await readCommits(dir, [head]);
  const when = new Date(commit.author.date).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const { disabled } = await actionsConfig(ctx, rc.repo.id);
  const urls = repoUrls(settings().server.rootUrl, rc.owner.name, rc.repo.name);
  return found.files.map((f) => {
    // why: a broken file keeps its file name.
    const name = parsedWorkflow(f.content).wf?.name || f.id;
    const id = encodeURIComponent(f.id);
    return {
      id: f.id, name, path: f.path, state: disabled.includes(f.id) ? 'disabled_manually' : 'active', created_at: when, updated_at: when,
      url: `${urls.api}/actions/workflows/${id}`, html_url: `${urls.html}/src/branch/${encodeURIComponent(rc.repo.defaultBranch)}/${f.path}`,
      badge_url: `${urls.html}/actions/workflows/${id}/badge.svg?branch=${encodeURIComponent(rc.repo.defaultBranch)}`, deleted_at: NEVER,
    };
  });
}

/** One workflow of the default branch; 404 naming it when there is none. */
export async function getWorkflow(ctx: DbContext, rc: RepoContext, id: string): Promise<ActionWorkflow> {
  const wf = (await listWorkflows(ctx, rc)).find((w) => w.id === id);
  if (!wf) throw new NotFound(`workflow ${JSON.stringify(id)} not found`);
  return wf;
}

/** Enable or disable a workflow (writers of the Actions unit); idempotent. */
export async function setWorkflowEnabled(ctx: DbContext, rc: RepoContext, id: string, enabled: boolean): Promise<void> {
  assertUnitWriter(rc, UnitType.Actions);
  await getWorkflow(ctx, rc, id);
  await withTx(ctx, async (tx) => {
    const { disabled } = await actionsConfig(tx, rc.repo.id);
    const next = enabled ? disabled.filter((d) => d !== id) : [...new Set([...disabled, id])];
    await setUnitConfig(tx, rc.repo.id, UnitType.Actions, JSON.stringify({ DisabledWorkflows: next }));
  });
}

/**
 * Run a workflow at a ref (a full ref, or a branch name) with inputs: declared inputs take the
 * given value or their default, others are dropped (Gitea checks no more). 204 in the controller.
 */
export async function dispatchWorkflow(ctx: DbContext, rc: RepoContext, doer: UserModel, id: string, body: CreateActionWorkflowDispatch): Promise<void> {
  assertUnitWriter(rc, UnitType.Actions);
  if (typeof body?.ref !== 'string' || body.ref.trim() === '') throw new Validation('ref is required parameter');
  if (body.inputs !== undefined && (typeof body.inputs !== 'object' || body.inputs === null || Array.isArray(body.inputs))) throw new Validation('inputs must be an object');
  const config = await actionsConfig(ctx, rc.repo.id);
  if (config.disabled.includes(id)) throw new Forbidden('workflow is disabled');
  const ref = body.ref.startsWith('refs/') ? body.ref : `refs/heads/${body.ref}`;
  const dir = repoPath(rc.owner.name, rc.repo.name);
  const sha = /^refs\/(heads|tags)\/[^\0\r\n]+$/.test(ref) && !ref.includes('..') ? await resolveCommit(dir, ref) : null;
  if (!sha) throw new NotFound(`ref ${JSON.stringify(body.ref)} doesn't exist`);
  const file = (await workflowFiles(dir, sha)).find((f) => f.id === id);
  if (!file) throw new NotFound(`workflow ${JSON.stringify(id)} doesn't exist`);
  let declared: Map<string, string>;
  try {
    const { wf, error } = parsedWorkflow(file.content);
    if (!wf) throw error;
    if (!wf.on.has('workflow_dispatch')) throw new Validation(`workflow ${JSON.stringify(id)} has no workflow_dispatch trigger`);
    declared = dispatchInputs(wf);
  } catch (err) {
    if (err instanceof WorkflowError) throw new Validation(`workflow ${JSON.stringify(id)} is not valid: ${err.message}`);
    throw err;
  }
  const given = body.inputs ?? {};
  const inputs = Object.fromEntries([...declared].map(([k, def]) => [k, k in given ? String(given[k]) : def]));
  await createRuns({
    repo: rc.repo, owner: rc.owner, doerId: doer.id, event: 'workflow_dispatch', ref, sha, workflowId: id, trigger: async () => 'workflow_dispatch',
    details: async () => ({
      title: (await readCommits(dir, [sha]))[0].message,
      payload: { workflow: id, ref: body.ref, inputs, repository: await hookRepo(ctx, rc.repo, rc.owner, doer, 'none'), sender: hookUser(doer) },
    }),
  });
}
