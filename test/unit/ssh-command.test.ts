/**
 * The SSH command grammar: what git, git-lfs and a shell user send, and every hostile form refused
 * with its one-line reason; the env request policy.
 */
import { expect } from 'chai';
import { CommandRefused, decideEnv, parseCommand, parseRepoPath, splitWords } from '../../ssh/command';

function refused(raw: string, match: RegExp): void {
  expect(() => parseCommand(raw), raw).to.throw(CommandRefused, match);
}

describe('ssh command grammar', () => {
  it('accepts the three git services with the path forms git sends', () => {
    for (const [raw, service] of [
      ["git-upload-pack 'alice/repo.git'", 'upload-pack'],
      ["git-upload-pack '/alice/repo.git'", 'upload-pack'],
      ['git-receive-pack alice/repo', 'receive-pack'],
      ["git-upload-archive '/alice/repo'", 'upload-archive'],
      ["  git-receive-pack\t'alice/repo.git'  ", 'receive-pack'],
    ] as const) {
      expect(parseCommand(raw), raw).to.deep.equal({ kind: 'git', service, owner: 'alice', repo: 'repo' });
    }
  });

  it('keeps the names as written (case, dots, dashes, underscores) and strips only one .git', () => {
    expect(parseCommand("git-upload-pack 'Some.Org/my_repo-1.git'")).to.deep.equal({ kind: 'git', service: 'upload-pack', owner: 'Some.Org', repo: 'my_repo-1' });
    expect(parseCommand("git-upload-pack 'a/b.git.git'")).to.deep.include({ repo: 'b.git' });
    expect(parseCommand("git-upload-pack 'a/b.GIT'")).to.deep.include({ repo: 'b.GIT' });
    expect(parseCommand("git-upload-pack 'a/.hidden'")).to.deep.include({ repo: '.hidden' });
  });

  it('an empty command (shell request, or `ssh host ""`) is the greeting', () => {
    expect(parseCommand('')).to.deep.equal({ kind: 'greeting' });
    expect(parseCommand('   ')).to.deep.equal({ kind: 'greeting' });
  });

  it('accepts git-lfs-authenticate with upload or download', () => {
    expect(parseCommand("git-lfs-authenticate 'alice/repo.git' download")).to.deep.equal({ kind: 'lfs-authenticate', operation: 'download', owner: 'alice', repo: 'repo' });
    expect(parseCommand('git-lfs-authenticate /alice/repo.git upload')).to.deep.equal({ kind: 'lfs-authenticate', operation: 'upload', owner: 'alice', repo: 'repo' });
  });

  it('refuses unknown verbs, shells and the spaced `git upload-pack` form (Gitea does too)', () => {
    refused('sh', /^Unknown git command: sh$/);
    refused('bash -i', /Unknown git command: bash/);
    refused("git upload-pack 'alice/repo'", /Unknown git command: git$/);
    refused("git-lfs-transfer 'alice/repo' download", /Unknown git command/);
    refused("git-shell -c 'git-upload-pack alice/repo'", /Error parsing arguments|Unknown git command/);
    refused('ls-remote alice/repo', /Unknown git command/);
  });

  it('refuses shell syntax of any kind', () => {
    refused("git-upload-pack 'alice/repo'; id", /unexpected ";" after a quoted argument/);
    refused('git-upload-pack alice/repo;id', /character ";" is not allowed/);
    refused('git-upload-pack alice/repo && id', /character "&" is not allowed/);
    refused('git-upload-pack $(id)/x', /character "\$" is not allowed/);
    refused('git-upload-pack `id`/x', /character "`" is not allowed/);
    refused('git-upload-pack "alice/repo"', /character "\\"" is not allowed/);
    refused('git-upload-pack alice\\/repo', /character "\\\\" is not allowed/);
    refused('git-upload-pack alice/repo|id', /character "\|" is not allowed/);
    refused("git-upload-pack 'alice/repo'x", /unexpected "x" after a quoted argument/);
    refused("git-upload-pack al'ice/repo'", /character "'" is not allowed/);
    refused("git-upload-pack 'alice repo'", /character " " is not allowed/);
    refused('git-upload-pack alice/repo\nid', /control characters/);
    refused('git-upload-pack alice/\0repo', /control characters/);
  });

  it('refuses bad quoting', () => {
    refused("git-upload-pack 'alice/repo", /unterminated quote/);
    refused("git-upload-pack ''", /empty argument/);
  });

  it('refuses a missing, doubled or extra argument', () => {
    refused('git-upload-pack', /^Too few arguments$/);
    refused("git-upload-pack 'alice/a' 'alice/b'", /^Too many arguments$/);
    refused("git-receive-pack 'alice/a' --force", /^Too many arguments$/);
    refused("git-lfs-authenticate 'alice/a'", /^Too few arguments$/);
    refused("git-lfs-authenticate 'alice/a' download extra", /^Too many arguments$/);
  });

  it('refuses unknown LFS operations instead of granting anything', () => {
    refused("git-lfs-authenticate 'alice/a' foo", /Unknown LFS operation: foo/);
    refused("git-lfs-authenticate 'alice/a' Upload", /Unknown LFS operation/);
  });

  it('refuses option-like, traversing, absolute and malformed paths', () => {
    for (const p of ['-x', '--help', '--upload-pack=x', '../x', '../../etc', 'alice/..', 'alice/.', './repo', '../repo',
      'alice/.git', 'alice/..git', 'alice/repo.git/../../bob/x.git', 'alice/repo/x', '//alice/repo', '/home/git/alice/repo.git',
      'alice', 'alice/', '/alice/', `alice/${'x'.repeat(101)}`]) {
      refused(`git-upload-pack '${p}'`, /Invalid repository path|is not allowed/);
    }
  });

  it('splitWords and parseRepoPath are exposed for reuse', () => {
    expect(splitWords("a 'b/c' d")).to.deep.equal(['a', 'b/c', 'd']);
    expect(parseRepoPath('/o/r.git')).to.deep.equal({ owner: 'o', repo: 'r' });
    expect(() => splitWords('x'.repeat(2000))).to.throw(CommandRefused, /too long/);
  });

  it('env: GIT_PROTOCOL is used when well-formed; locale variables are ignored; anything else refuses', () => {
    expect(decideEnv('GIT_PROTOCOL', 'version=2')).to.deep.equal({ action: 'use', gitProtocol: 'version=2' });
    expect(decideEnv('GIT_PROTOCOL', 'version=2:object-format=sha256')).to.deep.equal({ action: 'use', gitProtocol: 'version=2:object-format=sha256' });
    expect(decideEnv('GIT_PROTOCOL', 'version=3').action).to.equal('refuse');
    expect(decideEnv('GIT_PROTOCOL', 'version=2;GIT_CONFIG_COUNT=1').action).to.equal('refuse');
    for (const name of ['LANG', 'LC_ALL', 'LC_CTYPE', 'LANGUAGE', 'COLORTERM', 'NO_COLOR', 'TERM']) expect(decideEnv(name, 'x').action, name).to.equal('ignore');
    for (const name of ['LD_PRELOAD', 'GIT_CONFIG_COUNT', 'GIT_CONFIG_PARAMETERS', 'GIT_DIR', 'PATH', 'HOME', 'lang', 'GIT_PROTOCOLX']) {
      const d = decideEnv(name, 'x');
      expect(d.action, name).to.equal('refuse');
      expect((d as { reason: string }).reason).to.contain(name).and.to.contain('only GIT_PROTOCOL');
    }
    expect((decideEnv('A B\n', 'x') as { reason: string }).reason).to.contain('"A B\\n"');
  });
});
