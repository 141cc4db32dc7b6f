/**
 * Tag protection patterns: globs as gobwas/glob reads them without separators (`*` crosses `/`,
 * `?`, classes, negation, braces, escapes), `/regex/` recognition and compile errors, and the
 * uploaded-file name and ref-name rules.
 */
import { expect } from 'chai';
import { compileGlob, globMatches, isRegexPattern, regexSource, assertPattern, PatternError } from '../../src/services/refs/pattern';
import { isValidRefName } from '../../src/services/refs/names';
import { sniffType, typeAllowed } from '../../src/services/storage/attachment-store';

const m = (pattern: string, name: string) => globMatches(compileGlob(pattern), name);

describe('tag protection patterns', () => {
  it('matches globs like gobwas/glob without separators', () => {
    expect(m('v*', 'v1.0')).to.equal(true);
    expect(m('v*', 'release/v1')).to.equal(false);
    expect(m('*', 'a/b/c')).to.equal(true);
    expect(m('rel/**', 'rel/a/b')).to.equal(true);
    expect(m('v?.0', 'v1.0')).to.equal(true);
    expect(m('v?.0', 'v10.0')).to.equal(false);
    expect(m('v[0-9]', 'v7')).to.equal(true);
    expect(m('v[!0-9]', 'v7')).to.equal(false);
    expect(m('v[!0-9]', 'vx')).to.equal(true);
    expect(m('{stable,lts}-*', 'lts-2')).to.equal(true);
    expect(m('{stable,lts}-*', 'beta-2')).to.equal(false);
    expect(m('a{b,{c,d}}e', 'ade')).to.equal(true);
    expect(m('\\*', '*')).to.equal(true);
    expect(m('\\*', 'x')).to.equal(false);
    expect(m('', '')).to.equal(true);
    expect(m('exact', 'exact')).to.equal(true);
    expect(m('exact', 'exactly')).to.equal(false);
  });

  it('matches many stars in linear time instead of backtracking', () => {
    expect(m(`${'*a'.repeat(30)}b`, 'a'.repeat(200))).to.equal(false);
  });

  it('recognises /regex/ patterns and translates Go\'s (?i)', () => {
    expect(isRegexPattern('/v\\d+/')).to.equal(true);
    expect(isRegexPattern('/')).to.equal(false);
    expect(regexSource('/(?i)^v/')).to.deep.equal({ source: '^v', flags: 'i' });
  });

  it('refuses patterns that do not compile', () => {
    for (const bad of ['[abc', 'v{1,2', 'x\\', '/(/', '[]', '[z-a]']) {
      expect(() => assertPattern(bad), bad).to.throw(PatternError);
    }
  });

  it('accepts ref names as Gitea\'s GitRefName rule does, never with a leading dash', () => {
    for (const ok of ['main', 'feature/x', 'v1.0', 'a-b_c', 'ü']) expect(isValidRefName(ok), ok).to.equal(true);
    for (const bad of ['-x', '--output=x', 'a..b', 'a b', 'a~1', 'a^', 'a:b', 'a?', 'a*', 'a[', 'a\\b', '/a', 'a/', 'a//b', '.a', 'a/.b', 'a.lock', 'a.', '@', 'a@{1}', '', 'a\nb']) {
      expect(isValidRefName(bad), JSON.stringify(bad)).to.equal(false);
    }
  });
});

describe('upload type checks', () => {
  it('sniffs the common signatures', () => {
    expect(sniffType(Buffer.from('%PDF-1.4'))).to.equal('application/pdf');
    expect(sniffType(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))).to.equal('image/png');
    expect(sniffType(Buffer.from('  <html><body>'))).to.equal('text/html; charset=utf-8');
    expect(sniffType(Buffer.from('plain words'))).to.equal('text/plain; charset=utf-8');
    expect(sniffType(Buffer.from([0, 1, 2, 3]))).to.equal('application/octet-stream');
  });

  it('allows by extension, exact type or wildcard, everything for an empty list', () => {
    expect(typeAllowed(Buffer.from('x'), 'a.exe', '')).to.equal(true);
    expect(typeAllowed(Buffer.from('x'), 'a.TXT', '.txt')).to.equal(true);
    expect(typeAllowed(Buffer.from([0, 1, 2]), 'a.bin', '.txt|.md')).to.equal(false);
    expect(typeAllowed(Buffer.from('%PDF-1.4 body'), 'doc', 'application/pdf')).to.equal(true);
    expect(typeAllowed(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), 'pic', 'image/*')).to.equal(true);
    expect(typeAllowed(null, 'pic', 'image/*')).to.equal(false);
    expect(typeAllowed(null, 'x.y', '*/*')).to.equal(true);
  });
});
