/** Where a path under an account's old name is redirected: the name's own segment only, the query kept. */
import { expect } from 'chai';
import { NotFound, OwnerRenamed } from '../../src/errors';
import { renamedLocation } from '../../src/errors/mapper';

const moved = (oldName: string, newName: string) => new OwnerRenamed('gone', oldName, newName);

describe('renamedLocation', () => {
  it('replaces the segment that holds the old name in API paths, pages and clone URLs', () => {
    expect(renamedLocation(moved('acme', 'acme-corp'), '/api/v1/repos/acme/widgets/teams?limit=5')).to.equal('/api/v1/repos/acme-corp/widgets/teams?limit=5');
    expect(renamedLocation(moved('acme', 'New Name'), '/api/v1/orgs/ACME')).to.equal('/api/v1/orgs/New%20Name');
    expect(renamedLocation(moved('acme', 'acme-corp'), '/acme/widgets.git/info/refs?service=git-upload-pack')).to.equal('/acme-corp/widgets.git/info/refs?service=git-upload-pack');
    expect(renamedLocation(moved('acme', 'acme-corp'), '/org/acme/settings')).to.equal('/org/acme-corp/settings');
    expect(renamedLocation(moved('dave', 'david'), '/user/avatar/dave/80')).to.equal('/user/avatar/david/80');
  });

  it('never takes a route word for the name, and leaves other errors and names alone', () => {
    expect(renamedLocation(moved('users', 'people'), '/api/v1/admin/users/users/keys')).to.equal('/api/v1/admin/users/people/keys');
    expect(renamedLocation(moved('repos', 'x'), '/api/v1/repos/repos/app')).to.equal('/api/v1/repos/x/app');
    expect(renamedLocation(moved('acme', 'x'), '/api/v1/repos/alice/acme')).to.equal(null);
    expect(renamedLocation(moved('acme', 'x'), '/alice/acme/issues')).to.equal(null);
    expect(renamedLocation(new NotFound(), '/api/v1/orgs/acme')).to.equal(null);
    expect(renamedLocation(moved('acme', 'x'), '/api/v1/orgs/%E0%A4%A')).to.equal(null);
  });
});
