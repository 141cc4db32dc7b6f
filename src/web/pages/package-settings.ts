/**
 * A package version's settings page (Gitea's package/settings.tmpl), for those who may write the
 * owner's packages (a 404 for everyone else, as Gitea): link the package to one of the owner's
 * repositories or unlink it, and delete this version. Each form posts to the page with its
 * `action`, calls the service the API's handler calls, and comes back with a flash message; a
 * refused form changes nothing and says why.
 */
import express, { type Request, type Response, type Router } from 'express';
import { settings } from '../../config';
import { HttpError, NotFound, Validation } from '../../errors';
import { ctxOf, doerOf } from '../../middleware/context';
import { formBody } from '../../middleware/input-guard';
import { AccessMode } from '../../models/perm';
import type { UserModel } from '../../models/user.model';
import { findPackageVersion, linkPackage, removePackageVersion, unlinkPackage } from '../../services/packages/package.service';
import { latestVersionOf } from '../../services/packages/pages';
import { packageViews } from '../../services/packages/view';
import { listRepos } from '../../services/repo/repo.service';
import { flashOutcome, requireCsrf } from './context';
import { ownerHead, packageUrl, PACKAGES_BASE, pageOwner, pageType } from './packages';
import { renderPage } from './render';
import { page } from './route';

/** Gitea's [api] DEFAULT_PAGING_NUM: how many repositories the link form offers. */
const REPO_CHOICES = 30;

/** Why a link or unlink was refused, in words (Gitea flashes only "Failed to update repository link."). */
const LINK_REFUSALS: Record<number, string> = {
  400: 'the package is already linked to a repository; unlink it first.',
  403: 'you need write access to the packages of that repository.',
  404: 'the repository does not exist.',
};

/** Run a link or unlink, a refusal (4xx) rethrown with Gitea's words and the reason. */
async function linkChange(run: () => Promise<void>): Promise<void> {
  try {
    await run();
  } catch (err) {
    if (!(err instanceof HttpError) || err.status >= 500) throw err;
    throw new HttpError(err.status, `Failed to update repository link: ${LINK_REFUSALS[err.status] ?? err.message}`);
  }
}

/** The version of a settings route, for a caller who may write the owner's packages (404 otherwise). */
async function settingsTarget(req: Request) {
  const { owner } = await pageOwner(req, AccessMode.Write);
  const type = pageType(req);
  const found = await findPackageVersion(ctxOf(req), owner, type, String(req.params.name), String(req.params.version));
  return { owner, type, ...found };
}

async function showSettings(req: Request, res: Response, owner: UserModel, target: Awaited<ReturnType<typeof settingsTarget>>): Promise<void> {
  const ctx = ctxOf(req);
  const { pkg, version, type } = target;
  const [view] = await packageViews(ctx, req.principal, owner, [{ pkg, version }]);
  // why: the owner's repositories as the caller sees them, most recently updated first (Gitea's order).
  const { views } = await listRepos(ctx, req.principal, { ownerId: owner.id, sort: 'updated', order: 'desc', limit: REPO_CHOICES, offset: 0 });
  const root = settings().server.rootUrl;
  await renderPage(req, res, 'packages/settings', `Settings - ${pkg.name}`, {
    ...(await ownerHead(req, owner)),
    pkg: { name: pkg.name, version: version.version, versionUrl: packageUrl(owner, type, pkg.lowerName, version.lowerVersion) },
    action: `${packageUrl(owner, type, pkg.lowerName, version.lowerVersion)}/settings`,
    linked: pkg.repoId ? { visible: !!view.repo, fullName: view.repo ? `${view.repo.owner.name}/${view.repo.repo.name}` : '', url: view.repo ? `${root}${view.repo.owner.name}/${view.repo.repo.name}` : '' } : null,
    repos: views.map((v) => v.repo.name),
  });
}

/** The settings routes. */
export function packageSettingsPages(): Router {
  const r = express.Router();
  const path = `${PACKAGES_BASE}/:type/:name/:version/settings`;

  r.get(path, page(async (req, res) => {
    const target = await settingsTarget(req);
    await showSettings(req, res, target.owner, target);
  }));

  r.post(path, ...formBody(), requireCsrf(), page(async (req, res) => {
    const target = await settingsTarget(req);
    const { owner, type, pkg, version } = target;
    const ctx = ctxOf(req);
    const b = req.body as Record<string, string>;
    const back = `${packageUrl(owner, type, pkg.lowerName, version.lowerVersion)}/settings`;
    if (b.action === 'link') {
      await flashOutcome(req, () => linkChange(() => linkPackage(ctx, req.principal, owner, type, pkg.name, (b.repo ?? '').trim())), () => 'Repository link was successfully updated.');
      return res.redirect(303, back);
    }
    if (b.action === 'unlink') {
      await flashOutcome(req, () => linkChange(() => unlinkPackage(ctx, req.principal, owner, type, pkg.name)), () => 'Repository link was successfully removed.');
      return res.redirect(303, back);
    }
    if (b.action === 'delete') {
      let deleted = false;
      await flashOutcome(req, async () => {
        // why: typing the version is the confirmation a person gives; a stray click deletes nothing.
        if ((b.confirm ?? '').trim().toLowerCase() !== version.lowerVersion) throw new Validation(`Type ${version.version} to confirm the deletion.`);
        await removePackageVersion(ctx, doerOf(req), owner, pkg, version);
        deleted = true;
      }, () => 'The package has been deleted.');
      if (!deleted) return res.redirect(303, back);
      // why: as Gitea, back to the package (its latest version) while versions remain, else to the owner's list.
      const rest = await latestVersionOf(ctx, owner, type, pkg.name).catch((err: unknown) => { if (err instanceof NotFound) return null; throw err; });
      return res.redirect(303, rest ? packageUrl(owner, type, pkg.lowerName, rest.version.lowerVersion) : `${settings().server.rootUrl}${owner.name}/-/packages`);
    }
    throw new Validation('unknown action');
  }));
  return r;
}
