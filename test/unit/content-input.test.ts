/**
 * The contents API's input rules on their own: write paths, branch names, base64 as Go decodes it,
 * LFS pointers, and the LFS double read (the second read must give the same full content, or nothing
 * is stored).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { expect } from 'chai';
import { loadSettings, useSettings } from '../../src/config';
import { HttpError } from '../../src/errors';
import { checkWritePath, cleanReadPath, decodeBase64, isGitDirName, isValidBranchName } from '../../src/services/content/paths';
import { parseLfsPointer, pointerText, storeLfsContent } from '../../src/services/content/lfs-pointer';

const status = (fn: () => unknown): number | null => {
  try { fn(); return null; } catch (err) { return err instanceof HttpError ? err.status : -1; }
};

describe('contents input rules', () => {
  it('accepts ordinary paths and refuses every way to reach .git or leave the tree', () => {
    for (const ok of ['a', 'a/b.txt', 'docs/.gitignore', '.gitattributes', '.github/workflows/x.yml', 'a b/ç.txt', 'git~x', '.gitmodules']) {
      expect(checkWritePath(ok)).to.equal(ok);
    }
    for (const bad of ['', '/a', 'a/', 'a//b', './a', 'a/./b', '..', '../a', 'a/../b', '.git', '.GIT/config', 'x/.Git/y', '.git./a', '.git  /a',
      'GIT~1/config', '.g\u200dit/x', '.git:$INDEX_ALLOCATION/x', 'a\\b', 'a\0b', 'a\nb', 'a\rb']) {
      expect(status(() => checkWritePath(bad)), JSON.stringify(bad)).to.equal(422);
    }
    expect(isGitDirName('.git\ufeff')).to.equal(true);
  });

  it('cleans read paths like Gitea and refuses .. and .git', () => {
    expect(cleanReadPath('/a/./b/')).to.equal('a/b');
    expect(cleanReadPath('.')).to.equal('');
    expect(cleanReadPath(undefined)).to.equal('');
    expect(status(() => cleanReadPath('a/../b'))).to.equal(422);
    expect(status(() => cleanReadPath('.git/HEAD'))).to.equal(422);
  });

  it('checks branch names as git check-ref-format, without a leading dash', () => {
    for (const ok of ['main', 'feature/x', 'v1.0', 'a-b_c']) expect(isValidBranchName(ok), ok).to.equal(true);
    for (const bad of ['-f', '--orphan', 'a..b', 'a b', 'a~1', 'a^', 'a:b', 'a?', 'a*', 'a[', 'a\\b', '/a', 'a/', 'a//b', '.a', 'a/.b', 'a.lock', 'a.', '@', 'a@{1}', '']) {
      expect(isValidBranchName(bad), bad).to.equal(false);
    }
  });

  it('decodes base64 as Go StdEncoding and names the first bad byte', () => {
    expect(decodeBase64('aGVsbG8=').toString()).to.equal('hello');
    expect(decodeBase64('aGVs\nbG8=').toString()).to.equal('hello');
    expect(decodeBase64('').length).to.equal(0);
    const msg = (s: string) => { try { decodeBase64(s); return ''; } catch (e) { return (e as Error).message; } };
    expect(msg('aGVsbG8')).to.equal('illegal base64 data at input byte 4');
    expect(msg('aGV*bG8=')).to.equal('illegal base64 data at input byte 3');
    expect(msg('aG==bG8=')).to.match(/^illegal base64 data at input byte/);
  });

  it('recognises LFS pointers only in their exact form', () => {
    const oid = 'a'.repeat(64);
    expect(parseLfsPointer(Buffer.from(pointerText(oid, 12)))).to.deep.equal({ oid, size: 12 });
    expect(parseLfsPointer(Buffer.from(`version https://git-lfs.github.com/spec/v1\noid sha256:${oid}\nsize 12\next-0-foo sha256:x\n`))).to.deep.equal({ oid, size: 12 });
    expect(parseLfsPointer(Buffer.from(`oid sha256:${oid}\nsize 12\n`))).to.equal(null);
    expect(parseLfsPointer(Buffer.from(pointerText('A'.repeat(64), 12)))).to.equal(null);
    expect(parseLfsPointer(Buffer.alloc(2000, 'a'))).to.equal(null);
  });

  describe('LFS double read', () => {
    let dir: string;
    before(() => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'forge-lfs-unit-'));
      useSettings(loadSettings(null, { FORGE__SERVER__APP_DATA_PATH: dir, FORGE__LOG__LEVEL: 'none' }));
    });
    after(() => fs.rmSync(dir, { recursive: true, force: true }));
    const stored = (oid: string) => fs.existsSync(path.join(dir, 'lfs', oid.slice(0, 2), oid.slice(2, 4), oid));

    it('stores the content when both reads agree', async () => {
      const data = Buffer.from('large file content');
      const r = await storeLfsContent(() => Readable.from([data]));
      expect(r.oid).to.equal(crypto.createHash('sha256').update(data).digest('hex'));
      expect(r.pointer.toString()).to.equal(pointerText(r.oid, data.length));
      expect(stored(r.oid)).to.equal(true);
    });

    it('refuses with a clear 422 and stores nothing when the second read is short or different', async () => {
      for (const second of [Buffer.from('first read!'.slice(0, 5)), Buffer.from('first reaD!')]) {
        let reads = 0;
        const first = Buffer.from('first read!');
        const err = await storeLfsContent(() => Readable.from([reads++ === 0 ? first : second])).then(() => null, (e: unknown) => e);
        expect(err).to.be.instanceOf(HttpError);
        expect((err as HttpError).status).to.equal(422);
        expect((err as HttpError).message).to.match(/LFS content changed while it was read: content (size|hash) does not match/);
        expect(stored(crypto.createHash('sha256').update(first).digest('hex'))).to.equal(false);
      }
    });
  });
});
