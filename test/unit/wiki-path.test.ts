/**
 * Wiki page names on their own: Gitea's title <-> web path <-> file name mapping (spaces and dashes,
 * the dash marker, query escaping, `.md` web paths naming files directly, `..` never climbing out),
 * the forge's refusal of hostile names, and `.wiki` repository paths in the SSH command grammar.
 */
import { expect } from 'chai';
import {
  gitPathToWebPath, isSafeGitPath, isSafeTitle, pathJoinRelX, queryEscape, queryUnescape, reservedSegment,
  titleToWebPath, webPathFromRequest, webPathToGitPath, webPathToTitle,
} from '../../src/services/wiki/wiki-path';
import { goQuote } from '../../src/services/wiki/wiki-write.service';
import { CommandRefused, parseCommand } from '../../ssh/command';

describe('wiki page names', () => {
  it('escapes and unescapes as Go url.QueryEscape / QueryUnescape', () => {
    expect(queryEscape('a b/c?d%e~f-g_h.i*j')).to.equal('a+b%2Fc%3Fd%25e~f-g_h.i%2Aj');
    expect(queryEscape('Ü')).to.equal('%C3%9C');
    expect(queryUnescape('a+b%2Fc')).to.equal('a b/c');
    expect(queryUnescape('100%')).to.equal(null);
    expect(queryUnescape('%zz')).to.equal(null);
  });

  it('joins relative paths like util.PathJoinRelX', () => {
    expect(pathJoinRelX('')).to.equal('');
    expect(pathJoinRelX('/')).to.equal('.');
    expect(pathJoinRelX('../../etc/passwd')).to.equal('etc/passwd');
    expect(pathJoinRelX('a\\..\\..\\b')).to.equal('b');
    expect(pathJoinRelX('a', '../b')).to.equal('a/b');
    expect(pathJoinRelX('a//b/./c/')).to.equal('a/b/c');
  });

  it('maps titles, web paths, file names and back', () => {
    const cases: [string, string, string][] = [
      ['Home', 'Home', 'Home.md'],
      ['Home Page', 'Home-Page', 'Home-Page.md'],
      ['2000-01-02 meeting', '2000-01-02+meeting.-', '2000-01-02 meeting.-.md'],
      ['100% Free', '100%25-Free', '100%25-Free.md'],
      ['notes.md', 'notes.md.-', 'notes.md.-.md'],
      ['a/b', 'a%2Fb', 'a%2Fb.md'],
      ['a\\b', 'a%5Cb', 'a%5Cb.md'],
    ];
    for (const [title, wp, file] of cases) {
      expect(titleToWebPath(title), title).to.equal(wp);
      expect(webPathToGitPath(wp), title).to.equal(file);
      expect(gitPathToWebPath(file), title).to.equal(wp);
      expect(webPathToTitle(wp), title).to.equal(title);
    }
    expect(titleToWebPath('  padded  ')).to.equal('padded');
    expect(titleToWebPath('..')).to.equal('unnamed');
    expect(gitPathToWebPath('README.txt')).to.equal(null);
    expect(gitPathToWebPath('100%.md')).to.equal(null);
  });

  it('reads request names raw: slashes stay in one segment, `.md` names a file', () => {
    expect(webPathFromRequest('a/b')).to.equal('a%2Fb');
    expect(webPathFromRequest('../../x')).to.equal('x');
    expect(webPathToGitPath('sub%2Fpage.md')).to.equal('sub/page.md');
    expect(webPathToGitPath('..%2F..%2Fx.md')).to.equal('x.md');
    expect(webPathToGitPath('..%2F..%2Fx')).to.equal('..%2F..%2Fx.md');
    expect(webPathToTitle('sub%2Fpage.md')).to.equal('sub/page');
  });

  it('knows reserved names and refuses hostile ones', () => {
    for (const r of ['_pages', '_new', '_edit', 'raw']) expect(reservedSegment(titleToWebPath(r))).to.equal(r);
    expect(reservedSegment('Home')).to.equal(null);
    for (const t of ['.', '..', '.git', '.Git', '.git ', 'GIT~1', 'a\0b', 'a\rb', '-x', '--help']) expect(isSafeTitle(t), JSON.stringify(t)).to.equal(false);
    for (const t of ['Home', 'a-b', 'x.git', 'a/b', '..x']) expect(isSafeTitle(t), t).to.equal(true);
    for (const p of ['', '/x.md', 'a//b.md', './x.md', '../x.md', '.git/config.md', 'a\\b.md', 'x\0.md']) expect(isSafeGitPath(p, false), JSON.stringify(p)).to.equal(false);
    expect(isSafeGitPath('-x.md', false)).to.equal(true);
    expect(isSafeGitPath('-x.md', true)).to.equal(false);
    expect(isSafeGitPath('sub/-x.md', true)).to.equal(false);
    expect(isSafeGitPath('Home.md', true)).to.equal(true);
  });

  it("quotes commit message names as Go's %q", () => {
    expect(goQuote('Home')).to.equal('"Home"');
    expect(goQuote('a"b\\c\nd\x01')).to.equal('"a\\"b\\\\c\\nd\\x01"');
    expect(goQuote('Ünï')).to.equal('"Ünï"');
  });

  it('parses `.wiki` repository paths over SSH for git services only', () => {
    expect(parseCommand("git-upload-pack 'alice/docs.wiki.git'")).to.deep.equal({ kind: 'git', service: 'upload-pack', owner: 'alice', repo: 'docs', wiki: true });
    expect(parseCommand('git-receive-pack /alice/docs.WIKI')).to.deep.equal({ kind: 'git', service: 'receive-pack', owner: 'alice', repo: 'docs', wiki: true });
    expect(parseCommand("git-upload-pack 'alice/docs.git'")).to.deep.equal({ kind: 'git', service: 'upload-pack', owner: 'alice', repo: 'docs' });
    expect(() => parseCommand("git-upload-pack 'alice/.wiki'")).to.throw(CommandRefused, /Invalid repository path/);
    expect(() => parseCommand("git-lfs-authenticate 'alice/docs.wiki' download")).to.throw(CommandRefused, /LFS is not available for wikis/);
  });
});
