/**
 * Workflow files as the forge reads them: triggers and their filters, matrix combinations with
 * include and exclude, the single-job workflows of a run, and cron schedules.
 */
import { expect } from 'chai';
import YAML from 'yaml';
import { eventMatches, matrixCombinations, parseWorkflow, planJobs, pushMatches, WorkflowError } from '../../src/services/actions/workflow-parse';
import { nextCron, parseCron } from '../../src/services/actions/cron';

describe('actions workflow files', () => {
  it('reads `on` as a word, a list or a map, and refuses files that are not workflows with the reason', () => {
    expect([...parseWorkflow('on: push\njobs: {a: {runs-on: x}}').on.keys()]).to.deep.equal(['push']);
    expect([...parseWorkflow('on: [push, issues]\njobs: {a: {runs-on: x}}').on.keys()]).to.deep.equal(['push', 'issues']);
    expect(parseWorkflow('name: N\non: {push: {branches: [main]}}\njobs: {a: {runs-on: x}}').name).to.equal('N');
    const bad: [string, RegExp][] = [
      ['jobs: {a: {runs-on: x}}', /"on" is missing/], ['on: push', /"jobs" is missing/], ['on: push\njobs: {a: {steps: []}}', /"runs-on" is missing/],
      ['on: push\njobs: {a: {runs-on: x, needs: b}}', /needs "b"/], ['on: push\njobs: [', /./], ['- a', /not a mapping/],
    ];
    for (const [text, why] of bad) expect(() => parseWorkflow(text), text).to.throw(WorkflowError, why);
  });

  it('filters pushes by branches, tags and paths as GitHub does, negations last-match-wins', async () => {
    const files = (list: string[]) => async () => list;
    const spec = { branches: ['main', 'release/**', '!release/old*'], paths: ['src/**', '!src/**/*.md'] };
    expect(await pushMatches(spec, 'refs/heads/main', files(['src/a.ts']))).to.equal(true);
    expect(await pushMatches(spec, 'refs/heads/main', files(['src/docs/a.md']))).to.equal(false);
    expect(await pushMatches(spec, 'refs/heads/release/v1/x', files(['src/a.ts']))).to.equal(true);
    expect(await pushMatches(spec, 'refs/heads/release/old-1', files(['src/a.ts']))).to.equal(false);
    expect(await pushMatches(spec, 'refs/heads/feature', files(['src/a.ts']))).to.equal(false);
    // branch filters only: a tag does not trigger; tags filters only: a branch does not
    expect(await pushMatches({ branches: ['*'] }, 'refs/tags/v1', files([]))).to.equal(false);
    expect(await pushMatches({ tags: ['v*'] }, 'refs/tags/v1', files([]))).to.equal(true);
    expect(await pushMatches({ tags: ['v*'] }, 'refs/heads/v1', files([]))).to.equal(false);
    expect(await pushMatches({ 'branches-ignore': ['wip/*'] }, 'refs/heads/wip/x', files([]))).to.equal(false);
    expect(await pushMatches({ 'paths-ignore': ['docs/**'] }, 'refs/heads/x', files(['docs/a', 'docs/b']))).to.equal(false);
    expect(await pushMatches(null, 'refs/heads/x', files([]))).to.equal(true);
  });

  it('takes pull requests of their default activity types unless `types` names others', async () => {
    const wf = parseWorkflow('on:\n  pull_request:\n    branches: [main]\n  issues:\n    types: [labeled]\njobs: {a: {runs-on: x}}');
    expect(await eventMatches(wf, 'pull_request', { action: 'opened', branch: 'main' })).to.equal(true);
    expect(await eventMatches(wf, 'pull_request', { action: 'synchronized', branch: 'main' })).to.equal(true);
    expect(await eventMatches(wf, 'pull_request', { action: 'closed', branch: 'main' })).to.equal(false);
    expect(await eventMatches(wf, 'pull_request', { action: 'opened', branch: 'dev' })).to.equal(false);
    expect(await eventMatches(wf, 'issues', { action: 'label_updated' })).to.equal(true);
    expect(await eventMatches(wf, 'issues', { action: 'opened' })).to.equal(false);
    expect(await eventMatches(wf, 'release', { action: 'published' })).to.equal(false);
  });

  it('expands a matrix with exclude and include as GitHub does', () => {
    const combos = matrixCombinations({ os: ['linux', 'mac'], v: [1, 2], exclude: [{ os: 'mac', v: 1 }], include: [{ os: 'linux', extra: 'x' }, { os: 'bsd', v: 3 }] });
    expect(combos).to.deep.equal([{ os: 'linux', v: 1, extra: 'x' }, { os: 'linux', v: 2, extra: 'x' }, { os: 'mac', v: 2 }, { os: 'bsd', v: 3 }]);
    expect(matrixCombinations(undefined)).to.deep.equal([]);
  });

  it('plans one single-job workflow per combination, named as Gitea names them, without needs', () => {
    const wf = parseWorkflow('name: CI\non: push\nenv: {A: 1}\njobs:\n  build:\n    runs-on: ${{ matrix.os }}\n    strategy: {matrix: {os: [b, a]}}\n    steps: [{run: x}]\n  test:\n    name: Test ${{ matrix.n }}\n    needs: build\n    if: always()\n    runs-on: x\n    strategy: {matrix: {n: [1]}}\n');
    const jobs = planJobs(wf);
    expect(jobs.map((j) => [j.jobId, j.name, j.runsOn, j.needs, j.hasIf])).to.deep.equal([
      ['build', 'build (a)', ['a'], [], false], ['build', 'build (b)', ['b'], [], false], ['test', 'Test 1', ['x'], ['build'], true],
    ]);
    const single = YAML.parse(jobs[2].payload);
    expect(Object.keys(single.jobs)).to.deep.equal(['test']);
    expect(single.jobs.test.needs).to.equal(undefined);
    expect(single.jobs.test.strategy.matrix).to.deep.equal({ n: [1] });
    expect([single.name, single.on, single.env]).to.deep.equal(['CI', 'push', { A: 1 }]);
  });

  it('computes the next time of cron schedules in UTC', () => {
    const at = new Date('2026-11-27T10:31:20Z');
    const next = (spec: string) => nextCron(parseCron(spec), at).toISOString();
    expect(next('*/5 * * * *')).to.equal('2026-11-27T10:35:00.000Z');
    expect(next('0 3 * * *')).to.equal('2026-11-28T03:00:00.000Z');
    expect(next('30 9 * * mon-fri')).to.equal('2026-11-30T09:30:00.000Z');
    expect(next('0 0 1 jan *')).to.equal('2027-01-01T00:00:00.000Z');
    expect(next('@hourly')).to.equal('2026-11-27T11:00:00.000Z');
    // both day fields restricted: either matches (the 13th, or a Monday)
    expect(next('0 12 13 * 1')).to.equal('2026-11-30T12:00:00.000Z');
    expect(next('0 12 13 * 6')).to.equal('2026-11-28T12:00:00.000Z');
    expect(next('0 12 13 12 *')).to.equal('2026-12-13T12:00:00.000Z');
    for (const bad of ['* * * *', '61 * * * *', '*/0 * * * *', 'x * * * *']) expect(() => parseCron(bad), bad).to.throw();
  });
});
