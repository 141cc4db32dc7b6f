/**
 * Parsing raw commit objects: identities with their offsets, parents, message, signature and signed
 * payload; and reading them, where commit texts are kept between reads.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { expect } from 'chai';
import { parseCommit, readCommits } from '../../src/git/history';

const SIGNED = [
  'tree 9a93ffa76e8b72bdb6431910b3a506fa2b39f42e',
  'parent 1111111111111111111111111111111111111111',
  'parent 2222222222222222222222222222222222222222',
  'author User Two <user2@example.com> 1749230009 +0200',
  'committer Other Name <other@example.com> 1749230010 -0530',
  'gpgsig -----BEGIN SSH SIGNATURE-----',
  ' U1NIU0lHAAAAAQ==',
  ' ',
  ' -----END SSH SIGNATURE-----',
  '',
  'Subject line',
  '',
  'Body.',
  '',
].join('\n');

describe('commit object parsing', () => {
  it('reads tree, parents, identities in their own offsets and the message', () => {
    const c = parseCommit('abc', SIGNED);
    expect(c.tree).to.equal('9a93ffa76e8b72bdb6431910b3a506fa2b39f42e');
    expect(c.parents).to.have.length(2);
    expect(c.author).to.deep.equal({ name: 'User Two', email: 'user2@example.com', date: '2025-06-06T19:13:29+02:00' });
    expect(c.committer.date).to.equal('2025-06-06T11:43:30-05:30');
    expect(c.message).to.equal('Subject line\n\nBody.\n');
  });

  it('splits the signature from the payload it signs', () => {
    const c = parseCommit('abc', SIGNED);
    expect(c.signature!.signature).to.equal('-----BEGIN SSH SIGNATURE-----\nU1NIU0lHAAAAAQ==\n\n-----END SSH SIGNATURE-----\n');
    expect(c.signature!.payload).to.equal(SIGNED.replace(/gpgsig [\s\S]*?-----END SSH SIGNATURE-----\n/, ''));
  });

  it('an unsigned commit has no signature', () => {
    expect(parseCommit('abc', 'tree t\nauthor A <a@x> 0 +0000\ncommitter A <a@x> 0 +0000\n\nm\n').signature).to.equal(null);
  });
});

describe('reading commits', () => {
  let root: string;
  const env = { ...process.env, GIT_AUTHOR_NAME: 'T', GIT_AUTHOR_EMAIL: 't@e', GIT_COMMITTER_NAME: 'T', GIT_COMMITTER_EMAIL: 't@e' };
  /** A repository with one commit of `message`; its git dir and the commit id. */
  const repo = (name: string, message: string) => {
    const dir = path.join(root, name);
    execFileSync('git', ['init', '-q', '-b', 'main', dir], { env });
    execFileSync('git', ['commit', '-q', '--allow-empty', '-m', message], { cwd: dir, env });
    return { gitDir: path.join(dir, '.git'), id: execFileSync('git', ['rev-parse', 'HEAD'], { cwd: dir }).toString().trim() };
  };
  before(() => { root = fs.mkdtempSync(path.join(os.tmpdir(), 'forge-read-commits-')); });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  it('a kept commit is served only for the repository it was read from', async () => {
    const a = repo('a', 'in a');
    const b = repo('b', 'in b');
    expect((await readCommits(a.gitDir, [a.id]))[0].message).to.equal('in a\n');
    expect(await readCommits(b.gitDir, [a.id])).to.deep.equal([]);
    expect((await readCommits(b.gitDir, [b.id, a.id, b.id])).map((c) => c.id)).to.deep.equal([b.id, b.id]);
  });

  it('each read gets its own records, so what a caller adds does not reach the next', async () => {
    const c = repo('c', 'twice');
    const [first] = await readCommits(c.gitDir, [c.id]);
    first.files = [{ status: 'A', path: 'x' }];
    first.author.name = 'changed';
    const [again] = await readCommits(c.gitDir, [c.id]);
    expect(again).to.not.have.property('files');
    expect(again.author.name).to.equal('T');
    expect(again).to.deep.equal(parseCommit(c.id, execFileSync('git', ['cat-file', 'commit', c.id], { cwd: c.gitDir }).toString()));
  });
});
