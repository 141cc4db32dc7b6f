/** Greedy route tails: slashes inside file paths and ref names become one route parameter. */
import { expect } from 'chai';
import type { Request, Response } from 'express';
import { greedyParams } from '../../src/middleware/greedy-params';

const rewrite = (url: string): string => {
  const req = { url } as Request;
  greedyParams(req, {} as Response, () => undefined);
  return req.url;
};

describe('greedy route parameters', () => {
  it('encodes slashes in the tail of the listed route families, keeping the query', () => {
    expect(rewrite('/repos/o/r/contents/docs/a b.md?ref=main')).to.equal('/repos/o/r/contents/docs%2Fa b.md?ref=main');
    expect(rewrite('/repos/o/r/branches/feature/x/y')).to.equal('/repos/o/r/branches/feature%2Fx%2Fy');
    expect(rewrite('/repos/o/r/archive/release/v1.tar.gz')).to.equal('/repos/o/r/archive/release%2Fv1.tar.gz');
    expect(rewrite('/repos/o/r/git/refs/heads/main')).to.equal('/repos/o/r/git/refs/heads%2Fmain');
  });

  it('drops trailing slashes, so an empty tail is the route without it', () => {
    expect(rewrite('/repos/o/r/contents/?ref=dev')).to.equal('/repos/o/r/contents?ref=dev');
    expect(rewrite('/repos/o/r/contents/docs/')).to.equal('/repos/o/r/contents/docs');
  });

  it('leaves single segments and other routes alone', () => {
    for (const url of ['/repos/o/r/contents/a.md', '/repos/o/r/commits?sha=a/b', '/repos/o/r/git/commits/abc', '/users/x/repos']) {
      expect(rewrite(url)).to.equal(url);
    }
  });
});
