/**
 * The reference grammar against the cases Gitea's modules/references tests: boundaries, keywords
 * right before a reference, cross-repository references, links to this forge, Markdown code, and
 * keywords from the configuration.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { loadSettings, useSettings } from '../../src/config';
import { findIssueReferences, findIssueReferencesMarkdown, RefAction } from '../../src/services/issue/references';

const C = RefAction.Closes;
const R = RefAction.Reopens;
const N = RefAction.None;

/** [index, owner/name or '', action, isPull] of each reference found. */
const md = (text: string) => findIssueReferencesMarkdown(text).map((r) => [r.index, r.owner ? `${r.owner}/${r.name}` : '', r.action, r.isPull]);

describe('issue references', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'forge-refs-'));
  const use = (env: Record<string, string> = {}) => useSettings(loadSettings(null, {
    FORGE__SERVER__APP_DATA_PATH: dir, FORGE__LOG__LEVEL: 'none', FORGE__SERVER__ROOT_URL: 'https://gitea.com:3000/', ...env,
  }));
  beforeEach(() => use());
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('finds numeric references between Gitea\'s boundaries', () => {
    expect(md(' #124 yes, this is a reference.')).to.deep.equal([[124, '', N, false]]);
    expect(md('For [!123] yes')).to.deep.equal([[123, '', N, true]]);
    expect(md('For (#345) yes')).to.deep.equal([[345, '', N, false]]);
    expect(md('For #22,#23 no, neither #28:#29 or !30!31#32;33 should')).to.deep.equal([]);
    expect(md('For #24, and #25. yes; also #26; #27? #28! and #29: should').map((r) => r[0])).to.deep.equal([24, 25, 26, 27, 28, 29]);
    expect(md("Merge pull request '#12345 My fix for a bug' (!1337) from feature-branch into main")).to.deep.equal([[12345, '', N, false], [1337, '', N, true]]);
    expect(md('Which abc. #9434 same as above')).to.deep.equal([[9434, '', N, false]]);
    expect(md('# 1234, #ABC, #1A2B, a#12')).to.deep.equal([]);
  });

  it('reads an action keyword only right before the reference', () => {
    expect(md('Simply closes: #29 yes')).to.deep.equal([[29, '', C, false]]);
    expect(md('Reopens #15 yes')).to.deep.equal([[15, '', R, false]]);
    expect(md('This closes #600 and reopens #599')).to.deep.equal([[600, '', C, false], [599, '', R, false]]);
    expect(md('Do you fix user6/repo6#300 ? yes')).to.deep.equal([[300, 'user6/repo6', C, false]]);
    expect(md('For 999 #1235 no keyword, but yes')).to.deep.equal([[1235, '', N, false]]);
    expect(md('prefixes #3 and fixes  #4')).to.deep.equal([[3, '', N, false], [4, '', N, false]]);
    expect(md('**Fixes** #5')).to.deep.equal([[5, '', C, false]]);
  });

  it('finds cross-repository references and links to this forge, not code or other hosts', () => {
    expect(md('This user3/repo4#200, yes.')).to.deep.equal([[200, 'user3/repo4', N, false]]);
    expect(md('This User3/Repo4!200 yes.')).to.deep.equal([[200, 'user3/repo4', N, true]]);
    expect(md('```\nThis is a code block.\n#723 no, it\'s a code block.```')).to.deep.equal([]);
    expect(md("This `#724` no, it's inline code.")).to.deep.equal([]);
    expect(md('This [one](#919) no, this is a URL fragment.')).to.deep.equal([]);
    expect(md('This [two](/user2/repo1/issues/921) yes.')).to.deep.equal([[921, 'user2/repo1', N, false]]);
    expect(md('This [three](/user2/repo1/pulls/922) yes.')).to.deep.equal([[922, 'user2/repo1', N, true]]);
    expect(md('This [four](http://gitea.com:3000/user3/repo4/issues/203) yes.')).to.deep.equal([[203, 'user3/repo4', N, false]]);
    expect(md('This [five](http://github.com/user3/repo4/issues/204) no.')).to.deep.equal([]);
    expect(md('This http://GiTeA.COM:3000/user4/repo6/pulls/205 yes.')).to.deep.equal([[205, 'user4/repo6', N, true]]);
  });

  it('shortens full links in plain text (commit messages), keeping the keyword before them', () => {
    const refs = findIssueReferences('fixes https://gitea.com:3000/owner/repo/issues/12, and https://gitea.com:3000/owner/repo/pulls/13\n');
    expect(refs.map((r) => [r.index, `${r.owner}/${r.name}`, r.action, r.isPull])).to.deep.equal([[12, 'owner/repo', C, false], [13, 'owner/repo', N, true]]);
    expect(findIssueReferences('See `#7` in plain text').map((r) => r.index), 'plain text has no code spans').to.deep.equal([]);
    expect(findIssueReferences('Fix crash\n\nCloses #7').map((r) => [r.index, r.action])).to.deep.equal([[7, C]]);
  });

  it('takes the keywords from [repository.pull-request] CLOSE_KEYWORDS and REOPEN_KEYWORDS', () => {
    use({ 'FORGE__REPOSITORY_0X2E_PULL-REQUEST__CLOSE_KEYWORDS': 'cierra, cerró', 'FORGE__REPOSITORY_0X2E_PULL-REQUEST__REOPEN_KEYWORDS': 'reabre' });
    expect(md('Simplemente cierra: #29 yes')).to.deep.equal([[29, '', C, false]]);
    expect(md('Closes: #123 no, this English.')).to.deep.equal([[123, '', N, false]]);
    expect(md('AQUÍ SE CERRÓ user6/repo6#300 yes')).to.deep.equal([[300, 'user6/repo6', C, false]]);
    expect(md('Reabre user3/repo4#200 yes')).to.deep.equal([[200, 'user3/repo4', R, false]]);
    use({ 'FORGE__REPOSITORY_0X2E_PULL-REQUEST__CLOSE_KEYWORDS': '' });
    expect(md('closes #1')).to.deep.equal([[1, '', N, false]]);
  });
});
