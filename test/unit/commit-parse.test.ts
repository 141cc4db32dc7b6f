/** Parsing raw commit objects: identities with their offsets, parents, message, signature and signed payload. */
import { expect } from 'chai';
import { parseCommit } from '../../src/git/history';

const SIGNED = [
  'tree 9a93ffa76e8b72bdb6431910b3a506fa2b39f42e',
  'parent 1111111111111111111111111111111111111111',
  'parent 2222222222222222222222222222222222222222',
  'author User Two <user2@example.com> 1749230009 +0200',
  'committer Other Name <other@example.com> 1749230010 -0530',
  'gpgsig -----BEGIN SSH SIGNATURE-----',
  ' U1NIU0lHAAAAAQ==',
  ' ',
  ' -----END SSH SIGNATURE-----',
  '',
  'Subject line',
  '',
  'Body.',
  '',
].join('\n');

describe('commit object parsing', () => {
  it('reads tree, parents, identities in their own offsets and the message', () => {
    const c = parseCommit('abc', Buffer.from(SIGNED));
    expect(c.tree).to.equal('9a93ffa76e8b72bdb6431910b3a506fa2b39f42e');
    expect(c.parents).to.have.length(2);
    expect(c.author).to.deep.equal({ name: 'User Two', email: 'user2@example.com', date: '2025-06-06T19:13:29+02:00' });
    expect(c.committer.date).to.equal('2025-06-06T11:43:30-05:30');
    expect(c.message).to.equal('Subject line\n\nBody.\n');
  });

  it('splits the signature from the payload it signs', () => {
    const c = parseCommit('abc', Buffer.from(SIGNED));
    expect(c.signature!.signature).to.equal('-----BEGIN SSH SIGNATURE-----\nU1NIU0lHAAAAAQ==\n\n-----END SSH SIGNATURE-----\n');
    expect(c.signature!.payload).to.equal(SIGNED.replace(/gpgsig [\s\S]*?-----END SSH SIGNATURE-----\n/, ''));
  });

  it('an unsigned commit has no signature', () => {
    expect(parseCommit('abc', Buffer.from('tree t\nauthor A <a@x> 0 +0000\ncommitter A <a@x> 0 +0000\n\nm\n')).signature).to.equal(null);
  });
});
