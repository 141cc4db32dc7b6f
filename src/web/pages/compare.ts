/**
 * The compare page, `/{owner}/{repo}/compare/{base}...{head}` (head also `owner:branch` in a fork
 * or the parent): the commits head adds and the files it changes, in the pull request's diff
 * view, with the form to open a pull request prefilled from a single commit.
 */
import express, { type Router } from 'express';
import { ctxOf } from '../../middleware/context';
import { NotFound } from '../../errors';
import { repoPath } from '../../git/paths';
import { rangeDiffText } from '../../services/content/git-data.service';
import { listCommits } from '../../services/history/commit.service';
import { listBranches } from '../../services/refs/branch.service';
import { compareBranches } from '../../services/pull/pull.service';
import { repoAssignment } from '../../services/repo/context';
import { diffOf, DIFF_FILES_PER_PAGE, pageTables } from './diff-view';
import { renderPage } from './render';
import { repoHeader } from './repo';
import { PageSlots } from './slots';
import { page, pageNumber, pageRepo, repoHome } from './route';

// why: as the pull request's files page, a page holds at most this much diff.
const MAX_PAGE_DIFF_BYTES = 4 * 1024 * 1024;
const MAX_COMMITS = 250;

/** Compare routes. */
export function comparePages(): Router {
  const r = express.Router();
  const repo = '/:owner/:repo';

  // The chooser's GET form lands here; so does a bare /compare (the default branch against itself).
  r.get(`${repo}/compare`, page(async (req, res) => {
    const rc = await pageRepo(req);
    const base = String(req.query.base ?? '') || rc.repo.defaultBranch;
    const head = String(req.query.head ?? '') || base;
    res.redirect(303, `${repoHome(rc)}/compare/${encodeURI(base)}...${encodeURI(head)}`);
  }));

  r.get(`${repo}/compare/*`, page(async (req, res) => {
    const rc = await pageRepo(req);
    const spec = String((req.params as unknown as Record<string, string>)[0] ?? '');
    const dots = spec.indexOf('...');
    const [base, head] = dots >= 0 ? [spec.slice(0, dots), spec.slice(dots + 3)] : [rc.repo.defaultBranch, spec];
    if (!base || !head) throw new NotFound();
    const cmp = await compareBranches(ctxOf(req), req.principal, rc, base, head);
    const headRc = cmp.headOwner === rc.owner.name && cmp.headRepo === rc.repo.name ? rc : await repoAssignment(ctxOf(req), req.principal, cmp.headOwner, cmp.headRepo);
    const headDir = repoPath(cmp.headOwner, cmp.headRepo);
    const same = cmp.mergeBase === cmp.headTip;
    const list = cmp.mergeBase && !same
      ? await listCommits(ctxOf(req), headRc, { sha: cmp.headTip, not: cmp.mergeBase, skip: 0, limit: MAX_COMMITS, stat: false, files: false, verification: false })
      : { commits: [], total: 0 };
    const split = req.query.style === 'split';
    const key = `compare\0${headDir}\0${cmp.mergeBase}\0${cmp.headTip}`;
    const files = cmp.mergeBase && !same ? await diffOf(key, () => rangeDiffText(headDir, cmp.mergeBase!, cmp.headTip, MAX_PAGE_DIFF_BYTES)) : null;
    const pageNo = pageNumber(req);
    const shown = files ? pageTables(key, files, pageNo, split) : [];
    const slots = new PageSlots();
    const tables = shown.map((f) => slots.put(Buffer.from(f.html)));
    // why: as Gitea, a single commit gives the pull request its subject and body; else the branch names it.
    const one = list.commits.length === 1 ? list.commits[0].message : null;
    const title = one ? one.split('\n')[0] : head.replace(/^.*:/, '').replace(/[-_]+/g, ' ').replace(/^./, (c) => c.toUpperCase());
    const body = one ? one.split('\n').slice(1).join('\n').trim() : '';
    const branches = (await listBranches(ctxOf(req), rc, req.principal.user, { limit: 100, offset: 0 })).items.map((b) => b.name);
    const headLabel = headRc === rc ? cmp.head : `${cmp.headOwner}:${cmp.head}`;
    await renderPage(req, res, 'repo/compare', `Comparing ${base}...${headLabel} - ${rc.owner.name}/${rc.repo.name}`, {
      ...(await repoHeader(req, rc, 'code')), cmp, headLabel, commits: list.commits, total: list.total, all: files, files: files ? shown : null, tables, split, same,
      pageNo, pages: Math.max(1, Math.ceil((files?.length ?? 0) / DIFF_FILES_PER_PAGE)), perPage: DIFF_FILES_PER_PAGE,
      title, body, branches, spec: `${base}...${headLabel}`,
    }, 200, slots);
  }));
  return r;
}
