/**
 * A hook's events: the API's names to the stored map (families, `_only`, case, unknown names,
 * push by default), back to the API's list, and which event types a hook is sent.
 */
import { expect } from 'chai';
import { eventNames, parseStoredEvents, storedEvents, wantsEvent } from '../../src/services/webhook/events';

describe('hook events', () => {
  it('turns an empty list into push only, ignores unknown names and case', () => {
    expect(eventNames(storedEvents(undefined, ''))).to.deep.equal(['push']);
    expect(eventNames(storedEvents([], ''))).to.deep.equal(['push']);
    expect(eventNames(storedEvents(['CREATE', 'nonsense'], ''))).to.deep.equal(['create']);
  });

  it('turns on a whole family with its name, and only the base event with _only', () => {
    expect(eventNames(storedEvents(['issues'], ''))).to.deep.equal(['issues', 'issue_assign', 'issue_label', 'issue_milestone', 'issue_comment']);
    expect(eventNames(storedEvents(['issues_only'], ''))).to.deep.equal(['issues']);
    expect(eventNames(storedEvents(['pull_request'], ''))).to.deep.equal([
      'pull_request', 'pull_request_assign', 'pull_request_label', 'pull_request_milestone', 'pull_request_comment',
      'pull_request_review', 'pull_request_sync', 'pull_request_review_request',
    ]);
    expect(eventNames(storedEvents(['pull_request_only', 'pull_request_review'], ''))).to.deep.equal(['pull_request', 'pull_request_review']);
  });

  it('sends the review events to hooks that want pull_request_review, and keeps the branch filter', () => {
    const e = parseStoredEvents(JSON.stringify(storedEvents(['pull_request_review'], 'main')));
    expect(e.branch_filter).to.equal('main');
    expect(['pull_request_review_approved', 'pull_request_review_rejected', 'pull_request_review_comment'].every((t) => wantsEvent(e, t as never))).to.equal(true);
    expect(wantsEvent(e, 'pull_request_review_request')).to.equal(false);
    expect(wantsEvent(e, 'push')).to.equal(false);
    expect(wantsEvent(parseStoredEvents('not json'), 'push')).to.equal(true);
  });
});
