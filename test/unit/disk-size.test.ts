/** A repository's size read from the file system, against `git count-objects -v` as objects come, pack and go. */
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { repoSizeBytes } from '../../src/git/disk-size';

describe('repository size on disk', () => {
  let dir: string;
  const git = (args: string[], input?: string) => execFileSync('git', args, { cwd: dir, encoding: 'utf8', input }).trim();
  const counted = () => {
    const out = git(['count-objects', '-v']);
    const kib = (k: string) => Number(new RegExp(`^${k}: (\\d+)$`, 'm').exec(out)![1]);
    return (kib('size') + kib('size-pack')) * 1024;
  };
  const blobs = (n: number) => { for (let i = 0; i < n; i++) git(['hash-object', '-w', '--stdin'], crypto.randomBytes(3000 + i * 97).toString('hex')); };

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'forge-disk-size-'));
    git(['init', '--bare', '-q', '.']);
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('matches git for an empty repository, loose objects, packs, and after objects go', async () => {
    expect(await repoSizeBytes(dir)).to.equal(counted()).and.equal(0);
    blobs(40);
    expect(await repoSizeBytes(dir)).to.equal(counted()).and.be.greaterThan(0);
    blobs(5);
    expect(await repoSizeBytes(dir)).to.equal(counted());
    git(['repack', '-adq']);
    git(['prune-packed']);
    expect(await repoSizeBytes(dir)).to.equal(counted());
    blobs(3);
    expect(await repoSizeBytes(dir)).to.equal(counted());
    git(['prune', '--expire=now']);
    expect(await repoSizeBytes(dir)).to.equal(counted());
  });

  it('leaves out files that are not objects, and packs without an index', async () => {
    blobs(3);
    fs.writeFileSync(path.join(dir, 'objects', 'tmp_obj_x'), 'x'.repeat(10000));
    const fan = fs.readdirSync(path.join(dir, 'objects')).find((d) => /^[0-9a-f]{2}$/.test(d))!;
    fs.writeFileSync(path.join(dir, 'objects', fan, 'tmp_obj_y'), 'y'.repeat(10000));
    fs.writeFileSync(path.join(dir, 'objects', 'pack', 'pack-orphan.pack'), 'z'.repeat(10000));
    expect(await repoSizeBytes(dir)).to.equal(counted());
  });
});
