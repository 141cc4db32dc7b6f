/**
 * Repository pages: the home page (file tree, README, clone URLs), folders and files of any branch,
 * tag or commit (`/src/...`), the history (`/commits/...`) and one commit with its diff. Each reads
 * through the content and history services with the caller's principal, so a repository the caller
 * may not read is the same 404 as the API's.
 */
import { pipeline } from 'node:stream';
import express, { type Request, type Response, type Router } from 'express';
import { ctxOf } from '../../middleware/context';
import { settings } from '../../config';
import { NotFound } from '../../errors';
import { AccessMode, UnitType } from '../../models/perm';
import { toRepositoryView } from '../../convert/repo';
import { codeRepo, type CodeRepo } from '../../services/content/access';
import { browse, entryCommits, locateBrowse, searchCode } from '../../services/content/browse.service';
import { escapeHtml } from '../../markup';
import { commitDiffText, languages, rawDiff } from '../../services/content/git-data.service';
import { listBranches, recentlyPushedBranches } from '../../services/refs/branch.service';
import { listTags } from '../../services/refs/tag.service';
import { isStarred } from '../../services/repo/star.service';
import { isWatching } from '../../services/repo/watch.service';
import type { RefKind } from '../../services/content/raw.service';
import { getCommit, listCommits } from '../../services/history/commit.service';
import { renderCommitMessage } from '../../services/markup/markup.service';
import type { RepoContext } from '../../services/repo/context';
import { viewOf } from '../../services/repo/repo.service';
import { repoTopicNames } from '../../services/repo/topic.service';
import { renderPage } from './render';
import { page, pageNumber, pageRepo, repoHome } from './route';
import { ACTIVITY_PERIODS, repoActivity } from '../../services/pull/repo-activity.service';
import { diffOf, DIFF_FILES_PER_PAGE, pageTables } from './diff-view';

const PAGE_SIZE = 30;
// why: a page holds at most this much diff; the whole one is a click away as .diff.
const MAX_PAGE_DIFF_BYTES = 2 * 1024 * 1024;

const param = (req: Request, name: string) => String(req.params[name]);
const rest = (req: Request) => String((req.params as unknown as Record<string, string>)[0] ?? '');

/** The header every repository page shows: names, description, topics, counts, clone URLs, tabs. */
export async function repoHeader(req: Request, rc: RepoContext, tab: string) {
  const view = await viewOf(ctxOf(req), req.principal, rc.repo, rc.owner, rc.perm);
  const api = toRepositoryView(view, null, settings().server.rootUrl);
  const user = req.principal.user;
  const [starred, watching] = user ? await Promise.all([isStarred(ctxOf(req), user, rc), isWatching(ctxOf(req), user, rc)]) : [false, false];
  // why: as Gitea, the Packages tab shows while [packages] ENABLED and the caller may read the repository's Packages unit.
  const packagesTab = settings().packages.enabled && rc.perm.can(UnitType.Packages, AccessMode.Read);
  // why: the Actions settings (runners, secrets, variables) are for owners, as the API's endpoints; the nav offers them to owners only.
  const isOwner = rc.perm.mode >= AccessMode.Owner;
  // why: as Gitea, the Actions tab shows while the unit is on and the caller may read it.
  const actionsTab = rc.perm.units.has(UnitType.Actions) && rc.perm.can(UnitType.Actions, AccessMode.Read);
  // why: as Gitea, the Projects tab shows while the caller may read the unit and its mode allows the repository's own projects.
  const projectsTab = rc.perm.can(UnitType.Projects, AccessMode.Read) && (api.projects_mode === 'repo' || api.projects_mode === 'all');
  return { repo: api, topics: await repoTopicNames(ctxOf(req), rc), tab, base: repoHome(rc), starred, watching, showClone: false, packagesTab, isOwner, actionsTab, projectsTab };
}

/** Colours of the languages bar (Linguist's for the common ones; others from their name). */
const LANGUAGE_COLOURS: Record<string, string> = {
  TypeScript: '#3178c6', JavaScript: '#f1e05a', Go: '#00add8', Python: '#3572a5', Rust: '#dea584', Java: '#b07219', C: '#555555', 'C++': '#f34b7d',
  'C#': '#178600', Ruby: '#701516', PHP: '#4f5d95', Shell: '#89e051', HTML: '#e34c26', CSS: '#663399', Markdown: '#083fa1', Vue: '#41b883', Kotlin: '#a97bff', Swift: '#f05138',
};
function languageColour(name: string): string {
  if (LANGUAGE_COLOURS[name]) return LANGUAGE_COLOURS[name];
  let h = 0;
  for (const c of name) h = (h * 31 + c.charCodeAt(0)) % 360;
  return `hsl(${h}deg 55% 50%)`;
}

/** The languages bar: each language's share of the bytes, largest first, the smallest folded into "Other". */
function languageShares(bytes: Record<string, number>): { name: string; percent: number; colour: string }[] {
  const total = Object.values(bytes).reduce((a, b) => a + b, 0);
  if (!total) return [];
  const all = Object.entries(bytes).sort((a, b) => b[1] - a[1]).map(([name, n]) => ({ name, percent: (n * 100) / total, colour: languageColour(name) }));
  const main = all.filter((l, k) => k < 6 && l.percent >= 0.5);
  const rest = 100 - main.reduce((a, l) => a + l.percent, 0);
  return rest >= 0.05 ? [...main, { name: 'Other', percent: rest, colour: '#c6cbd1' }] : main;
}

/** Breadcrumb links of a tree path. */
function crumbs(base: string, refPath: string, treePath: string): { name: string; href: string }[] {
  const parts = treePath ? treePath.split('/') : [];
  return parts.map((name, i) => ({ name, href: `${base}/src/${refPath}/${parts.slice(0, i + 1).map(encodeURIComponent).join('/')}` }));
}

async function showTree(req: Request, res: Response, cr: CodeRepo, kind: RefKind | undefined, path: string): Promise<void> {
  const header = await repoHeader(req, cr, 'code');
  if (cr.repo.status === 1) {
    // why: a migration runs inside its request; whoever opens the repository meanwhile sees that, and the page looks again until it is ready.
    res.setHeader('Refresh', '3');
    return renderPage(req, res, 'repo/migrating', `${cr.owner.name}/${cr.repo.name}`, header);
  }
  if (cr.repo.isEmpty) return renderPage(req, res, 'repo/empty', `${cr.owner.name}/${cr.repo.name}`, header);
  const loc = await locateBrowse(cr, kind, path);
  const view = await browse(ctxOf(req), req.principal, cr, loc);
  const refPath = `${loc.refKind}/${loc.refKind === 'commit' ? loc.refName : loc.refName.split('/').map(encodeURIComponent).join('/')}`;
  const title = loc.treePath ? `${loc.treePath} at ${loc.refName} - ${cr.owner.name}/${cr.repo.name}` : `${cr.owner.name}/${cr.repo.name}`;
  // why: the editor commits to branches only, for writers of a repository that is not archived.
  const canWrite = loc.refKind === 'branch' && header.repo.permissions!.push && !cr.repo.isArchived && !cr.repo.isMirror;
  const data = { ...header, loc, refPath, canWrite, crumbs: crumbs(header.base, refPath, loc.treePath), display: req.query.display === 'source' ? 'source' : 'rendered' };
  if ('file' in view) return renderPage(req, res, 'repo/file', title, { ...data, file: view.file });
  const ctx = ctxOf(req);
  const atHome = !loc.treePath && loc.refKind === 'branch' && loc.refName === cr.repo.defaultBranch;
  const [history, lasts, langs, branches, tags, recent] = await Promise.all([
    listCommits(ctx, cr, { sha: loc.commitId, path: loc.treePath || undefined, skip: 0, limit: 1, stat: false, files: false, verification: false }),
    entryCommits(cr, loc, view.dir.map((e) => e.name)),
    atHome ? languages(cr) : Promise.resolve({}),
    listBranches(ctx, cr, req.principal.user, { limit: 100, offset: 0 }),
    listTags(ctx, cr, { limit: 50, offset: 0 }),
    atHome && req.principal.user ? recentlyPushedBranches(ctx, cr, req.principal.user) : Promise.resolve([]),
  ]);
  await renderPage(req, res, 'repo/tree', title, {
    ...data, atHome, showClone: !loc.treePath, entries: view.dir, readme: view.readme, latest: history.commits[0] ?? null, commitCount: history.total,
    lasts, languages: languageShares(langs), branches: branches.items.map((b) => b.name), tags: tags.items.map((t) => t.name), recent,
  });
}

/** Repository page routes (mounted after every other router: `/{owner}/{repo}` is a catch-all). */
export function repoPages(): Router {
  const r = express.Router();
  const repo = '/:owner/:repo';
  const cr = (req: Request) => codeRepo(ctxOf(req), req.principal, param(req, 'owner'), param(req, 'repo'));

  r.get(repo, page(async (req, res) => showTree(req, res, await cr(req), undefined, '')));
  for (const kind of ['branch', 'tag', 'commit'] as const) {
    r.get(`${repo}/src/${kind}/*`, page(async (req, res) => showTree(req, res, await cr(req), kind, rest(req))));
    r.get(`${repo}/commits/${kind}/*`, page(async (req, res) => {
      const c = await cr(req);
      const header = await repoHeader(req, c, 'commits');
      const loc = await locateBrowse(c, kind, rest(req));
      const pageNo = pageNumber(req);
      const list = await listCommits(ctxOf(req), c, { sha: loc.commitId, path: loc.treePath || undefined, skip: (pageNo - 1) * PAGE_SIZE, limit: PAGE_SIZE, stat: false, files: false, verification: false });
      await renderPage(req, res, 'repo/commits', `Commits - ${c.owner.name}/${c.repo.name}`, {
        ...header, loc, commits: list.commits, total: list.total, pageNo, pages: Math.max(1, Math.ceil(list.total / PAGE_SIZE)),
      });
    }));
  }
  // Activity over a period (Gitea's /activity and /activity/{period}).
  r.get([`${repo}/activity`, `${repo}/activity/:period`], page(async (req, res) => {
    const rc = await pageRepo(req);
    const period = String(req.params.period ?? 'weekly');
    if (!Object.hasOwn(ACTIVITY_PERIODS, period)) throw new NotFound();
    const a = await repoActivity(ctxOf(req), rc, period);
    await renderPage(req, res, 'repo/activity', `Activity - ${rc.owner.name}/${rc.repo.name}`, { ...(await repoHeader(req, rc, 'activity')), a, period, periods: ACTIVITY_PERIODS });
  }));

  // Code search in the default branch (git grep), the matches marked.
  r.get(`${repo}/search`, page(async (req, res) => {
    const c = await cr(req);
    const q = typeof req.query.q === 'string' ? req.query.q : '';
    const result = q.trim() ? await searchCode(c, q) : null;
    const needle = result?.query.toLowerCase() ?? '';
    // why: each line is escaped piece by piece, the matches (case-insensitive) wrapped in <mark>.
    const mark = (text: string) => {
      if (!needle) return escapeHtml(text);
      let out = '';
      let at = 0;
      const lower = text.toLowerCase();
      for (let i = lower.indexOf(needle); i >= 0; i = lower.indexOf(needle, i + needle.length)) {
        out += `${escapeHtml(text.slice(at, i))}<mark>${escapeHtml(text.slice(i, i + needle.length))}</mark>`;
        at = i + needle.length;
      }
      return out + escapeHtml(text.slice(at));
    };
    await renderPage(req, res, 'repo/search', `Search - ${c.owner.name}/${c.repo.name}`, { ...(await repoHeader(req, c, 'code')), q, result, mark });
  }));

  // A commit as a diff or patch, byte for byte the API's.
  r.get(`${repo}/commit/:sha.:kind(diff|patch)`, page(async (req, res) => {
    const child = await rawDiff(await cr(req), param(req, 'sha'), req.params.kind as 'diff' | 'patch');
    child.stderr.resume();
    res.type('text/plain; charset=utf-8').setHeader('X-Content-Type-Options', 'nosniff');
    pipeline(child.stdout, res, () => undefined);
  }));
  r.get(`${repo}/commit/:sha`, page(async (req, res) => {
    const c = await cr(req);
    const sha = param(req, 'sha');
    if (!/^[0-9a-f]{4,64}$/i.test(sha)) throw new NotFound();
    const header = await repoHeader(req, c, 'commits');
    const { commits } = await getCommit(ctxOf(req), c, sha, { stat: false, files: false, verification: false });
    const key = `commit\0${c.gitDir}\0${commits[0].id}`;
    const all = await diffOf(key, () => commitDiffText(c, commits[0].id, MAX_PAGE_DIFF_BYTES));
    const message = await renderCommitMessage(ctxOf(req), req.principal, c, commits[0].message);
    const split = req.query.style === 'split';
    const pageNo = pageNumber(req);
    await renderPage(req, res, 'repo/commit', `${commits[0].message.split('\n')[0]} - ${c.owner.name}/${c.repo.name}`, {
      ...header, commit: commits[0], message, split, all, files: all ? pageTables(key, all, pageNo, split) : null,
      pageNo, pages: Math.max(1, Math.ceil((all?.length ?? 0) / DIFF_FILES_PER_PAGE)), perPage: DIFF_FILES_PER_PAGE,
    });
  }));
  return r;
}
