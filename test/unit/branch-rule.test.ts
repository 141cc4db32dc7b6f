/**
 * Branch protection rule names: a plain name matches its branch whatever the case; a name with a
 * glob character is a glob with `/` as separator (`*` and `?` within a segment, `**` across).
 */
import { expect } from 'chai';
import { ruleMatches } from '../../src/services/refs/branch-protection.service';
import { isGlobRule } from '../../src/models/protected-branch.model';
import { filePatterns, matchesAny } from '../../src/services/refs/branch-guard';

describe('branch protection rule names', () => {
  it('tells plain names from globs as Gitea does (any regular-expression metacharacter)', () => {
    for (const name of ['main', 'release/v1', 'dev-2']) expect(isGlobRule(name), name).to.equal(false);
    for (const name of ['release/*', 'v1.0', 'a+b', '{x,y}', 'f?o']) expect(isGlobRule(name), name).to.equal(true);
  });

  it('matches a plain name case-insensitively and nothing else', () => {
    expect(ruleMatches('main', 'main')).to.equal(true);
    expect(ruleMatches('main', 'MAIN')).to.equal(true);
    expect(ruleMatches('main', 'main2')).to.equal(false);
    expect(ruleMatches('release/v1', 'release/v1')).to.equal(true);
  });

  it('keeps * and ? within one segment and lets ** cross them, case-sensitively', () => {
    expect(ruleMatches('release/*', 'release/v1')).to.equal(true);
    expect(ruleMatches('release/*', 'release/v1/hotfix')).to.equal(false);
    expect(ruleMatches('release/**', 'release/v1/hotfix')).to.equal(true);
    expect(ruleMatches('*', 'feature/x')).to.equal(false);
    expect(ruleMatches('**', 'feature/x')).to.equal(true);
    expect(ruleMatches('f?o', 'foo')).to.equal(true);
    expect(ruleMatches('a?b', 'a/b')).to.equal(false);
    expect(ruleMatches('release/*', 'Release/v1')).to.equal(false);
    expect(ruleMatches('{main,dev}', 'dev')).to.equal(true);
  });

  it('lets an invalid glob protect nothing', () => {
    expect(ruleMatches('[main', '[main')).to.equal(false);
  });

  it('reads protected file patterns as lower-cased globs split on ; with . and / as separators', () => {
    const globs = filePatterns(' *.LOCK ; docs/** ;; [bad ');
    expect(globs).to.have.length(2);
    expect(matchesAny(globs, 'yarn.lock')).to.equal(true);
    expect(matchesAny(globs, 'Yarn.LOCK')).to.equal(true);
    expect(matchesAny(globs, 'a.b.lock')).to.equal(false);
    expect(matchesAny(globs, 'sub/yarn.lock')).to.equal(false);
    expect(matchesAny(globs, 'docs/a/b.md')).to.equal(true);
    expect(matchesAny(filePatterns(''), 'anything')).to.equal(false);
  });
});
