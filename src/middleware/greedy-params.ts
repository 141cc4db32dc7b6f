/**
 * Gitea routes whose last parameter may contain slashes (file paths, branch and tag names, archive
 * names, a pull request's head): `/repos/{owner}/{repo}/contents/docs/a.md`, `/branches/feature/x`.
 * tsoa (like Express) matches one path segment per parameter, so before routing the slashes inside
 * such a tail are encoded as %2F; the route then sees the whole tail as one decoded parameter.
 */
import type { Request, Response, NextFunction } from 'express';

// why: only the listed route families take a greedy tail; everything else keeps normal segment matching.
const GREEDY = /^(\/repos\/[^/?]+\/[^/?]+\/(?:contents|contents-ext|raw|media|archive|compare|branches|tags|releases\/tags|git\/refs|tag_protections|branch_protections|wiki\/page|wiki\/revisions|editorconfig))\/([^?]*)(\?.*)?$/;

// why: `/pulls/{base}/{head}` takes a head with slashes, while `/pulls/{index}/reviews/...` and the
// other routes under a number keep their segments (Gitea matches those first).
const PULL_HEAD = /^(\/repos\/[^/?]+\/[^/?]+\/pulls\/[^/?]+)\/([^?]*\/[^?]*)(\?.*)?$/;
const PULL_SUBROUTE = /\/pulls\/\d+\/(?:commits|files|merge|reviews|update|requested_reviewers)(?:\/|$)/;

/**
 * Rewrite req.url so a greedy tail is one path segment (relative to the mount point of the API
 * router). Trailing slashes are dropped, so `/contents/` is the listing of the root as `/contents` is.
 */
export function greedyParams(req: Request, _res: Response, next: NextFunction): void {
  const m = GREEDY.exec(req.url) ?? (PULL_SUBROUTE.test(req.url) ? null : PULL_HEAD.exec(req.url));
  if (m) {
    const tail = m[2].replace(/\/+$/, '');
    req.url = `${m[1]}${tail ? `/${tail.replace(/\//g, '%2F')}` : ''}${m[3] ?? ''}`;
  }
  next();
}
