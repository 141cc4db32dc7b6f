/** Branches and tags read from the ref files, against repositories the git CLI changes. */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { storedRef } from '../../src/git/ref-files';

describe('ref files', () => {
  let dir: string;
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim();
  const commit = (msg: string) => git('commit-tree', git('mktree', '--missing'), '-m', msg);

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'forge-ref-files-'));
    git('init', '--bare', '-q', '.');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('reads a loose ref, then the packed one, and sees every later move', () => {
    const a = commit('a');
    const b = commit('b');
    git('update-ref', 'refs/heads/main', a);
    expect(storedRef(dir, 'refs/heads/main')).to.equal(a);
    git('pack-refs', '--all');
    expect(fs.existsSync(path.join(dir, 'refs/heads/main'))).to.equal(false);
    expect(storedRef(dir, 'refs/heads/main')).to.equal(a);
    git('update-ref', 'refs/heads/main', b);
    expect(storedRef(dir, 'refs/heads/main')).to.equal(b);
    git('pack-refs', '--all');
    expect(storedRef(dir, 'refs/heads/main')).to.equal(b);
    // a packed-refs rewritten with a line of the same length (same size) is read again
    git('update-ref', 'refs/tags/v1', a);
    git('pack-refs', '--all');
    expect(storedRef(dir, 'refs/tags/v1')).to.equal(a);
    git('update-ref', 'refs/tags/v1', b);
    git('pack-refs', '--all');
    expect(storedRef(dir, 'refs/tags/v1')).to.equal(b);
    git('update-ref', '-d', 'refs/tags/v1');
    expect(storedRef(dir, 'refs/tags/v1')).to.equal(null);
  });

  it('leaves symbolic refs and repositories without packed-refs to git', () => {
    const a = commit('a');
    git('update-ref', 'refs/heads/main', a);
    expect(fs.existsSync(path.join(dir, 'packed-refs'))).to.equal(false);
    expect(storedRef(dir, 'refs/heads/missing')).to.equal(undefined);
    git('symbolic-ref', 'refs/heads/alias', 'refs/heads/main');
    expect(storedRef(dir, 'refs/heads/alias')).to.equal(undefined);
    git('pack-refs', '--all');
    expect(storedRef(dir, 'refs/heads/missing')).to.equal(null);
    expect(storedRef(dir, 'refs/heads/alias')).to.equal(undefined);
  });
});
