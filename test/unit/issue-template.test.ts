/**
 * Issue templates and the issue config parsed on their own, as Gitea 1.24 parses them: YAML forms
 * (defaults, every validation message), markdown templates with and without front matter, labels
 * as lists or comma-separated strings, Gitea's ellipsis, the config's errors and Go's
 * url.ParseRequestURI, and hostile YAML that must end in an error rather than a crash.
 */
import { expect } from 'chai';
import { branchRef, ellipsisDisplay, goTrim, parseTemplate, splitFrontMatter, templateKind } from '../../src/services/issue/template-parse';
import { defaultIssueConfig, isRequestUri, parseIssueConfig } from '../../src/services/issue/template';

const HEAD = 'name: "test"\nabout: "this is about"\n';
const parse = (content: string, file = 'ISSUE_TEMPLATE/test.yaml') => parseTemplate(file, Buffer.from(content));
const errorOf = (content: string, file?: string) => {
  const r = parse(content, file);
  expect(r, JSON.stringify(r)).to.have.property('error');
  return (r as { error: string }).error;
};
const templateOf = (content: string, file?: string) => {
  const r = parse(content, file);
  expect(r, JSON.stringify(r)).to.have.property('template');
  // why: compare what the API writes, as JSON.
  return JSON.parse(JSON.stringify((r as { template: unknown }).template));
};
const field = (yaml: string) => errorOf(`${HEAD}body:\n${yaml}`);

describe('issue templates: YAML forms', () => {
  it('needs a name, an about and a body', () => {
    expect(errorOf('')).to.equal("'name' is required");
    expect(errorOf('name: "  "\n')).to.equal("'name' is required");
    expect(errorOf('name: test\n')).to.equal("'about' is required");
    expect(errorOf(HEAD)).to.equal("'body' is required");
    expect(errorOf(`${HEAD}body: []\n`)).to.equal("'body' is required");
  });

  it('reports each field problem with its position, as Gitea', () => {
    const cases: [string, string][] = [
      ['  - type: markdown\n', "body[0](markdown): 'value' is required"],
      ['  - type: markdown\n    attributes:\n      value: true\n', "body[0](markdown): 'value' should be a string"],
      ['  - type: markdown\n    attributes:\n      value: "  "\n', "body[0](markdown): 'value' is required"],
      ['  - type: textarea\n    id: "?"\n', "body[0](textarea): 'id' should contain only alphanumeric, '-' and '_'"],
      ['  - type: textarea\n    id: "é"\n', "body[0](textarea): 'id' should contain only alphanumeric, '-' and '_'"],
      ['  - type: textarea\n    id: "1"\n', "body[0](textarea): 'label' is required"],
      ['  - type: textarea\n    id: a\n    attributes: {label: 3}\n', "body[0](textarea): 'label' should be a string"],
      ['  - type: textarea\n    id: "1"\n    attributes: {label: a}\n  - type: textarea\n    id: "1"\n    attributes: {label: b}\n', "body[1](textarea): 'id' should be unique"],
      ['  - type: textarea\n    attributes: {label: a}\n  - type: input\n    id: "0"\n    attributes: {label: b}\n', "body[1](input): 'id' should be unique"],
      ['  - type: textarea\n    id: "1"\n    attributes: {label: a, description: true}\n', "body[0](textarea): 'description' should be a string"],
      ['  - type: textarea\n    id: "1"\n    attributes: {label: a}\n    validations: {required: "on"}\n', "body[0](textarea): 'required' should be a bool"],
      ['  - type: input\n    id: "1"\n    attributes: {label: a, description: true}\n', "body[0](input): 'description' should be a string"],
      ['  - type: input\n    id: "1"\n    attributes: {label: a}\n    validations: {is_number: "yes"}\n', "body[0](input): 'is_number' should be a bool"],
      ['  - type: input\n    id: "1"\n    attributes: {label: a}\n    validations: {regex: true}\n', "body[0](input): 'regex' should be a string"],
      ['  - type: dropdown\n    id: "1"\n    attributes: {label: a, description: true}\n', "body[0](dropdown): 'description' should be a string"],
      ['  - type: dropdown\n    id: "1"\n    attributes: {label: a, multiple: "on"}\n', "body[0](dropdown): 'multiple' should be a bool"],
      ['  - type: dropdown\n    id: "1"\n    attributes: {label: a, list: "on"}\n', "body[0](dropdown): 'list' should be a bool"],
      ['  - type: dropdown\n    id: "1"\n    attributes: {label: a}\n', "body[0](dropdown): 'options' is required and should be a array"],
      ['  - type: dropdown\n    id: "1"\n    attributes: {label: a, options: []}\n', "body[0](dropdown): 'options' is required and should be a array"],
      ['  - type: dropdown\n    id: "1"\n    attributes: {label: a, options: [a, true]}\n', 'body[0](dropdown), option[1]: should be a string'],
      ['  - type: dropdown\n    id: "1"\n    attributes: {label: a, options: [a, b], default: "def"}\n', "body[0](dropdown): 'default' should be an int"],
      ['  - type: dropdown\n    id: "1"\n    attributes: {label: a, options: [a, b], default: 1.0}\n', "body[0](dropdown): 'default' should be an int"],
      ['  - type: dropdown\n    id: "1"\n    attributes: {label: a, options: [a, b], default: 2}\n', "body[0](dropdown): the value of 'default' is out of range"],
      ['  - type: dropdown\n    id: "1"\n    attributes: {label: a, options: [a, b], default: -1}\n', "body[0](dropdown): the value of 'default' is out of range"],
      ['  - type: checkboxes\n    id: "1"\n    attributes: {label: a, description: true}\n', "body[0](checkboxes): 'description' should be a string"],
      ['  - type: checkboxes\n    id: "1"\n    attributes: {label: a, options: [a, true]}\n', 'body[0](checkboxes), option[0]: should be a dictionary'],
      ['  - type: checkboxes\n    id: "1"\n    attributes: {label: a, options: [{1: a, label: b}]}\n', 'body[0](checkboxes), option[0]: should be a dictionary'],
      ['  - type: checkboxes\n    id: "1"\n    attributes: {label: a, options: [{required: true}]}\n', "body[0](checkboxes), option[0]: 'label' is required and should be a string"],
      ['  - type: checkboxes\n    id: "1"\n    attributes: {label: a, options: [{label: a, required: "on"}]}\n', "body[0](checkboxes), option[0]: 'required' should be a bool"],
      ['  - type: checkboxes\n    id: "1"\n    attributes: {label: a, options: [{label: a, visible: content}]}\n', "body[0](checkboxes), option[0]: 'visible' should be list"],
      ['  - type: checkboxes\n    id: "1"\n    attributes: {label: a, options: [{label: a, visible: [form, other]}]}\n', "body[0](checkboxes), option[0]: 'visible' list can only contain strings of 'form' and 'content'"],
      ['  - type: checkboxes\n    id: "1"\n    attributes: {label: a, options: [{label: a}, {label: b, required: true, visible: [content]}]}\n', 'body[0](checkboxes), option[1]: can not require a hidden checkbox'],
      // why: Gitea refuses a hidden checkbox with any `required`, even false.
      ['  - type: checkboxes\n    id: "1"\n    attributes: {label: a, options: [{label: b, required: false, visible: [content]}]}\n', 'body[0](checkboxes), option[0]: can not require a hidden checkbox'],
      ['  - type: input\n    id: "1"\n    attributes: {label: a}\n    validations: {required: true}\n    visible: [content]\n', 'body[0](input): can not require a hidden field'],
      ['  - type: video\n    id: "1"\n    attributes: {label: a}\n', 'body[0](video): unknown type'],
      ['  - id: x\n    attributes: {label: a}\n', 'body[0](): unknown type'],
    ];
    for (const [yaml, want] of cases) expect(field(yaml), yaml).to.equal(want);
  });

  it('checks optional strings and bools only up to the first one missing, as Gitea', () => {
    const t = templateOf(`${HEAD}body:\n  - type: textarea\n    attributes: {label: a, placeholder: 3}\n`);
    expect(t.body[0].attributes).to.deep.equal({ label: 'a', placeholder: 3 });
  });

  it('fills ids and visibility, keeps attributes as written (keys sorted) and the ref as written', () => {
    const t = templateOf(`name: Name
title: Title
about: About
labels: ["label1", "label2"]
assignees: [user1, user2]
ref: Ref
body:
  - type: markdown
    attributes:
      value: Value of the markdown
  - type: textarea
    id: id2
    attributes: {value: v, label: Label, render: bash}
    validations: {required: true}
  - type: dropdown
    attributes:
      label: Pick
      multiple: true
      list: true
      options: [a, b, c]
      default: 1
      extra: {nested: [1, 2.5, ~, yes]}
  - type: checkboxes
    id: boxes
    attributes:
      label: Boxes
      options:
        - label: One
          required: true
        - label: Hidden
          visible: [content]
    visible: []
  - type: markdown
    attributes: {value: shown}
    visible: [content]
`);
    expect(t).to.deep.equal({
      name: 'Name', title: 'Title', about: 'About', labels: ['label1', 'label2'], assignees: ['user1', 'user2'], ref: 'Ref', content: '',
      body: [
        { type: 'markdown', id: '0', attributes: { value: 'Value of the markdown' }, validations: null, visible: ['form'] },
        { type: 'textarea', id: 'id2', attributes: { label: 'Label', render: 'bash', value: 'v' }, validations: { required: true }, visible: ['form', 'content'] },
        {
          type: 'dropdown', id: '2', validations: null, visible: ['form', 'content'],
          attributes: { default: 1, extra: { nested: [1, 2.5, null, 'yes'] }, label: 'Pick', list: true, multiple: true, options: ['a', 'b', 'c'] },
        },
        { type: 'checkboxes', id: 'boxes', attributes: { label: 'Boxes', options: [{ label: 'One', required: true }, { label: 'Hidden', visible: ['content'] }] }, validations: null },
        { type: 'markdown', id: '4', attributes: { value: 'shown' }, validations: null, visible: ['content'] },
      ],
      file_name: 'ISSUE_TEMPLATE/test.yaml',
    });
    expect(Object.keys(t.body[1].attributes)).to.deep.equal(['label', 'render', 'value']);
  });

  it('takes labels and assignees as a list or a comma-separated string', () => {
    const body = 'body:\n  - type: markdown\n    attributes: {value: v}\n';
    expect(templateOf(`${HEAD}labels: label1,label2,,label3 ,,\n${body}`).labels).to.deep.equal(['label1', 'label2', 'label3']);
    expect(templateOf(`${HEAD}labels: ''\n${body}`).labels).to.equal(null);
    expect(templateOf(`${HEAD}labels: []\n${body}`).labels).to.deep.equal([]);
    expect(templateOf(`${HEAD}assignees: 42\n${body}`).assignees).to.deep.equal(['42']);
    expect(templateOf(`${HEAD}${body}`).labels).to.equal(null);
    expect(errorOf(`${HEAD}labels: {a: b}\n${body}`)).to.match(/cannot unmarshal !!map into IssueTemplateStringSlice/);
  });

  it('takes `description` for an empty `about`, and scalars of any kind for strings', () => {
    const t = templateOf('name: 1.10\ndescription: from description\nref: 0x1F\nbody:\n  - type: markdown\n    attributes: {value: v}\n');
    expect([t.name, t.about, t.ref]).to.deep.equal(['1.10', 'from description', '0x1F']);
    expect(templateOf(`${HEAD}description: ignored\nbody:\n  - type: markdown\n    attributes: {value: v}\n`).about).to.equal('this is about');
  });

  it('refuses YAML that does not decode, with the decoder message', () => {
    expect(errorOf('name: [a]\nabout: b\n')).to.equal('yaml unmarshal: yaml: unmarshal errors:\n  line 1: cannot unmarshal !!seq into string');
    expect(errorOf('just a string\n')).to.equal('yaml unmarshal: yaml: unmarshal errors:\n  line 1: cannot unmarshal !!str `just a ...` into structs.IssueTemplate');
    expect(errorOf(`${HEAD}body: {a: b}\n`)).to.match(/cannot unmarshal !!map into \[\]\*structs.IssueFormField/);
    expect(errorOf(`${HEAD}body:\n  - type: input\n    attributes: [a]\n`)).to.match(/line 5: cannot unmarshal !!seq into map\[string\]interface \{\}/);
    expect(errorOf('a: b: c\n')).to.match(/^yaml unmarshal: yaml: line 1: /);
    expect(errorOf('name: a\nname: b\n')).to.match(/^yaml unmarshal: yaml: line \d+: Map keys must be unique/);
    expect(errorOf(`${HEAD}body:\n  - ~\n`)).to.equal('body[0]: should be a dictionary');
  });

  it('survives hostile YAML: alias bombs and deep nesting end in an error', () => {
    const bomb = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 9; i++) bomb.push(`${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(10).fill(`*${String.fromCharCode(96 + i)}`).join(', ')}]`);
    const lastKey = String.fromCharCode(97 + 8);
    expect(errorOf(`${HEAD}body:\n  - type: input\n    attributes: {label: a}\n    validations:\n      ${bomb.join('\n      ')}\n      z: *${lastKey}\n`)).to.match(/excessive aliasing/);
    const deep = `${HEAD}body:\n  - type: input\n    attributes: {label: a, x: ${'['.repeat(5000)}${']'.repeat(5000)}}\n`;
    expect(parse(deep)).to.have.property('error');
  });
});

describe('issue templates: markdown', () => {
  it('reads the front matter and keeps the rest as content', () => {
    const t = templateOf('---\nname: Name\ntitle: Title\nabout: About\nlabels: label1,label2,,label3 ,,\nref: Ref\n---\nContent\n', '.gitea/ISSUE_TEMPLATE/bug.md');
    expect(t).to.deep.equal({
      name: 'Name', title: 'Title', about: 'About', labels: ['label1', 'label2', 'label3'], assignees: null, ref: 'Ref', content: 'Content\n', body: null,
      file_name: '.gitea/ISSUE_TEMPLATE/bug.md',
    });
    expect(templateOf('---\nname: N\ndescription: D\n---\n', 'x/a.md')).to.include({ about: 'D', content: '' });
    expect(templateOf('  ----  \nname: N\nabout: A\n---\nbody', 'x/a.md')).to.include({ name: 'N', content: 'body' });
  });

  it('takes a file without usable front matter as plain content named after the file', () => {
    for (const content of ['Just text\n', '---\nname: [broken\n---\nrest\n', '---\r\nname: N\r\nabout: A\r\n---\r\nx', '---\n---\nx\n', '--\nname: N\n--\n']) {
      const t = templateOf(content, 'ISSUE_TEMPLATE/plain.md');
      expect(t, content).to.include({ name: 'plain.md', about: content, content, title: '', ref: '' });
    }
    expect(errorOf('   \n', 'ISSUE_TEMPLATE/blank.md')).to.equal("'about' is required");
    expect(errorOf('---\n# only a comment\n---\nContent\n', 'ISSUE_TEMPLATE/c.md')).to.equal("'name' is required");
  });

  it('splits front matter as Gitea does', () => {
    expect(splitFrontMatter(Buffer.from('---\na: b\n---'))?.body.toString()).to.equal('');
    expect(splitFrontMatter(Buffer.from('---\na: b\n---\n'))?.front.toString()).to.equal('a: b\n');
    expect(splitFrontMatter(Buffer.from('---\na: b\n'))).to.equal(null);
    expect(splitFrontMatter(Buffer.from('\t---\na: b\n---\n'))).to.equal(null);
    // why: Gitea's separator check skips the byte after a multi-byte space, so it needs one dash more.
    expect(splitFrontMatter(Buffer.from('\u3000---\na: b\n---\n'))).to.equal(null);
    expect(splitFrontMatter(Buffer.from('\u3000----\na: b\n---\n'))?.front.toString()).to.equal('a: b\n');
  });

  it("shortens `about` with Gitea's EllipsisDisplayString", () => {
    expect(ellipsisDisplay('a'.repeat(80), 80)).to.equal('a'.repeat(80));
    expect(ellipsisDisplay('a'.repeat(81), 80)).to.equal(`${'a'.repeat(77)}…`);
    // why: more than 80 bytes, yet at most three runes past the cut that fit: kept whole.
    expect(ellipsisDisplay(`${'a'.repeat(75)}ééé`, 80)).to.equal(`${'a'.repeat(75)}ééé`);
    expect(ellipsisDisplay('a'.repeat(100), 80)).to.equal(`${'a'.repeat(77)}…`);
    expect(ellipsisDisplay('漢'.repeat(50), 80)).to.equal(`${'漢'.repeat(38)}…`);
    const long = `line one\n${'x'.repeat(200)}`;
    expect(templateOf(long, 'ISSUE_TEMPLATE/l.md').about).to.equal(`${long.slice(0, 77)}…`);
  });
});

describe('issue templates: helpers', () => {
  it('knows template files by extension and never takes config.y*ml', () => {
    expect(['a.md', 'a.yaml', 'a.yml', 'x/config.yaml', 'config.yml', 'a.MD', 'a.txt', 'md', 'config.md'].map(templateKind))
      .to.deep.equal(['md', 'yaml', 'yaml', '', '', '', '', '', 'md']);
  });

  it('makes refs full branch refs unless under refs/', () => {
    expect(['main', '', 'refs/tags/v1', 'refs/heads/x', 'heads/x'].map(branchRef)).to.deep.equal(['refs/heads/main', 'refs/heads/', 'refs/tags/v1', 'refs/heads/x', 'refs/heads/heads/x']);
  });

  it('trims as Go (U+0085 is a space, U+FEFF is not)', () => {
    expect(goTrim('\u0085 a \u3000')).to.equal('a');
    expect(goTrim('\ufeff')).to.equal('\ufeff');
  });
});

describe('issue config', () => {
  const cfg = (s: string) => parseIssueConfig(Buffer.from(s));

  it('reads blank_issues_enabled and contact links over the defaults', () => {
    expect(cfg('')).to.deep.equal({ config: defaultIssueConfig(), error: null });
    expect(cfg('blank_issues_enabled: false\n')).to.deep.equal({ config: { blank_issues_enabled: false, contact_links: [] }, error: null });
    expect(cfg('blank_issues_enabled: no\nother: 1\n').config.blank_issues_enabled).to.equal(false);
    expect(cfg('blank_issues_enabled: ~\n').config.blank_issues_enabled).to.equal(true);
    expect(cfg('contact_links: ~\n')).to.deep.equal({ config: { blank_issues_enabled: true, contact_links: null }, error: null });
    expect(cfg('contact_links:\n  - name: Forum\n    url: https://forum.example.com/c?x=1\n    about: Ask there\n').config.contact_links)
      .to.deep.equal([{ name: 'Forum', url: 'https://forum.example.com/c?x=1', about: 'Ask there' }]);
  });

  it("refuses a broken config with Gitea's messages and falls back to the defaults", () => {
    const link = (l: string) => cfg(`blank_issues_enabled: false\ncontact_links:\n  - name: a\n    url: https://a.example\n    about: a\n  - ${l}\n`);
    expect(link('url: https://b.example\n    about: b')).to.deep.equal({ config: defaultIssueConfig(), error: 'contact_link at position 2 is missing name key' });
    expect(link('name: b\n    about: b').error).to.equal('contact_link at position 2 is missing url key');
    expect(link('name: b\n    url: https://b.example').error).to.equal('contact_link at position 2 is missing about key');
    expect(link('name: b\n    url: example.com\n    about: b').error).to.equal('example.com is not a valid URL');
    expect(cfg('contact_links:\n  - ~\n').error).to.equal('contact_link at position 1 is missing name key');
    expect(cfg('blank_issues_enabled: maybe\n').error).to.equal('yaml: unmarshal errors:\n  line 1: cannot unmarshal !!str `maybe` into bool');
    expect(cfg('blank_issues_enabled: 1\n').error).to.equal('yaml: unmarshal errors:\n  line 1: cannot unmarshal !!int `1` into bool');
    expect(cfg('contact_links: a\n').error).to.equal('yaml: unmarshal errors:\n  line 1: cannot unmarshal !!str `a` into []structs.IssueConfigContactLink');
    expect(cfg('a: b: c\n').error).to.match(/^yaml: line 1: /);
  });

  it("checks URLs as Go's url.ParseRequestURI", () => {
    const good = ['https://example.com', 'http://user:p%41ss@example.com:8080/a b?q=<x>#f', '/relative/path', 'mailto:someone@example.com', 'https:', '*', 'x://[::1]:80/', 'https://例え.jp/'];
    const bad = ['example.com', '', '://x', '1http://x', 'http://example.com:port/', 'http://[::1/', 'http://a%zz/', 'http://a b/', 'https://x/%', 'http://us er@x/', 'http://a%41/', 'a\tb:/x', 'https://x/\u007f'];
    for (const u of good) expect(isRequestUri(u), u).to.equal(true);
    for (const u of bad) expect(isRequestUri(u), u).to.equal(false);
  });
});
