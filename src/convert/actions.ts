/** Actions in Gitea's API shapes: secrets, variables, runners, runs, jobs and tasks. */
import type {
  ActionArtifact, ActionRunner, ActionTask, ActionVariable, ActionWorkflowJob, ActionWorkflowRun, Secret,
} from '../api/actions';
import type { User } from '../api/user';
import type { Repository } from '../api/repo';
import type { ActionArtifactModel } from '../models/action-artifact.model';
import { ArtifactStatus } from '../models/action-artifact.model';
import type { ActionRunnerModel } from '../models/action-runner.model';
import { ActionStatus, isDone, type ActionRunModel } from '../models/action-run.model';
import type { ActionRunJobModel } from '../models/action-run-job.model';
import type { ActionTaskModel } from '../models/action-task.model';
import type { ActionTaskStepModel } from '../models/action-task-step.model';
import type { ActionVariableModel } from '../models/action-variable.model';
import type { SecretModel } from '../models/secret.model';
import { isoTime, ZERO_TIME } from './time';

export function toSecret(s: SecretModel): Secret {
  return { name: s.name, description: s.description, created_at: isoTime(new Date(Number(s.createdUnix) * 1000)) };
}

export function toActionVariable(v: ActionVariableModel): ActionVariable {
  return { owner_id: v.ownerId, repo_id: v.repoId, name: v.name, data: v.data, description: v.description };
}

/** A runner with its presence. */
export function toActionRunner(r: ActionRunnerModel, presence: { online: boolean; busy: boolean }): ActionRunner {
  return {
    id: r.id, name: r.name, status: presence.online ? 'online' : 'offline', busy: presence.online && presence.busy, ephemeral: r.ephemeral,
    labels: r.labels().map((name, id) => ({ id, name, type: 'custom' })),
  };
}

const unixTime = (s: number) => isoTime(new Date(s * 1000));

/** The REST status of a run or job: queued (waiting for a runner), waiting (blocked), in_progress, completed. */
export function restStatus(s: ActionStatus): string {
  if (s === ActionStatus.Waiting) return 'queued';
  if (s === ActionStatus.Blocked) return 'waiting';
  if (s === ActionStatus.Running) return 'in_progress';
  return isDone(s) ? 'completed' : '';
}

/** The conclusion of a finished run or job. */
function conclusion(s: ActionStatus): string | undefined {
  return isDone(s) ? STATUS_NAMES[s] : undefined;
}

/** Gitea's status names (the task listing shows them as they are). */
export const STATUS_NAMES: Record<ActionStatus, string> = {
  [ActionStatus.Unknown]: 'unknown', [ActionStatus.Success]: 'success', [ActionStatus.Failure]: 'failure', [ActionStatus.Cancelled]: 'cancelled',
  [ActionStatus.Skipped]: 'skipped', [ActionStatus.Waiting]: 'waiting', [ActionStatus.Running]: 'running', [ActionStatus.Blocked]: 'blocked',
};

/** Where a run lives: its repository's API and web addresses. */
export interface RunPlace { api: string; html: string }

const branchOf = (ref: string) => (ref.startsWith('refs/heads/') ? ref.slice('refs/heads/'.length) : undefined);

/** A run. */
export function toWorkflowRun(run: ActionRunModel, at: RunPlace, extra: { actor?: User; repository?: Repository } = {}): ActionWorkflowRun {
  return {
    id: run.id, url: `${at.api}/actions/runs/${run.id}`, html_url: `${at.html}/actions/runs/${run.index}`, display_title: run.title,
    path: `${run.workflowId}@${run.ref}`, event: run.triggerEvent, run_attempt: 1, run_number: run.index, repository_id: run.repoId, head_sha: run.commitSha,
    ...(branchOf(run.ref) ? { head_branch: branchOf(run.ref) } : {}), status: restStatus(run.status),
    ...(conclusion(run.status) ? { conclusion: conclusion(run.status) } : {}),
    ...(extra.actor ? { actor: extra.actor, trigger_actor: extra.actor } : {}), ...(extra.repository ? { repository: extra.repository } : {}),
    started_at: unixTime(run.started), completed_at: unixTime(run.stopped),
  };
}

/** A job, with its latest task's runner and steps when it has one. `index` is its place among the run's jobs. */
export function toWorkflowJob(
  job: ActionRunJobModel, run: ActionRunModel, index: number, at: RunPlace, task?: { runner?: ActionRunnerModel; steps: ActionTaskStepModel[] },
): ActionWorkflowJob {
  return {
    id: job.id, url: `${at.api}/actions/jobs/${job.id}`, html_url: `${at.html}/actions/runs/${run.index}/jobs/${index}`, run_id: run.id,
    run_url: `${at.api}/actions/runs/${run.id}`, name: job.name, labels: job.labels(), run_attempt: job.attempt, head_sha: job.commitSha,
    ...(branchOf(run.ref) ? { head_branch: branchOf(run.ref) } : {}), status: restStatus(job.status),
    ...(conclusion(job.status) ? { conclusion: conclusion(job.status) } : {}),
    ...(task?.runner ? { runner_id: task.runner.id, runner_name: task.runner.name } : {}),
    steps: (task?.steps ?? []).map((s) => ({
      name: s.name, number: s.index, status: restStatus(s.status), ...(conclusion(s.status) ? { conclusion: conclusion(s.status) } : {}),
      started_at: unixTime(s.started), completed_at: unixTime(s.stopped),
    })),
    created_at: unixTime(job.created), started_at: unixTime(job.started), completed_at: unixTime(job.stopped),
  };
}

/** A task as the task listing shows it. */
export function toActionTask(task: ActionTaskModel, job: ActionRunJobModel, run: ActionRunModel, at: RunPlace): ActionTask {
  return {
    id: task.id, name: job.name, head_branch: run.ref.replace(/^refs\/(heads|tags)\//, '').replace(/^refs\/pull\/(\d+)\/head$/, '#$1'), head_sha: job.commitSha,
    run_number: run.index, event: run.triggerEvent, display_title: run.title, status: STATUS_NAMES[task.status], workflow_id: run.workflowId,
    url: `${at.html}/actions/runs/${run.index}`, created_at: unixTime(task.created), updated_at: unixTime(task.updated), run_started_at: unixTime(task.started),
  };
}

/** An artifact, at its repository's API address `repoApi`. */
export function toActionArtifact(a: ActionArtifactModel, repoApi: string): ActionArtifact {
  const url = `${repoApi}/actions/artifacts/${a.id}`;
  return {
    id: a.id, name: a.artifactName, size_in_bytes: a.fileSize, url, archive_download_url: `${url}/zip`, expired: a.status === ArtifactStatus.Expired,
    workflow_run: {
      id: a.runId, url: '', html_url: '', display_title: '', path: '', event: '', run_attempt: 0, run_number: 0, repository_id: a.repoId,
      head_sha: a.commitSha, status: '', started_at: ZERO_TIME, completed_at: ZERO_TIME,
    },
    created_at: isoTime(new Date(a.created * 1000)), updated_at: isoTime(new Date(a.updated * 1000)), expires_at: isoTime(new Date(a.expired * 1000)),
  };
}
