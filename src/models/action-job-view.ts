/**
 * A job as its views show it: with its run, its place among the run's jobs, and its latest
 * task's runner and steps.
 */
import type { DbContext } from '../db';
import { findRunsByIds, type ActionRunModel } from './action-run.model';
import { listJobsOfRuns, type ActionRunJobModel } from './action-run-job.model';
import { findTasksByIds } from './action-task.model';
import { listStepsOfTasks, type ActionTaskStepModel } from './action-task-step.model';
import { findRunnersByIds, type ActionRunnerModel } from './action-runner.model';

/** Jobs with what their view needs: the run, the job's place in it, and its latest task's runner and steps. */
export interface JobView { job: ActionRunJobModel; run: ActionRunModel; index: number; task?: { runner?: ActionRunnerModel; steps: ActionTaskStepModel[] } }

/** The views of jobs; `known` runs with all their jobs (as a transaction just left them) are not read again. */
export async function jobViews(ctx: DbContext, jobs: ActionRunJobModel[], known: { run: ActionRunModel; jobs: ActionRunJobModel[] }[] = []): Promise<JobView[]> {
  const runs = new Map(known.map((k) => [k.run.id, k.run]));
  const siblings = new Map(known.map((k) => [k.run.id, k.jobs.map((j) => j.id)]));
  for (const r of await findRunsByIds(ctx, jobs.map((j) => j.runId).filter((id) => !runs.has(id)))) runs.set(r.id, r);
  for (const j of await listJobsOfRuns(ctx, [...runs.keys()].filter((id) => !siblings.has(id)))) siblings.set(j.runId, [...(siblings.get(j.runId) ?? []), j.id]);
  const tasks = await findTasksByIds(ctx, jobs.map((j) => j.taskId));
  const runners = new Map((await findRunnersByIds(ctx, tasks.map((t) => t.runnerId).filter((id) => id > 0))).map((r) => [r.id, r]));
  const steps = await listStepsOfTasks(ctx, tasks.map((t) => t.id));
  return jobs.flatMap((job) => {
    const run = runs.get(job.runId);
    if (!run) return [];
    const task = tasks.find((t) => t.id === job.taskId);
    return [{
      job, run, index: siblings.get(run.id)!.indexOf(job.id),
      ...(task ? { task: { runner: runners.get(task.runnerId), steps: steps.filter((s) => s.taskId === task.id) } } : {}),
    }];
  });
}
