/**
 * The JSON Schema draft-04 documents of `schemas/`: each accepts a Gitea-shaped sample, and refuses
 * the sample without each required field and with a property it does not know, naming the file,
 * the JSON pointer and the rule. The Reaction schema is exactly the one the forge's design gives.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { checkDocuments, InvalidDocument, SCHEMA_DIR, type DocumentKind } from '../../src/services/migration/documents';

const T = '2026-11-28T10:00:00Z';
const reaction = { user_id: 3, user_name: 'bob', content: 'heart' };
const label = { name: 'bug', color: '#ee0701', description: 'Something is broken', exclusive: false, archived: false };
const branch = { clone_url: 'https://gitea.example.com/alice/proj.git', ref: 'feature', sha: '0123456789abcdef0123456789abcdef01234567', repo_name: 'proj', owner_name: 'alice' };
const SAMPLES: Record<DocumentKind, Record<string, unknown>> = {
  repository: { name: 'proj', owner: 'alice', description: 'a project', website: '', is_private: false, is_mirror: false, default_branch: 'main', original_url: 'https://gitea.example.com/alice/proj', topics: ['go'] },
  milestone: { title: 'v1.0', description: 'first', deadline: null, created: T, updated: T, closed: null, state: 'open' },
  label,
  reaction,
  issue: {
    number: 1, poster_id: 2, poster_name: 'alice', poster_email: 'alice@example.com', title: 'It breaks', content: 'Steps...', ref: '', milestone: 'v1.0',
    state: 'closed', is_locked: false, created: T, updated: T, closed: T, labels: [label], reactions: [reaction], assignees: ['bob'],
  },
  comment: { issue_index: 1, index: 1, comment_type: 'comment', poster_id: 3, poster_name: 'bob', poster_email: '', content: 'Seen it.', created: T, updated: T, reactions: [reaction] },
  pull_request: {
    number: 2, title: 'Fix it', poster_id: 2, poster_name: 'alice', poster_email: '', content: 'Fixes #1', milestone: '', state: 'closed', created: T, updated: T,
    closed: T, labels: [], patch_url: '', merged: true, merged_time: T, merge_commit_sha: '89abcdef0123456789abcdef0123456789abcdef', head: branch,
    base: { ...branch, ref: 'main' }, assignees: [], is_locked: false, is_draft: false, reactions: [],
  },
  review: {
    id: 7, issue_index: 2, reviewer_id: 3, reviewer_name: 'bob', official: true, commit_id: branch.sha, content: 'Looks good', created_at: T, state: 'APPROVED',
    comments: [{ id: 8, in_reply_to: 0, content: 'nit', tree_path: 'a.go', diff_hunk: '@@ -1 +1 @@', position: 1, line: 1, commit_id: branch.sha, poster_id: 3, poster_name: 'bob', reactions: [], created_at: T, updated_at: T }],
  },
  asset: { id: 4, name: 'proj.tar.gz', content_type: 'application/gzip', size: 10, download_count: 0, created: T, updated: T, download_url: 'release_assets/1/proj.tar.gz' },
  release: {
    tag_name: 'v1.0', target_commitish: 'main', name: 'One', body: 'Notes', draft: false, prerelease: false, publisher_id: 2, publisher_name: 'alice', publisher_email: '',
    assets: [{ name: 'proj.tar.gz', download_url: 'release_assets/1/proj.tar.gz' }], created: T, published: T,
  },
};

function refusal(kind: DocumentKind, value: unknown, list = false): InvalidDocument {
  try {
    checkDocuments(kind, value, `${kind}.json`, list);
  } catch (err) {
    expect(err).to.be.instanceOf(InvalidDocument);
    return err as InvalidDocument;
  }
  throw new Error(`${kind}: the document was accepted`);
}

describe('migration document schemas', () => {
  it('are draft-04 documents, one per kind', () => {
    const files = fs.readdirSync(SCHEMA_DIR).filter((f) => f.endsWith('.json')).sort();
    expect(files).to.deep.equal(Object.keys(SAMPLES).map((k) => `${k}.json`).sort());
    for (const f of files) expect(JSON.parse(fs.readFileSync(path.join(SCHEMA_DIR, f), 'utf8')).$schema).to.equal('http://json-schema.org/draft-04/schema#');
  });

  it('has the Reaction schema exactly as designed', () => {
    const s = JSON.parse(fs.readFileSync(path.join(SCHEMA_DIR, 'reaction.json'), 'utf8'));
    expect(Object.fromEntries(Object.entries(s.properties as Record<string, { type: string }>).map(([k, v]) => [k, v.type]))).to.deep.equal({ user_id: 'number', user_name: 'string', content: 'string' });
    expect(s.required).to.deep.equal(['user_id', 'content']);
    expect(s.additionalProperties).to.equal(false);
    checkDocuments('reaction', { user_id: 1, content: '+1' }, 'r.json', false);
  });

  for (const kind of Object.keys(SAMPLES) as DocumentKind[]) {
    it(`${kind}: accepts a Gitea-shaped sample, refuses a missing required field and an unknown property`, () => {
      const sample = SAMPLES[kind];
      checkDocuments(kind, sample, `${kind}.json`, false);
      checkDocuments(kind, [sample, sample], `${kind}s.json`, true);
      const schema = JSON.parse(fs.readFileSync(path.join(SCHEMA_DIR, `${kind}.json`), 'utf8')) as { required: string[] };
      for (const field of schema.required) {
        const { [field]: _gone, ...without } = sample;
        const e = refusal(kind, without);
        expect(e.rule, field).to.match(/^required: /);
        expect(e.message).to.include(field);
      }
      const e = refusal(kind, { ...sample, is_evil: true });
      expect([e.pointer, e.rule]).to.deep.equal(['', 'additionalProperties: must NOT have additional properties (is_evil)']);
    });
  }

  it('names the file, the pointer into a list and a nested document, and the rule', () => {
    const bad = { ...SAMPLES.issue, reactions: [{ user_id: 'three', content: '+1' }] };
    const e = refusal('issue', [SAMPLES.issue, bad], true);
    expect([e.file, e.pointer, e.rule]).to.deep.equal(['issue.json', '/1/reactions/0/user_id', 'type: must be number']);
    expect(e.message).to.equal('issue.json: /1/reactions/0/user_id: type: must be number');
    const date = refusal('milestone', { ...SAMPLES.milestone, created: 'yesterday' });
    expect([date.pointer, date.rule]).to.deep.equal(['/created', 'format: must match format "date-time"']);
    expect(refusal('label', {}, true).rule).to.equal('must be an array');
  });
});
