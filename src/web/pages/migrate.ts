/**
 * The new-migration form (`/repo/migrate`, Gitea's "New Migration"): a source address with its
 * credentials, plain git or a Gitea-compatible server (whose labels, milestones, issues, pull
 * requests and releases may come too), the owner and name, private, and a pull mirror with its
 * interval. It calls the
 * service POST /repos/migrate calls, with the same checks and refusals, and leads to the new
 * repository.
 */
import express, { type Request, type Response, type Router } from 'express';
import { settings } from '../../config';
import { ctxOf, doerOf } from '../../middleware/context';
import { formBody } from '../../middleware/input-guard';
import type { MigrateRepoOptions } from '../../api/mirror';
import { migrateRepo } from '../../services/migration/migrate.service';
import { requireCsrf, unlessRefused } from './context';
import { renderPage } from './render';
import { page, signedIn } from './route';
import { ownerChoices } from './orgs';

/** What a migration from a Gitea-compatible server may bring besides the code (its checkboxes). */
const ITEMS = ['labels', 'milestones', 'issues', 'pull_requests', 'releases'] as const;
type Item = (typeof ITEMS)[number];
const ITEM_NAMES: Record<Item, string> = { labels: 'Labels', milestones: 'Milestones', issues: 'Issues', pull_requests: 'Pull requests', releases: 'Releases' };

/** The form as sent (and shown again; never the password). */
interface MigrateForm {
  cloneAddr: string; username: string; owner: string; name: string; description: string; private: boolean; mirror: boolean; interval: string; wiki: boolean;
  lfs: boolean; lfsEndpoint: string; service: 'git' | 'gitea'; items: Item[];
}

function migrateForm(b: Record<string, string | undefined>, doer: string): MigrateForm {
  return {
    cloneAddr: (b.clone_addr ?? '').trim(), username: b.auth_username ?? '', owner: b.owner || doer, name: (b.repo_name ?? '').trim(),
    description: b.description ?? '', private: b.private === 'on', mirror: b.mirror === 'on', interval: b.mirror_interval ?? '', wiki: b.wiki === 'on',
    lfs: b.lfs === 'on', lfsEndpoint: (b.lfs_endpoint ?? '').trim(), service: b.service === 'gitea' ? 'gitea' : 'git', items: ITEMS.filter((i) => b[i] === 'on'),
  };
}

async function show(req: Request, res: Response, form: MigrateForm, status = 200): Promise<void> {
  const m = settings().mirror;
  await renderPage(req, res, 'repo/migrate', 'New migration', {
    form, owners: await ownerChoices(req), lfsAllowed: settings().server.lfsStartServer, mirrorsAllowed: m.enabled && !m.disableNewPull, defaultInterval: m.defaultInterval, minInterval: m.minInterval,
    items: ITEMS, itemNames: ITEM_NAMES,
  }, status);
}

/** GET and POST /repo/migrate. */
export function migratePages(): Router {
  const r = express.Router();
  const csrf = requireCsrf();
  r.get('/repo/migrate', page(async (req, res) => {
    const user = signedIn(req, res);
    if (!user) return;
    await show(req, res, migrateForm({ owner: typeof req.query.org === 'string' ? req.query.org : '' }, user.name));
  }));
  r.post('/repo/migrate', ...formBody('64kb'), csrf, page(async (req, res) => {
    const user = signedIn(req, res);
    if (!user) return;
    const b = req.body as Record<string, string | undefined>;
    const form = migrateForm(b, user.name);
    const opt: MigrateRepoOptions = {
      clone_addr: form.cloneAddr, repo_name: form.name, repo_owner: form.owner, service: form.service, auth_username: form.username,
      auth_password: b.auth_password ?? '', description: form.description, private: form.private, mirror: form.mirror,
      mirror_interval: form.interval, wiki: form.wiki, lfs: form.lfs, lfs_endpoint: form.lfsEndpoint, ...Object.fromEntries(form.items.map((i) => [i, true])),
    };
    const made = await unlessRefused(req, async () => {
      const { repo, owner } = await migrateRepo(ctxOf(req), doerOf(req), opt);
      return `${owner.name}/${repo.name}`;
    }, (status) => show(req, res, form, status));
    if (made) res.redirect(303, `${settings().server.rootUrl}${made}`);
  }));
  return r;
}
