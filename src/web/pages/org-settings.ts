/**
 * An organization's settings, for its owners (anyone else gets a 404, as in Gitea): the profile
 * and visibility, the avatar (uploaded, cropped square), renaming (the old name keeps redirecting),
 * deletion (refused while it owns repositories), and its webhooks with their delivery history and
 * redelivery. Each form calls the service the API's handler calls.
 */
import express, { type Request, type Response, type Router } from 'express';
import { settings } from '../../config';
import { HttpError, NotFound, Validation } from '../../errors';
import { ctxOf } from '../../middleware/context';
import { formBody } from '../../middleware/input-guard';
import { VISIBILITY_NAMES, type UserModel } from '../../models/user.model';
import { assertOrgOwner, resolveOrg } from '../../services/org/guard';
import { deleteOrg, editOrg, renameOrg } from '../../services/org/org.service';
import { cropOf, deleteAvatar, readAvatarUpload, setAvatar } from '../../services/user/avatar.service';
import { avatarUrl } from '../../convert/user';
import { orgHookPlace } from '../../services/webhook/hook.service';
import { flash, flashOutcome, formUpload, requireCsrf, saveIfDirty, unlessRefused } from './context';
import { hookRoutes } from './hooks';
import { renderPage } from './render';
import { page, signedIn } from './route';

/** The organization of a settings page: its owners only, a 404 for everyone else. */
async function ownedOrg(req: Request, res: Response): Promise<UserModel | null> {
  if (!signedIn(req, res)) return null;
  const ctx = ctxOf(req);
  const org = await resolveOrg(ctx, req.principal, String(req.params.org));
  try {
    await assertOrgOwner(ctx, req.principal, org);
  } catch (err) {
    if (err instanceof HttpError && err.status === 403) throw new NotFound();
    throw err;
  }
  return org;
}

/** Organization settings routes. */
export function orgSettingsPages(): Router {
  const r = express.Router();
  const csrf = requireCsrf();
  const baseOf = (name: string) => `${new URL(settings().server.rootUrl).pathname}org/${encodeURIComponent(name)}/settings`;
  const base = (org: UserModel) => baseOf(org.name);
  const show = (req: Request, res: Response, org: UserModel, view: string, title: string, data: Record<string, unknown>) =>
    renderPage(req, res, `org/settings/${view}`, `${title} - ${org.name}`, { org: { name: org.name, isMember: true, isOwner: true }, settingsBase: base(org), ...data });

  r.get('/org/:org/settings', page(async (req, res) => {
    const org = await ownedOrg(req, res);
    if (!org) return;
    const avatarForm = {
      heading: 'Organization avatar', url: avatarUrl(org, settings().server.rootUrl), alt: `The avatar of ${org.name}`, custom: org.avatar !== '',
      action: `${base(org)}/avatar`, maxKiB: settings().picture.avatarMaxFileSize / 1024, narrow: true,
    };
    await show(req, res, org, 'options', 'Settings', { section: 'options', visibilities: VISIBILITY_NAMES, values: org, visibility: VISIBILITY_NAMES[org.visibility] ?? 'public', avatarForm });
  }));
  r.post('/org/:org/settings/avatar', page(async (req, res) => {
    const org = await ownedOrg(req, res);
    if (!org) return;
    // why: a forged form (no CSRF token before the file) is a 403 like every other form; a refused picture is a message.
    await formUpload(req, 'avatar', (_name, data, fields) => flashOutcome(req, async () => {
      const crop = cropOf(fields);
      await setAvatar(ctxOf(req), org, await readAvatarUpload(data), crop);
    }, () => 'The organization avatar has been updated.'));
    res.redirect(303, base(org));
  }));
  r.post('/org/:org/settings/avatar/delete', ...formBody(), csrf, page(async (req, res) => {
    const org = await ownedOrg(req, res);
    if (!org) return;
    await flashOutcome(req, () => deleteAvatar(ctxOf(req), org), () => 'The organization avatar has been removed.');
    res.redirect(303, base(org));
  }));
  r.post('/org/:org/settings/rename', ...formBody(), csrf, page(async (req, res) => {
    const org = await ownedOrg(req, res);
    if (!org) return;
    const b = req.body as Record<string, string>;
    const newName = b.new_org_name ?? '';
    const done = await unlessRefused(req, async () => {
      // why: as Gitea's form, the current name typed again confirms, and the same name is refused rather than ignored.
      if ((b.org_name ?? '') !== org.name) throw new Validation('type the current name of the organization to confirm the rename');
      if (newName === org.name) throw new Validation('the new name is the same as the current one');
      await renameOrg(ctxOf(req), org, newName);
      return true;
    }, async () => { await saveIfDirty(req); res.redirect(303, base(org)); });
    if (!done) return;
    flash(req, 'success', `The organization ${org.name} is now ${newName}; its old name leads here until another account takes it.`);
    await saveIfDirty(req);
    res.redirect(303, baseOf(newName));
  }));
  r.post('/org/:org/settings', ...formBody(), csrf, page(async (req, res) => {
    const org = await ownedOrg(req, res);
    if (!org) return;
    const b = req.body as Record<string, string>;
    await flashOutcome(req, () => editOrg(ctxOf(req), org, {
      full_name: b.full_name ?? '', email: b.email ?? '', description: b.description ?? '', website: b.website ?? '', location: b.location ?? '',
      visibility: b.visibility ?? '', repo_admin_change_team_access: b.repo_admin_change_team_access === 'on',
    }), () => 'The organization settings are saved.');
    res.redirect(303, base(org));
  }));
  r.post('/org/:org/settings/delete', ...formBody(), csrf, page(async (req, res) => {
    const org = await ownedOrg(req, res);
    if (!org) return;
    const gone = await unlessRefused(req, async () => {
      if (((req.body as Record<string, string>).confirm ?? '') !== org.name) throw new Validation('type the organization name to confirm the deletion');
      await deleteOrg(ctxOf(req), org);
      return true;
    }, async () => { await saveIfDirty(req); res.redirect(303, base(org)); });
    if (!gone) return;
    flash(req, 'success', `The organization ${org.name} is deleted.`);
    await saveIfDirty(req);
    res.redirect(303, new URL(settings().server.rootUrl).pathname);
  }));

  hookRoutes(r, '/org/:org/settings/hooks', async (req, res) => {
    const org = await ownedOrg(req, res);
    return org && {
      place: await orgHookPlace(ctxOf(req), req.principal, org.name), base: `${base(org)}/hooks`,
      show: (view, title, data) => show(req, res, org, view, title, data),
    };
  });
  return r;
}
