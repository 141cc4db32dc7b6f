/**
 * The diff lines a comment on a line keeps: the file's header, then at most `count` lines of the
 * hunk ending at the commented line, under an `@@` line recounted for just those lines.
 */
import { expect } from 'chai';
import { cutDiffAroundLine } from '../../src/git/line-context';

const HEADER = ['diff --git a/f b/f', 'index 1111111..2222222 100644', '--- a/f', '+++ b/f'];
const diff = (...hunks: string[][]) => [...HEADER, ...hunks.flat(), ''].join('\n');

describe('cutDiffAroundLine', () => {
  const changed = diff(['@@ -1,6 +1,7 @@', ' a', ' b', '-c', '+C', ' d', ' e', ' f', '+g']);

  it('keeps the lines up to a new-side line, and up to an old-side line', () => {
    expect(cutDiffAroundLine(changed, 3, false, 4)).to.equal([...HEADER, '@@ -1,3 +1,3 @@', ' a', ' b', '-c', '+C'].join('\n'));
    expect(cutDiffAroundLine(changed, 3, true, 4)).to.equal([...HEADER, '@@ -1,3 +1,2 @@', ' a', ' b', '-c'].join('\n'));
    expect(cutDiffAroundLine(changed, 7, false, 3)).to.equal([...HEADER, '@@ -5,2 +5,3 @@', ' e', ' f', '+g'].join('\n'));
  });

  it('counts from the hunk that holds the line, and from an empty side\'s start', () => {
    const two = diff(['@@ -1,2 +1,2 @@', '-x', '+X', ' y'], ['@@ -10,0 +11,2 @@', '+p', '+q']);
    expect(cutDiffAroundLine(two, 12, false, 4)).to.equal([...HEADER, '@@ -10,0 +11,2 @@', '+p', '+q'].join('\n'));
    const added = diff(['@@ -0,0 +1,2 @@', '+n1', '+n2']);
    expect(cutDiffAroundLine(added, 2, false, 4)).to.equal([...HEADER, '@@ -0,0 +1,2 @@', '+n1', '+n2'].join('\n'));
  });

  it('gives nothing for a line the diff does not show', () => {
    expect(cutDiffAroundLine(changed, 40, false, 4)).to.equal('');
    expect(cutDiffAroundLine(changed, 7, true, 4)).to.equal('');
    expect(cutDiffAroundLine('', 1, false, 4)).to.equal('');
  });
});
