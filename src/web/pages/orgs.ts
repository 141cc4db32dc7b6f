/**
 * Organization pages and the two creation forms: new repository (`/repo/create`, for the user or
 * an organization the user may create in, with the instance's .gitignore, license and label
 * templates), new organization (`/org/create`), an organization's members (`/org/{org}/members`,
 * owners remove) and teams (`/org/{org}/teams`, a team's page, owners create teams and add or
 * remove members). Every action calls the service the API's handler calls, with the same guards.
 */
import express, { type Request, type Response, type Router } from 'express';
import { settings } from '../../config';
import { NotFound } from '../../errors';
import { toTeam } from '../../convert/org';
import { toRepositoryView } from '../../convert/repo';
import { ctxOf, doerOf, viewerOf } from '../../middleware/context';
import { formBody } from '../../middleware/input-guard';
import type { CreateRepoOption } from '../../api/repo';
import type { UserModel } from '../../models/user.model';
import { findTeamByName, listTeamsOfOrg } from '../../models/team.model';
import { listTeamMembers } from '../../models/team-user.model';
import { listTeamRepos } from '../../models/team-repo.model';
import { UNIT_KEYS } from '../../models/perm';
import { assertOrgMember, assertOrgOwner, assertTeamOwner, membershipOf, resolveOrg, resolveTeam, type TeamContext } from '../../services/org/guard';
import { listMembers, removeMember, seesAllMembers } from '../../services/org/member.service';
import { createOrg, listOrgsOf, orgPermissionsOf } from '../../services/org/org.service';
import { addTeamMember, createTeam, removeTeamMember, teamUnits } from '../../services/org/team.service';
import { labelTemplateNames } from '../../services/issue/label.service';
import { createRepo } from '../../services/lifecycle/repo-create.service';
import { assertCanCreateInOrg } from '../../services/repo/rules';
import { viewsOf } from '../../services/repo/repo.service';
import { gitignoreTemplateNames, licenseTemplateNames } from '../../services/repo/templates';
import { lookupUser } from '../../services/user/lookup';
import { flashOutcome, requireCsrf, unlessRefused } from './context';
import { renderPage } from './render';
import { page, pageNumber, signedIn } from './route';

const PAGE_SIZE = 20;
const UNITS = Object.values(UNIT_KEYS);

const home = (path: string) => `${settings().server.rootUrl}${path}`;
const str = (v: string | undefined) => (v ?? '').trim();

/** Are the caller's organization rights an owner's (site admins count, as in assertOrgOwner)? */
export async function ownsOrg(req: Request, org: UserModel): Promise<boolean> {
  const u = req.principal.user;
  return !!u && (u.isAdmin || (await membershipOf(ctxOf(req), org.id, u.id)) === 'owner');
}

// --- New repository ---

/** The new-repository form as sent (and shown again). */
interface RepoForm { owner: string; name: string; description: string; private: boolean; autoInit: boolean; gitignores: string[]; license: string; readme: string; labels: string; branch: string }

// why: formBody keeps only a repeated field's first value, so each .gitignore template is its own checkbox.
const GITIGNORE = 'gitignore-';

function repoForm(b: Record<string, string>, owner: string): RepoForm {
  return {
    owner: str(b.owner) || owner, name: str(b.repo_name), description: b.description ?? '', private: b.private === 'on', autoInit: b.auto_init === 'on',
    gitignores: Object.keys(b).filter((k) => k.startsWith(GITIGNORE) && b[k] === 'on').map((k) => k.slice(GITIGNORE.length)),
    license: str(b.license), readme: str(b.readme) || 'Default', labels: str(b.issue_labels), branch: str(b.default_branch),
  };
}

/** The API's options for the form, as `POST /user/repos` takes them. */
function createOption(f: RepoForm): CreateRepoOption {
  return {
    name: f.name, description: f.description, private: f.private, auto_init: f.autoInit, gitignores: f.gitignores.join(','),
    license: f.license || undefined, readme: f.autoInit ? f.readme : undefined, issue_labels: f.labels || undefined, default_branch: f.branch || undefined,
  };
}

/** The owners the user may create repositories for: the user, then organizations where the user may. */
export async function ownerChoices(req: Request): Promise<string[]> {
  const ctx = ctxOf(req);
  const doer = doerOf(req);
  const { rows } = await listOrgsOf(ctx, req.principal, doer, 1000, 0);
  const orgs: string[] = [];
  for (const o of rows) if (doer.isAdmin || (await orgPermissionsOf(ctx, o, doer))?.canCreateRepository) orgs.push(o.name);
  return [doer.name, ...orgs];
}

/** The owner named in the form: the user, or an organization the user may create in (404/403 otherwise). */
async function repoOwner(req: Request, name: string): Promise<UserModel> {
  const doer = doerOf(req);
  if (name.toLowerCase() === doer.lowerName) return doer;
  const ctx = ctxOf(req);
  const org = await resolveOrg(ctx, req.principal, name);
  await assertCanCreateInOrg(ctx, doer, org);
  return org;
}

async function repoCreatePage(req: Request, res: Response, form: RepoForm, status = 200): Promise<void> {
  await renderPage(req, res, 'repo/create', 'New repository', {
    form, owners: await ownerChoices(req), gitignores: gitignoreTemplateNames(), licenses: licenseTemplateNames(), labelSets: labelTemplateNames(),
  }, status);
}

function repoCreateRoutes(r: Router, csrf: express.RequestHandler): void {
  r.get('/repo/create', page(async (req, res) => {
    const user = signedIn(req, res);
    if (!user) return;
    const wanted = typeof req.query.org === 'string' ? req.query.org : '';
    await repoCreatePage(req, res, repoForm({ owner: wanted }, user.name));
  }));
  r.post('/repo/create', ...formBody('256kb'), csrf, page(async (req, res) => {
    const user = signedIn(req, res);
    if (!user) return;
    const form = repoForm(req.body as Record<string, string>, user.name);
    const made = await unlessRefused(req, async () => {
      const owner = await repoOwner(req, form.owner);
      const repo = await createRepo(ctxOf(req), doerOf(req), owner, createOption(form));
      return `${owner.name}/${repo.name}`;
    }, (status) => repoCreatePage(req, res, form, status));
    if (made) res.redirect(303, home(made));
  }));
}

// --- New organization ---

/** The new-organization form as sent (and shown again). */
interface OrgForm { name: string; fullName: string; description: string; visibility: string }

function orgCreateRoutes(r: Router, csrf: express.RequestHandler): void {
  const show = (req: Request, res: Response, form: OrgForm, status = 200) => renderPage(req, res, 'org/create', 'New organization', { form }, status);
  r.get('/org/create', page(async (req, res) => {
    if (!signedIn(req, res)) return;
    await show(req, res, { name: '', fullName: '', description: '', visibility: 'public' });
  }));
  r.post('/org/create', ...formBody(), csrf, page(async (req, res) => {
    if (!signedIn(req, res)) return;
    const b = req.body as Record<string, string>;
    const form: OrgForm = { name: str(b.org_name), fullName: b.full_name ?? '', description: b.description ?? '', visibility: str(b.visibility) || 'public' };
    const org = await unlessRefused(req, () => createOrg(ctxOf(req), doerOf(req), form.name, { full_name: form.fullName, description: form.description, visibility: form.visibility }, true),
      (status) => show(req, res, form, status));
    if (org) res.redirect(303, home(org.name));
  }));
}

// --- Members ---

function memberRoutes(r: Router, csrf: express.RequestHandler): void {
  r.get('/org/:org/members', page(async (req, res) => {
    const ctx = ctxOf(req);
    const org = await resolveOrg(ctx, req.principal, String(req.params.org));
    const pageNo = pageNumber(req);
    // why: as Gitea, outsiders (and anonymous visitors) see public members, members see everyone.
    const { rows, count } = await listMembers(ctx, req.principal, org, false, PAGE_SIZE, (pageNo - 1) * PAGE_SIZE);
    await renderPage(req, res, 'org/members', `Members - ${org.name}`, {
      org: { name: org.name, isMember: await seesAllMembers(ctx, req.principal, org), isOwner: await ownsOrg(req, org) }, members: rows.map((u) => ({ name: u.name, fullName: u.fullName })),
      total: count, pageNo, pages: Math.max(1, Math.ceil(count / PAGE_SIZE)),
    });
  }));
  r.post('/org/:org/members/:user/remove', ...formBody(), csrf, page(async (req, res) => {
    if (!signedIn(req, res)) return;
    const name = String(req.params.user);
    await flashOutcome(req, async () => {
      const ctx = ctxOf(req);
      const org = await resolveOrg(ctx, req.principal, String(req.params.org));
      await assertOrgOwner(ctx, req.principal, org);
      await removeMember(ctx, org, await lookupUser(ctx, req.principal, name));
    }, () => `${name} has been removed from the organization.`);
    res.redirect(303, home(`org/${encodeURIComponent(String(req.params.org))}/members`));
  }));
}

// --- Teams ---

/** The team of a `/org/:org/teams/:team` page as the caller may see it (the API's team guard). */
async function pageTeam(req: Request): Promise<TeamContext> {
  const ctx = ctxOf(req);
  const org = await resolveOrg(ctx, req.principal, String(req.params.org));
  const team = await findTeamByName(ctx, org.id, String(req.params.team));
  if (!team) throw new NotFound(`team does not exist [name: ${String(req.params.team)}]`);
  return resolveTeam(ctx, req.principal, String(team.id));
}

/** The new-team form as sent (and shown again). */
interface TeamForm { name: string; description: string; permission: string; units: string[]; allRepos: boolean; createRepos: boolean }

// why: formBody keeps only a repeated field's first value, so each unit is its own checkbox.
const UNIT = 'unit-';

function teamRoutes(r: Router, csrf: express.RequestHandler): void {
  const teamsPath = (org: string) => `org/${encodeURIComponent(org)}/teams`;

  r.get('/org/:org/teams', page(async (req, res) => {
    if (!signedIn(req, res)) return;
    const ctx = ctxOf(req);
    const org = await resolveOrg(ctx, req.principal, String(req.params.org));
    await assertOrgMember(ctx, req.principal, org);
    const { rows } = await listTeamsOfOrg(ctx, org.id, 1000, 0);
    const units = await teamUnits(ctx, rows);
    await renderPage(req, res, 'org/teams', `Teams - ${org.name}`, {
      org: { name: org.name, isMember: true, isOwner: await ownsOrg(req, org) }, teams: rows.map((t) => toTeam(t, units.get(t.id)!, null)),
    });
  }));

  const showNew = (req: Request, res: Response, org: UserModel, form: TeamForm, status = 200) =>
    renderPage(req, res, 'org/team_new', `New team - ${org.name}`, { org: { name: org.name }, form, units: UNITS }, status);
  const ownedOrg = async (req: Request) => {
    const ctx = ctxOf(req);
    const org = await resolveOrg(ctx, req.principal, String(req.params.org));
    await assertOrgOwner(ctx, req.principal, org);
    return org;
  };
  r.get('/org/:org/teams/new', page(async (req, res) => {
    if (!signedIn(req, res)) return;
    const org = await ownedOrg(req);
    await showNew(req, res, org, { name: '', description: '', permission: 'read', units: [...UNITS], allRepos: false, createRepos: false });
  }));
  r.post('/org/:org/teams/new', ...formBody(), csrf, page(async (req, res) => {
    if (!signedIn(req, res)) return;
    const org = await ownedOrg(req);
    const b = req.body as Record<string, string>;
    const form: TeamForm = {
      name: str(b.team_name), description: b.description ?? '', permission: str(b.permission) || 'read',
      units: UNITS.filter((u) => b[UNIT + u] === 'on'), allRepos: b.repo_access === 'all', createRepos: b.can_create_org_repo === 'on',
    };
    const team = await unlessRefused(req, () => createTeam(ctxOf(req), org, {
      name: form.name, description: form.description, permission: form.permission, units: form.units,
      includes_all_repositories: form.allRepos, can_create_org_repo: form.createRepos,
    }), (status) => showNew(req, res, org, form, status));
    if (team) res.redirect(303, home(`${teamsPath(org.name)}/${encodeURIComponent(team.name)}`));
  }));

  r.get('/org/:org/teams/:team', page(async (req, res) => {
    if (!signedIn(req, res)) return;
    const ctx = ctxOf(req);
    const t = await pageTeam(req);
    const members = (await listTeamMembers(ctx, t.team.id, 1000, 0)).rows;
    const repos = (await listTeamRepos(ctx, t.team, 1000, 0)).rows;
    const views = await viewsOf(ctx, req.principal, repos.map((repo) => ({ repo, owner: t.org })));
    const units = await teamUnits(ctx, [t.team]);
    await renderPage(req, res, 'org/team', `${t.team.name} - ${t.org.name}`, {
      org: { name: t.org.name }, team: toTeam(t.team, units.get(t.team.id)!, null), canManage: t.isOwner,
      members: members.map((u) => ({ name: u.name, fullName: u.fullName })),
      repos: views.map((v) => toRepositoryView(v, viewerOf(req), settings().server.rootUrl)),
    });
  }));

  const memberAction = (path: string, run: (req: Request, t: TeamContext, user: UserModel) => Promise<void>, done: (name: string) => string) => {
    r.post(`/org/:org/teams/:team/${path}`, ...formBody(), csrf, page(async (req, res) => {
      if (!signedIn(req, res)) return;
      const name = str(req.params.user ?? (req.body as Record<string, string>).uname);
      await flashOutcome(req, async () => {
        const t = await pageTeam(req);
        assertTeamOwner(t);
        await run(req, t, await lookupUser(ctxOf(req), req.principal, name));
      }, () => done(name));
      res.redirect(303, home(`${teamsPath(String(req.params.org))}/${encodeURIComponent(String(req.params.team))}`));
    }));
  };
  memberAction('members/add', (req, t, user) => addTeamMember(ctxOf(req), t.team, user), (name) => `${name} has been added to the team.`);
  memberAction('members/:user/remove', (req, t, user) => removeTeamMember(ctxOf(req), t.team, user), (name) => `${name} has been removed from the team.`);
}

/** Organization routes, the new-repository form and the new-organization form. */
export function orgPages(): Router {
  const r = express.Router();
  const csrf = requireCsrf();
  repoCreateRoutes(r, csrf);
  orgCreateRoutes(r, csrf);
  memberRoutes(r, csrf);
  teamRoutes(r, csrf);
  return r;
}
