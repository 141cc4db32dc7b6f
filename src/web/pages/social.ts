/**
 * A repository's social side: star and watch buttons (Gitea's `/{owner}/{repo}/action/...`), the
 * fork form, and the lists of stargazers, watchers and forks. Each calls the service the API's
 * handler calls, so blocking, visibility and the fork rules apply the same.
 */
import express, { type Request, type Response, type Router } from 'express';
import { settings } from '../../config';
import { toUser } from '../../convert/user';
import { ctxOf, doerOf, viewerOf } from '../../middleware/context';
import { formBody } from '../../middleware/input-guard';
import type { UserModel } from '../../models/user.model';
import { forkRepo, listForks } from '../../services/lifecycle/fork.service';
import { stargazersOf, starRepo, unstarRepo } from '../../services/repo/star.service';
import { unwatchRepo, watchersOf, watchRepo } from '../../services/repo/watch.service';
import type { RepoContext } from '../../services/repo/context';
import { flashOutcome, requireCsrf, unlessRefused } from './context';
import { ownerChoices } from './orgs';
import { renderPage } from './render';
import { repoHeader } from './repo';
import { page, pageNumber, pageRepo, repoHome, signedIn } from './route';

const PAGE_SIZE = 30;

/** Social routes. */
export function socialPages(): Router {
  const r = express.Router();
  const csrf = requireCsrf();
  const repo = '/:owner/:repo';

  const actions: Record<string, [(req: Request, rc: RepoContext) => Promise<void>, string]> = {
    star: [(req, rc) => starRepo(ctxOf(req), doerOf(req), rc), 'You starred this repository.'],
    unstar: [(req, rc) => unstarRepo(ctxOf(req), doerOf(req), rc), 'You no longer star this repository.'],
    watch: [(req, rc) => watchRepo(ctxOf(req), doerOf(req), rc), 'You are watching this repository.'],
    unwatch: [(req, rc) => unwatchRepo(ctxOf(req), doerOf(req), rc), 'You no longer watch this repository.'],
  };
  r.post(`${repo}/action/:action(star|unstar|watch|unwatch)`, ...formBody(), csrf, page(async (req, res) => {
    if (!signedIn(req, res)) return;
    const rc = await pageRepo(req);
    const [run, done] = actions[String(req.params.action)];
    await flashOutcome(req, () => run(req, rc), () => done);
    res.redirect(303, repoHome(rc));
  }));

  /** A list page of users (stargazers, watchers). */
  const people = (path: string, title: string, list: (req: Request, rc: RepoContext, limit: number, offset: number) => Promise<{ rows: UserModel[]; count: number }>) => {
    r.get(`${repo}/${path}`, page(async (req, res) => {
      const rc = await pageRepo(req);
      const pageNo = pageNumber(req);
      const { rows, count } = await list(req, rc, PAGE_SIZE, (pageNo - 1) * PAGE_SIZE);
      await renderPage(req, res, 'repo/people', `${title} - ${rc.owner.name}/${rc.repo.name}`, {
        ...(await repoHeader(req, rc, 'code')), heading: title, people: rows.map((u) => toUser(u, viewerOf(req), settings().server.rootUrl)),
        total: count, pageNo, pages: Math.max(1, Math.ceil(count / PAGE_SIZE)),
      });
    }));
  };
  people('stars', 'Stargazers', (req, rc, limit, offset) => stargazersOf(ctxOf(req), rc, limit, offset));
  people('watchers', 'Watchers', (req, rc, limit, offset) => watchersOf(ctxOf(req), rc, limit, offset));

  r.get(`${repo}/forks`, page(async (req, res) => {
    const rc = await pageRepo(req);
    const pageNo = pageNumber(req);
    const { rows, count } = await listForks(ctxOf(req), req.principal, rc, PAGE_SIZE, (pageNo - 1) * PAGE_SIZE);
    await renderPage(req, res, 'repo/forks', `Forks - ${rc.owner.name}/${rc.repo.name}`, {
      ...(await repoHeader(req, rc, 'code')),
      repos: rows.map(({ repo: f, owner }) => ({ full_name: `${owner.name}/${f.name}`, private: f.isPrivate, description: f.description, stars_count: f.numStars, forks_count: f.numForks })),
      total: count, pageNo, pages: Math.max(1, Math.ceil(count / PAGE_SIZE)),
    });
  }));

  const forkForm = async (req: Request, res: Response, rc: RepoContext, values: { owner: string; name: string }, status = 200) => renderPage(req, res, 'repo/fork', `Fork - ${rc.owner.name}/${rc.repo.name}`, {
    ...(await repoHeader(req, rc, 'code')), owners: await ownerChoices(req), values,
  }, status);
  r.get(`${repo}/fork`, page(async (req, res) => {
    if (!signedIn(req, res)) return;
    const rc = await pageRepo(req);
    await forkForm(req, res, rc, { owner: doerOf(req).name, name: rc.repo.name });
  }));
  r.post(`${repo}/fork`, ...formBody(), csrf, page(async (req, res) => {
    if (!signedIn(req, res)) return;
    const rc = await pageRepo(req);
    const b = req.body as Record<string, string>;
    const doer = doerOf(req);
    const owner = b.owner ?? doer.name;
    const made = await unlessRefused(req, () => forkRepo(ctxOf(req), req.principal, doer, rc, { organization: owner === doer.name ? undefined : owner, name: b.name || undefined }),
      (status) => forkForm(req, res, rc, { owner, name: b.name ?? '' }, status));
    if (made) res.redirect(303, repoHome({ owner: { name: owner }, repo: { name: made.name } }));
  }));
  return r;
}
