/**
 * A delivery's request: Gitea's headers for every receiver family, signatures of the JSON bytes
 * (also for form hooks), empty signatures without a secret, and the collapsed event names.
 */
import crypto from 'node:crypto';
import { expect } from 'chai';
import { HookContentType } from '../../src/models/webhook.model';
import { buildRequest, eventHeader } from '../../src/services/webhook/request';

describe('webhook requests', () => {
  const base = {
    type: 'gitea', meta: '', url: 'http://127.0.0.1/h', contentType: HookContentType.Json, secret: 'k', authorization: '', uuid: '0b7e6a6e-3b1c-4f7e-9a55-0f1e2d3c4b5a',
    eventType: 'push' as const, payload: '{"ref":"refs/heads/main"}', target: 'repository',
  };

  it('signs the JSON bytes with the secret and names the delivery, event and target', () => {
    const r = buildRequest(base);
    const want = crypto.createHmac('sha256', 'k').update(base.payload).digest('hex');
    expect(r.body).to.equal(base.payload);
    expect(r.headers).to.deep.include({
      'Content-Type': 'application/json', 'X-Gitea-Delivery': base.uuid, 'X-GitHub-Delivery': base.uuid, 'X-Gitea-Event': 'push',
      'X-Gitea-Signature': want, 'X-Hub-Signature-256': `sha256=${want}`, 'X-Gitea-Hook-Installation-Target-Type': 'repository',
      'X-Hub-Signature': `sha1=${crypto.createHmac('sha1', 'k').update(base.payload).digest('hex')}`,
    });
    expect(r.headers).to.not.have.property('Authorization');
  });

  it('form-encodes the body but signs the JSON, and leaves signatures empty without a secret', () => {
    const f = buildRequest({ ...base, contentType: HookContentType.Form, authorization: 'Bearer t' });
    expect(f.body).to.equal(`payload=${encodeURIComponent(base.payload)}`);
    expect(f.headers['X-Gitea-Signature']).to.equal(crypto.createHmac('sha256', 'k').update(base.payload).digest('hex'));
    expect(f.headers.Authorization).to.equal('Bearer t');
    const open = buildRequest({ ...base, secret: '' });
    expect([open.headers['X-Gitea-Signature'], open.headers['X-Hub-Signature'], open.headers['X-Hub-Signature-256']]).to.deep.equal(['', 'sha1=', 'sha256=']);
  });

  it('collapses event types into Gitea\'s event names', () => {
    const pairs: [string, string][] = [
      ['issue_label', 'issues'], ['issue_comment', 'issue_comment'], ['pull_request_comment', 'issue_comment'], ['pull_request_sync', 'pull_request'],
      ['pull_request_review_approved', 'pull_request_approved'], ['pull_request_review_rejected', 'pull_request_rejected'],
      ['pull_request_review_comment', 'pull_request_comment'], ['pull_request_review_request', 'pull_request'], ['release', 'release'],
    ];
    for (const [type, name] of pairs) expect(eventHeader(type as never), type).to.equal(name);
  });

  it('sends a chat type its own message, signed, and a matrix hook a PUT to its transaction URL', () => {
    const payload = JSON.stringify({ action: 'created', repository: { full_name: 'a/b', html_url: 'http://x/a/b' }, organization: { login: 'a' }, sender: { login: 'a', html_url: 'http://x/a' } });
    const slack = buildRequest({ ...base, type: 'slack', meta: '{"channel":"#dev"}', eventType: 'repository', payload });
    expect([slack.method, slack.url, slack.headers['Content-Type']]).to.deep.equal(['POST', 'http://127.0.0.1/h', 'application/json']);
    expect(JSON.parse(slack.body).channel).to.equal('#dev');
    expect(slack.headers['X-Gitea-Signature']).to.equal(crypto.createHmac('sha256', 'k').update(slack.body).digest('hex'));
    const matrix = buildRequest({ ...base, type: 'matrix', meta: '{"room_id":"!r:x","message_type":1}', eventType: 'repository', payload });
    expect(matrix.method).to.equal('PUT');
    expect(matrix.url).to.equal(`http://127.0.0.1/h/${crypto.createHash('sha1').update(matrix.body).digest('hex')}`);
  });
});
