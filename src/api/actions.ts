/** Actions as Gitea's API shows and takes them: secrets, variables, runners, workflows, runs, jobs and tasks. */
import type { User } from './user';
import type { Repository } from './repo';

/** A secret: its value is never shown. */
export interface Secret { name: string; description: string; created_at: string }

/** A variable with its value; `owner_id` is 0 for a repository's, `repo_id` 0 for a user's or organization's. */
export interface ActionVariable { owner_id: number; repo_id: number; name: string; data: string; description: string }

/** The body of a secret's creation or change. */
export interface CreateOrUpdateSecretOption { data: string; description?: string }

/** The body of a variable's creation. */
export interface CreateVariableOption { value: string; description?: string }

/** The body of a variable's change; `name` renames it (empty: the name stays). */
export interface UpdateVariableOption { name?: string; value: string; description?: string }

/** A runner label: `id` is its position in the runner's list, `type` always `custom` (Gitea 1.24). */
export interface ActionRunnerLabel { id: number; name: string; type: string }

/** A runner: `status` is `online` or `offline`; `busy` while it reports on a task. */
export interface ActionRunner { id: number; name: string; status: string; busy: boolean; ephemeral: boolean; labels: ActionRunnerLabel[] }

/** A page of runners. */
export interface ActionRunnersResponse { runners: ActionRunner[]; total_count: number }

/** A runner registration token. */
export interface RegistrationToken { token: string }

/** A workflow file: `id` and `name` are its file name. */
export interface ActionWorkflow {
  id: string; name: string; path: string; state: string; created_at: string; updated_at: string; url: string; html_url: string; badge_url: string; deleted_at: string;
}

/** The workflows of a repository's default branch. */
export interface ActionWorkflowResponse { workflows: ActionWorkflow[]; total_count: number }

/** The body of a workflow dispatch: the ref to run at (a branch name or a full ref) and the inputs. */
export interface CreateActionWorkflowDispatch { ref: string; inputs?: Record<string, string> }

/** A workflow run. `status` is queued, waiting, in_progress or completed; `conclusion` is set when completed. */
export interface ActionWorkflowRun {
  id: number; url: string; html_url: string; display_title: string; path: string; event: string; run_attempt: number; run_number: number;
  repository_id: number; head_sha: string; head_branch?: string; status: string; conclusion?: string;
  actor?: User; trigger_actor?: User; repository?: Repository;
  started_at: string; completed_at: string;
}

/** A page of workflow runs. */
export interface ActionWorkflowRunsResponse { workflow_runs: ActionWorkflowRun[]; total_count: number }

/** A step of a job's latest attempt (`number` counts from 0). */
export interface ActionWorkflowStep { name: string; number: number; status: string; conclusion?: string; started_at: string; completed_at: string }

/** A job of a run. */
export interface ActionWorkflowJob {
  id: number; url: string; html_url: string; run_id: number; run_url: string; name: string; labels: string[]; run_attempt: number;
  head_sha: string; head_branch?: string; status: string; conclusion?: string; runner_id?: number; runner_name?: string;
  steps: ActionWorkflowStep[]; created_at: string; started_at: string; completed_at: string;
}

/** A page of jobs. */
export interface ActionWorkflowJobsResponse { jobs: ActionWorkflowJob[]; total_count: number }

/** A task (an attempt of a job on a runner), as `GET /repos/{o}/{r}/actions/tasks` lists it. */
export interface ActionTask {
  id: number; name: string; head_branch: string; head_sha: string; run_number: number; event: string; display_title: string; status: string;
  workflow_id: string; url: string; created_at: string; updated_at: string; run_started_at: string;
}

/** A page of tasks (under `workflow_runs`, as Gitea names it). */
export interface ActionTaskResponse { workflow_runs: ActionTask[]; total_count: number }

/** An artifact a run uploaded (v4); `workflow_run` carries only the run's id, repository and commit. */
export interface ActionArtifact {
  id: number; name: string; size_in_bytes: number; url: string; archive_download_url: string; expired: boolean;
  workflow_run: ActionWorkflowRun; created_at: string; updated_at: string; expires_at: string;
}

/** A page of artifacts. */
export interface ActionArtifactsResponse { artifacts: ActionArtifact[]; total_count: number }
