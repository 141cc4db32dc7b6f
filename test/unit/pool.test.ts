/** The worker pool (a task runs in a thread against a real repository, marked errors come back typed) and the git readers beside it. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { expect } from 'chai';
import { runTask, closePool } from '../../src/pool';
import { HttpError } from '../../src/errors';
import { resolveCommit } from '../../src/git/cat-file';

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

  it('runs a task in a worker thread against the repository', async () => {
    const page = await runTask('treePage', { gitDir: path.join(dir, '.git'), sha: 'main', recursive: false, page: 1, perPage: 10 });
    expect(page.entries.map((e) => e.path)).to.deep.equal(['a']);
  });

  it('turns a task error into the typed HTTP error', async () => {
    const err = await runTask('treePage', { gitDir: path.join(dir, '.git'), sha: 'nope', recursive: false, page: 1, perPage: 10 }).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(HttpError);
    expect((err as HttpError).status).to.equal(400);
    expect((err as HttpError).message).to.equal('sha not found [nope]');
  });

  it('resolves branches, annotated tags and short ids to the commit through the cat-file reader, and unknown names to null', async () => {
    const gitDir = path.join(dir, '.git');
    for (const rev of ['main', 'v1', head.slice(0, 8), head]) expect(await resolveCommit(gitDir, rev)).to.equal(head);
    for (const rev of ['nope', 'main:a', 'v1^{tree}']) expect(await resolveCommit(gitDir, rev)).to.equal(null);
    await resolveCommit(gitDir, 'a\nmain').then(() => expect.fail('a line break was written to git'), (e: Error) => expect(e.message).to.match(/checked revision/));
  });
});
