/**
 * Template variables of generated repositories: Go os.Expand semantics as Gitea uses them, the
 * case transformers, file-name sanitizing and `.gitea/template` globs (gobwas/glob with `/`).
 */
import { expect } from 'chai';
import {
  expandVariables, expandBytes, templateVariables, sanitizeFileName, globToRegExp, parseTemplateGlobs, type TemplateInfo,
} from '../../src/services/repo/template-vars';

const info: TemplateInfo = {
  repoName: 'My_New-Repo', repoOwner: 'bob', repoDescription: 'A new thing', repoLink: '/bob/My_New-Repo',
  repoHttpsUrl: 'http://h/bob/My_New-Repo.git', repoSshUrl: 'ssh://git@h:22/bob/My_New-Repo.git',
  templateName: 'tpl', templateOwner: 'alice', templateDescription: 'A template', templateLink: '/alice/tpl',
  templateHttpsUrl: 'http://h/alice/tpl.git', templateSshUrl: 'ssh://git@h:22/alice/tpl.git', now: new Date(2026, 2, 7, 12),
};

describe('template variables', () => {
  const vars = templateVariables(info);

  it('defines Gitea’s variables with their transformed forms', () => {
    expect(vars.get('REPO_NAME')).to.equal('My_New-Repo');
    expect(vars.get('REPO_NAME_SNAKE')).to.equal('my_new_repo');
    expect(vars.get('REPO_NAME_KEBAB')).to.equal('my-new-repo');
    expect(vars.get('REPO_NAME_PASCAL')).to.equal('MyNewRepo');
    expect(vars.get('REPO_NAME_CAMEL')).to.equal('myNewRepo');
    expect(vars.get('REPO_NAME_LOWER')).to.equal('my_new-repo');
    expect(vars.get('REPO_NAME_UPPER')).to.equal('MY_NEW-REPO');
    expect(vars.get('REPO_NAME_TITLE')).to.equal('My_new-Repo');
    expect(vars.get('TEMPLATE_OWNER_UPPER')).to.equal('ALICE');
    expect([vars.get('YEAR'), vars.get('MONTH'), vars.get('DAY'), vars.get('MONTH_ENGLISH'), vars.get('MONTH_ENGLISH_LOWER')]).to.deep.equal(['2026', '03', '07', 'March', 'march']);
    expect(vars.has('REPO_DESCRIPTION_UPPER')).to.equal(false);
    expect(templateVariables({ ...info, repoName: 'HTTPServerX' }).get('REPO_NAME_SNAKE')).to.equal('http_server_x');
    expect(templateVariables({ ...info, repoName: 'GOLANG_IS_GREAT' }).get('REPO_NAME_PASCAL')).to.equal('GolangIsGreat');
  });

  it('expands like os.Expand: $NAME, ${NAME}, $$, unknown names lose their $, bad syntax is eaten', () => {
    expect(expandVariables('a $REPO_NAME b ${REPO_OWNER}c', vars)).to.equal('a My_New-Repo b bobc');
    expect(expandVariables('$REPO_OWNER_', vars)).to.equal('REPO_OWNER_');
    expect(expandVariables('cost: $$5 and $UNKNOWN and $1', vars)).to.equal('cost: $5 and UNKNOWN and 1');
    expect(expandVariables('${} x ${unclosed', vars)).to.equal(' x unclosed');
    expect(expandVariables('50 $ off, trailing $', vars)).to.equal('50 $ off, trailing $');
    expect(expandVariables('no variables', vars)).to.equal('no variables');
  });

  it('sanitizes values used in file names and keeps non-UTF-8 bytes of file contents', () => {
    expect(sanitizeFileName(' ../a/b:c*?\u0001 ')).to.equal('__a_b_c___');
    expect(sanitizeFileName('CON')).to.equal('_');
    expect(expandVariables('dir/$REPO_DESCRIPTION.md', new Map([['REPO_DESCRIPTION', 'x/../y']]), true)).to.equal('dir/x___y.md');
    const bytes = Buffer.from([0xff, 0x24, ...Buffer.from('REPO_OWNER'), 0xfe]);
    expect([...expandBytes(bytes, new Map([['REPO_OWNER', 'é']]))]).to.deep.equal([0xff, 0xc3, 0xa9, 0xfe]);
  });

  it('matches globs as gobwas/glob with / as separator', () => {
    const m = (g: string, p: string) => globToRegExp(g).test(p);
    expect(m('**.go', 'main.go') && m('**.go', 'a/b/main.go')).to.equal(true);
    expect(m('text/*.txt', 'text/a.txt')).to.equal(true);
    expect(m('text/*.txt', 'text/sub/a.txt')).to.equal(false);
    expect(m('a/?.md', 'a/b.md') && !m('a/?.md', 'a/bb.md')).to.equal(true);
    expect(m('**.[bB][aA][tT]', 'x/run.BaT')).to.equal(true);
    expect(m('{a,b}/*.txt', 'b/x.txt') && !m('{a,b}/*.txt', 'c/x.txt')).to.equal(true);
    expect(m('[!x]y', 'ay') && !m('[!x]y', 'xy')).to.equal(true);
    expect(m('\\*.txt', '*.txt') && !m('\\*.txt', 'a.txt')).to.equal(true);
    expect(m('a.b', 'a.b') && !m('a.b', 'axb')).to.equal(true);
    expect(parseTemplateGlobs('# comment\n\n  **.go  \r\nbroken[\ntext/*.txt\n').map((r) => r.test('x.go'))).to.deep.equal([true, false]);
  });
});
