/** The worker pool: a task runs in a thread against a real repository, and marked errors come back typed. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { expect } from 'chai';
import { runTask, closePool } from '../../src/pool';
import { HttpError } from '../../src/errors';

describe('worker pool', () => {
  let dir: string;
  let head: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'forge-pool-'));
    const env = { ...process.env, GIT_AUTHOR_NAME: 'T', GIT_AUTHOR_EMAIL: 't@e', GIT_COMMITTER_NAME: 'T', GIT_COMMITTER_EMAIL: 't@e' };
    execFileSync('git', ['init', '-q', '-b', 'main', dir], { env });
    fs.writeFileSync(path.join(dir, 'a'), 'a');
    execFileSync('git', ['add', 'a'], { cwd: dir, env });
    execFileSync('git', ['commit', '-qm', 'one'], { cwd: dir, env });
    execFileSync('git', ['tag', '-a', 'v1', '-m', 'tag'], { cwd: dir, env });
    head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: dir }).toString().trim();
  });
  after(async () => {
    await closePool();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('resolves branches, annotated tags and short ids to the commit in a worker thread', async () => {
    const gitDir = path.join(dir, '.git');
    for (const rev of ['main', 'v1', head.slice(0, 8), head]) expect(await runTask('resolveCommit', { gitDir, rev })).to.equal(head);
  });

  it('turns a task error into the typed HTTP error', async () => {
    const err = await runTask('resolveCommit', { gitDir: path.join(dir, '.git'), rev: 'nope' }).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(HttpError);
    expect((err as HttpError).status).to.equal(404);
    expect((err as HttpError).message).to.equal('object does not exist [id: nope, rel_path: ]');
  });
});
