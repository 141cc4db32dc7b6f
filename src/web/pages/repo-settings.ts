/**
 * A repository's settings pages, for its administrators (anyone else gets a 404, as in Gitea):
 * options and units (a disabled unit's tab disappears; the projects unit has its mode), merge styles, the
 * avatar, the danger zone; collaborators and their rights; webhooks with their delivery history, a test
 * delivery and redelivery; branch protection rules. Each form calls the service the API's handler
 * calls, so the same rules and refusals apply; the outcome comes back as a flash.
 */
import express, { type Request, type Response, type Router } from 'express';
import type { BranchProtection, EditBranchProtectionOption } from '../../api/branch-protection';
import type { EditRepoOption } from '../../api/repo';
import { settings } from '../../config';
import { NotFound, Validation } from '../../errors';
import { toBranchProtection } from '../../convert/branch-protection';
import { ctxOf, doerOf } from '../../middleware/context';
import { formBody } from '../../middleware/input-guard';
import { AccessMode } from '../../models/perm';
import { createBranchProtection, editBranchProtection, getBranchProtection, listBranchProtections, removeBranchProtection, type BranchProtectionView } from '../../services/refs/branch-protection.service';
import { addOrUpdateCollaborator, collaboratorUser, listCollaborators, removeCollaborator } from '../../services/repo/collaborator.service';
import type { RepoContext } from '../../services/repo/context';
import { editRepo, MERGE_STYLES } from '../../services/repo/repo.service';
import { deleteRepo } from '../../services/lifecycle/repo-delete.service';
import { cancelTransfer, startTransfer, transferViewOf } from '../../services/repo/transfer.service';
import { addDeployKey, deleteRepoDeployKey, listRepoDeployKeys } from '../../services/keys/deploy-key.service';
import { listBranches } from '../../services/refs/branch.service';
import { pullMirrorStatus, requestPullSync } from '../../services/mirror/pull-mirror.service';
import { addPushMirror, listRepoPushMirrors, removePushMirror, syncRepoPushMirrors } from '../../services/mirror/push-mirror.service';
import { toPushMirror } from '../../convert/mirror';
import { repoAvatarUrl } from '../../convert/repo';
import { cropOf, deleteRepoAvatar, readAvatarUpload, setRepoAvatar } from '../../services/user/avatar.service';
import { ACCESS_NAMES, MERGE_STYLE_NAMES, PROJECTS_MODE_NAMES, RULE_FIELD_NAMES, UNIT_NAMES } from './names';
import { repoHookPlace } from '../../services/webhook/hook.service';
import { testRepoHook } from '../../services/webhook/push-events';
import { flash, flashOutcome, formUpload, requireCsrf, saveIfDirty, unlessRefused } from './context';
import { hookRoutes } from './hooks';
import { renderPage } from './render';
import { repoHeader } from './repo';
import { page, pageRepo, repoHome, signedIn } from './route';

const UNITS = ['has_issues', 'has_pull_requests', 'has_wiki', 'has_releases', 'has_projects', 'has_packages', 'has_actions'] as const;
const MERGE_FLAGS: Record<string, keyof EditRepoOption> = {
  merge: 'allow_merge_commits', rebase: 'allow_rebase', 'rebase-merge': 'allow_rebase_explicit', squash: 'allow_squash_merge', 'fast-forward-only': 'allow_fast_forward_only_merge',
};
// The branch protection form: ticked boxes, comma-separated lists, texts and the approvals count.
const RULE_FLAGS = [
  'enable_push', 'enable_push_whitelist', 'push_whitelist_deploy_keys', 'enable_force_push', 'enable_force_push_allowlist', 'force_push_allowlist_deploy_keys',
  'enable_merge_whitelist', 'enable_status_check', 'enable_approvals_whitelist', 'block_on_rejected_reviews', 'block_on_official_review_requests',
  'block_on_outdated_branch', 'dismiss_stale_approvals', 'ignore_stale_approvals', 'require_signed_commits', 'block_admin_merge_override',
] as const;
const RULE_LISTS = [
  'push_whitelist_usernames', 'push_whitelist_teams', 'force_push_allowlist_usernames', 'force_push_allowlist_teams', 'merge_whitelist_usernames',
  'merge_whitelist_teams', 'status_check_contexts', 'approvals_whitelist_username', 'approvals_whitelist_teams',
] as const;
const RULE_TEXTS = ['protected_file_patterns', 'unprotected_file_patterns'] as const;

/** The repository of a settings page: its administrators only, a 404 for everyone else. */
async function settingsRepo(req: Request, res: Response): Promise<RepoContext | null> {
  if (!signedIn(req, res)) return null;
  const rc = await pageRepo(req);
  if (rc.perm.mode < AccessMode.Admin) throw new NotFound();
  return rc;
}

/** The options form's fields as `PATCH /repos/{owner}/{repo}` takes them. */
function repoOption(b: Record<string, string>): EditRepoOption {
  const o: EditRepoOption = { description: b.description ?? '', website: b.website ?? '', template: b.template === 'on' };
  if (b.default_branch) o.default_branch = b.default_branch;
  for (const u of UNITS) o[u] = b[u] === 'on';
  // why: the mode is the projects unit's setting; without that unit it is not sent (as the merge styles below).
  if (o.has_projects && b.projects_mode) o.projects_mode = b.projects_mode;
  // why: the merge styles live in the pull request unit's settings; without that unit they are not sent.
  if (o.has_pull_requests) for (const [style, flag] of Object.entries(MERGE_FLAGS)) (o as Record<string, unknown>)[flag] = b[`merge-${style}`] === 'on';
  if (b.default_merge_style && o.has_pull_requests) o.default_merge_style = b.default_merge_style;
  return o;
}

/** The branch protection form's fields as the API's rule options. */
function ruleOption(b: Record<string, string>): EditBranchProtectionOption {
  const o: Record<string, unknown> = { required_approvals: Number(b.required_approvals) || 0 };
  for (const f of RULE_FLAGS) o[f] = b[f] === 'on';
  for (const f of RULE_LISTS) o[f] = (b[f] ?? '').split(',').map((x) => x.trim()).filter(Boolean);
  for (const f of RULE_TEXTS) o[f] = b[f] ?? '';
  return o as EditBranchProtectionOption;
}

const ruleOut = (v: BranchProtectionView): BranchProtection => toBranchProtection(v.row, v);

/** Repository settings routes. */
export function repoSettingsPages(): Router {
  const r = express.Router();
  const csrf = requireCsrf();
  const repo = '/:owner/:repo';
  const base = (rc: RepoContext) => `${repoHome(rc)}/settings`;
  const show = async (req: Request, res: Response, rc: RepoContext, view: string, title: string, data: Record<string, unknown>) =>
    renderPage(req, res, `repo/settings/${view}`, `${title} - ${rc.owner.name}/${rc.repo.name}`, { ...(await repoHeader(req, rc, 'settings')), ...data });
  /** A settings form: run it as the repository's administrator, flash the outcome, go back to `back`. */
  const action = (path: string, run: (req: Request, rc: RepoContext, b: Record<string, string>) => Promise<unknown>, done: string, back: (rc: RepoContext, req: Request) => string) => {
    r.post(`${repo}/settings${path}`, ...formBody(), csrf, page(async (req, res) => {
      const rc = await settingsRepo(req, res);
      if (!rc) return;
      await flashOutcome(req, () => run(req, rc, req.body as Record<string, string>), () => done);
      res.redirect(303, back(rc, req));
    }));
  };

  // Options, units, merge styles, deletion.
  r.get(`${repo}/settings`, page(async (req, res) => {
    const rc = await settingsRepo(req, res);
    if (!rc) return;
    const branches = (await listBranches(ctxOf(req), rc, req.principal.user, { limit: 100, offset: 0 })).items.map((b) => b.name);
    const transfer = await transferViewOf(ctxOf(req), rc.repo.id);
    const pushMirrors = settings().mirror.enabled ? (await listRepoPushMirrors(ctxOf(req), rc, 0, 100)).rows.map((m) => toPushMirror(m, rc.repo.name)) : [];
    await show(req, res, rc, 'options', 'Settings', {
      section: 'options', units: UNITS, unitNames: UNIT_NAMES, projectsModes: PROJECTS_MODE_NAMES, mergeStyles: MERGE_STYLES, mergeFlags: MERGE_FLAGS, styleNames: MERGE_STYLE_NAMES, branches,
      pendingTransfer: transfer ? transfer.recipient.name : null, enablePrune: rc.repo.enablePrune, pushMirrors,
      pullMirror: rc.repo.isMirror ? await pullMirrorStatus(ctxOf(req), rc.repo.id) : null,
      avatarForm: {
        heading: 'Repository avatar', url: repoAvatarUrl(rc.repo, settings().server.rootUrl), alt: `The avatar of ${rc.owner.name}/${rc.repo.name}`,
        custom: rc.repo.avatar !== '', action: `${base(rc)}/avatar`, maxKiB: settings().picture.avatarMaxFileSize / 1024, narrow: true,
      },
    });
  }));
  r.post(`${repo}/settings/avatar`, page(async (req, res) => {
    const rc = await settingsRepo(req, res);
    if (!rc) return;
    // why: a forged form (no CSRF token before the file) is a 403 like every other form; a refused picture is a message.
    await formUpload(req, 'avatar', (_name, data, fields) => flashOutcome(req, async () => {
      const crop = cropOf(fields);
      await setRepoAvatar(ctxOf(req), rc.repo, await readAvatarUpload(data), crop);
    }, () => 'The repository avatar has been updated.'));
    res.redirect(303, base(rc));
  }));
  action('/avatar/delete', (req, rc) => deleteRepoAvatar(ctxOf(req), rc.repo), 'The repository avatar has been removed.', base);
  action('', (req, rc, b) => editRepo(ctxOf(req), rc, doerOf(req), repoOption(b)), 'The repository settings are saved.', base);

  // Mirrors: a pull mirror's interval, prune and sync; push mirrors added, pushed and removed (the API's services).
  action('/mirror', (req, rc, b) => editRepo(ctxOf(req), rc, doerOf(req), { mirror_interval: b.mirror_interval ?? '', enable_prune: b.enable_prune === 'on' }), 'The mirror settings are saved.', base);
  action('/mirror/sync', (req, rc) => requestPullSync(ctxOf(req), rc), 'The mirror is being synchronized; reload in a moment.', base);
  action('/push-mirrors', (req, rc, b) => addPushMirror(ctxOf(req), rc, {
    remote_address: b.remote_address ?? '', remote_username: b.remote_username ?? '', remote_password: b.remote_password ?? '', interval: b.interval ?? '', sync_on_commit: b.sync_on_commit === 'on',
  }), 'The push mirror is added.', base);
  action('/push-mirrors/sync', (req, rc) => syncRepoPushMirrors(ctxOf(req), rc), 'Every push mirror was pushed to; see each one\'s last update.', base);
  action('/push-mirrors/delete', (req, rc, b) => removePushMirror(ctxOf(req), rc, b.name ?? ''), 'The push mirror is removed.', base);

  // The danger zone: each change typed out and confirmed with the repository's name.
  const confirmed = (rc: RepoContext, b: Record<string, string>) => {
    if ((b.confirm ?? '') !== rc.repo.name) throw new Validation('type the repository name to confirm');
  };
  r.post(`${repo}/settings/rename`, ...formBody(), csrf, page(async (req, res) => {
    const rc = await settingsRepo(req, res);
    if (!rc) return;
    const b = req.body as Record<string, string>;
    const name = (b.name ?? '').trim();
    const done = await unlessRefused(req, async () => {
      confirmed(rc, b);
      return editRepo(ctxOf(req), rc, doerOf(req), { name });
    }, async () => { await saveIfDirty(req); res.redirect(303, base(rc)); });
    if (done) {
      flash(req, 'success', `The repository is renamed to ${done.name}.`);
      await saveIfDirty(req);
      res.redirect(303, `${repoHome({ owner: rc.owner, repo: done })}/settings`);
    }
  }));
  action('/archive', (req, rc, b) => { confirmed(rc, b); return editRepo(ctxOf(req), rc, doerOf(req), { archived: !rc.repo.isArchived }); },
    'The repository\'s archive state is changed.', base);
  action('/visibility', (req, rc, b) => { confirmed(rc, b); return editRepo(ctxOf(req), rc, doerOf(req), { private: !rc.repo.isPrivate }); },
    'The repository\'s visibility is changed.', base);
  action('/transfer', async (req, rc, b) => {
    confirmed(rc, b);
    await startTransfer(ctxOf(req), req.principal, doerOf(req), rc, { new_owner: (b.new_owner ?? '').trim() });
  }, 'The transfer is started: it completes when the new owner accepts it, or at once when you own both.', base);
  r.post(`${repo}/settings/transfer/cancel`, ...formBody(), csrf, page(async (req, res) => {
    const rc = await settingsRepo(req, res);
    if (!rc) return;
    await flashOutcome(req, () => cancelTransfer(ctxOf(req), rc), () => 'The transfer is cancelled.');
    res.redirect(303, base(rc));
  }));

  // Deploy keys.
  r.get(`${repo}/settings/keys`, page(async (req, res) => {
    const rc = await settingsRepo(req, res);
    if (!rc) return;
    const { rows } = await listRepoDeployKeys(ctxOf(req), rc, {}, 100, 0);
    await show(req, res, rc, 'keys', 'Deploy keys', {
      section: 'keys', keys: rows.map((k) => ({ id: k.dk.id, name: k.dk.name, fingerprint: k.dk.fingerprint, readOnly: k.dk.mode < AccessMode.Write, created: k.dk.createdAt })),
    });
  }));
  const keys = (rc: RepoContext) => `${base(rc)}/keys`;
  action('/keys', (req, rc, b) => addDeployKey(ctxOf(req), rc, b.title ?? '', b.content ?? '', b.read_only === 'on'), 'The deploy key is added.', keys);
  action('/keys/delete', (req, rc, b) => deleteRepoDeployKey(ctxOf(req), rc, Number(b.id)), 'The deploy key is removed.', keys);
  r.post(`${repo}/settings/delete`, ...formBody(), csrf, page(async (req, res) => {
    const rc = await settingsRepo(req, res);
    if (!rc) return;
    const b = req.body as Record<string, string>;
    const gone = await unlessRefused(req, async () => {
      if ((b.confirm ?? '') !== rc.repo.name) throw new Validation('type the repository name to confirm the deletion');
      await deleteRepo(ctxOf(req), doerOf(req), rc);
      return true;
    }, async () => { await saveIfDirty(req); res.redirect(303, base(rc)); });
    if (gone) {
      flash(req, 'success', `The repository ${rc.owner.name}/${rc.repo.name} is deleted.`);
      await saveIfDirty(req);
      res.redirect(303, new URL(settings().server.rootUrl).pathname);
    }
  }));

  // Collaborators.
  r.get(`${repo}/settings/collaboration`, page(async (req, res) => {
    const rc = await settingsRepo(req, res);
    if (!rc) return;
    const { rows, modes } = await listCollaborators(ctxOf(req), rc, 1000, 0);
    const people = rows.map((u) => ({ name: u.name, mode: modes.get(u.id) }));
    await show(req, res, rc, 'collaboration', 'Collaborators', { section: 'collaboration', people, modes: { [AccessMode.Read]: 'read', [AccessMode.Write]: 'write', [AccessMode.Admin]: 'admin' }, accessNames: ACCESS_NAMES });
  }));
  const collaboration = (rc: RepoContext) => `${base(rc)}/collaboration`;
  action('/collaboration', async (req, rc, b) => addOrUpdateCollaborator(ctxOf(req), rc, await collaboratorUser(ctxOf(req), (b.name ?? '').trim()), b.permission || 'write'), 'The collaborator is saved.', collaboration);
  action('/collaboration/delete', async (req, rc, b) => removeCollaborator(ctxOf(req), rc, await collaboratorUser(ctxOf(req), b.name ?? '')), 'The collaborator is removed.', collaboration);

  // Webhooks.
  hookRoutes(r, `${repo}/settings/hooks`, async (req, res) => {
    const rc = await settingsRepo(req, res);
    return rc && {
      place: repoHookPlace(rc), base: `${base(rc)}/hooks`,
      show: (view, title, data) => show(req, res, rc, view, title, data),
      test: (hook) => testRepoHook(ctxOf(req), rc, doerOf(req), hook, undefined),
    };
  });

  // Branch protection.
  r.get(`${repo}/settings/branches`, page(async (req, res) => {
    const rc = await settingsRepo(req, res);
    if (!rc) return;
    const rules = (await listBranchProtections(ctxOf(req), rc)).map(ruleOut);
    await show(req, res, rc, 'branches', 'Branch protection', { section: 'branches', rules });
  }));
  r.get(`${repo}/settings/branches/edit`, page(async (req, res) => {
    const rc = await settingsRepo(req, res);
    if (!rc) return;
    const name = typeof req.query.rule === 'string' ? req.query.rule : '';
    const rule = name ? ruleOut(await getBranchProtection(ctxOf(req), rc, name)) : null;
    await show(req, res, rc, 'branch-rule', 'Branch protection', { section: 'branches', rule, flags: RULE_FLAGS, lists: RULE_LISTS, texts: RULE_TEXTS, fieldNames: RULE_FIELD_NAMES });
  }));
  const branches = (rc: RepoContext) => `${base(rc)}/branches`;
  action('/branches/edit', (req, rc, b) => (b.existing
    ? editBranchProtection(ctxOf(req), rc, b.existing, ruleOption(b))
    : createBranchProtection(ctxOf(req), rc, { ...ruleOption(b), rule_name: b.rule_name ?? '' })), 'The branch protection rule is saved.', branches);
  action('/branches/delete', (req, rc, b) => removeBranchProtection(ctxOf(req), rc, b.rule_name ?? ''), 'The branch protection rule is deleted.', branches);
  return r;
}
