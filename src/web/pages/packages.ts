/**
 * The package pages (Gitea 1.24's `/{owner}/-/packages...` and `/{owner}/{repo}/packages`): an
 * owner's packages with their latest versions (filter by type and name), a package's redirect to
 * its latest version, its versions, and a version's page with the install instructions, metadata,
 * files and versions. Who sees them is the registries' rule (packageAccessMode at least read, a
 * 404 otherwise); every route is a 404 while [packages] ENABLED is off. The settings page is in
 * package-settings.ts, which shares this file's helpers.
 */
import express, { type Request, type Response, type Router } from 'express';
import { settings, PACKAGE_TYPES, type PackageType } from '../../config';
import { NotFound } from '../../errors';
import { packageHtmlUrl } from '../../convert/package';
import { ctxOf } from '../../middleware/context';
import { AccessMode, UnitType } from '../../models/perm';
import { UserType, type UserModel } from '../../models/user.model';
import { seesAllMembers } from '../../services/org/member.service';
import { latestPackages, latestVersionOf, packageOwner, packageVersions, versionDetails, type VersionSort } from '../../services/packages/pages';
import type { PackageView } from '../../services/packages/view';
import { ownsOrg } from './orgs';
import { humanSize, isPackageType, PACKAGE_PAGES } from './package-types';
import { renderPage } from './render';
import { repoHeader } from './repo';
import { page, pageNumber, pageRepo } from './route';

/** Gitea's [ui] PACKAGES_PAGING_NUM. */
const PAGE_SIZE = 20;
/** The route of an owner's packages. */
export const PACKAGES_BASE = '/:owner/-/packages';
const DOCS = 'https://docs.gitea.com/usage/packages/overview/';
const SORTS: Record<VersionSort, string> = { created_desc: 'Newest', created_asc: 'Oldest', version_asc: 'A - Z', version_desc: 'Z - A' };

const str = (v: unknown) => (typeof v === 'string' ? v.slice(0, 255) : '');
const rootUrl = () => settings().server.rootUrl;

/** 404 while the registries are off, as Gitea registers no package page then. */
export function assertPackagesEnabled(): void {
  if (!settings().packages.enabled) throw new NotFound();
}

/** The `:type` of a package route (404 for a type the forge does not have). */
export function pageType(req: Request): PackageType {
  const type = String(req.params.type);
  if (!isPackageType(type)) throw new NotFound();
  return type;
}

/** The owner of a package page and the caller's mode on its packages (404 below `need`). */
export async function pageOwner(req: Request, need: AccessMode = AccessMode.Read): Promise<{ owner: UserModel; mode: AccessMode }> {
  assertPackagesEnabled();
  return packageOwner(ctxOf(req), req.principal, String(req.params.owner), need);
}

/** What the owner's header on the package pages shows: its names, and the organization's tabs. */
export async function ownerHead(req: Request, owner: UserModel) {
  const isOrg = owner.type === UserType.Organization;
  return {
    owner: { name: owner.name, fullName: owner.fullName, isOrg },
    org: isOrg ? { name: owner.name, isMember: await seesAllMembers(ctxOf(req), req.principal, owner), isOwner: await ownsOrg(req, owner) } : null,
  };
}

/** A package's page URL (`version` given: of that version). */
export function packageUrl(owner: UserModel, type: string, lowerName: string, lowerVersion?: string): string {
  return packageHtmlUrl(rootUrl(), owner.name, type, lowerName, lowerVersion);
}

const typeName = (type: string) => (isPackageType(type) ? PACKAGE_PAGES[type].name : type);
const repoLink = (v: PackageView) => (v.repo ? { fullName: `${v.repo.owner.name}/${v.repo.repo.name}`, url: `${rootUrl()}${v.repo.owner.name}/${v.repo.repo.name}` } : null);

/** A row of a package list or a versions list. */
function row(v: PackageView) {
  return {
    name: v.pkg.name, typeName: typeName(v.pkg.type), version: v.version.version, lowerVersion: v.version.lowerVersion,
    url: packageUrl(v.owner, v.pkg.type, v.pkg.lowerName, v.version.lowerVersion), created: new Date(Number(v.version.createdUnix) * 1000),
    creator: v.creator.name, creatorUrl: `${rootUrl()}${encodeURIComponent(v.creator.name)}`, repo: repoLink(v),
  };
}

/** The list's filters and one page of packages (owner's or a repository's). */
async function listData(req: Request, owner: UserModel, repoId?: number) {
  const q = str(req.query.q).trim();
  const type = str(req.query.type);
  const pageNo = pageNumber(req);
  // why: Gitea's `all` (or nothing) is every type; any other value is compared as it is, so an unknown one matches nothing.
  const filter = { q: q || undefined, type: type && type !== 'all' ? type : undefined, repoId };
  const { views, total, any } = await latestPackages(ctxOf(req), req.principal, owner, filter, PAGE_SIZE, (pageNo - 1) * PAGE_SIZE);
  const keep = new URLSearchParams({ ...(q ? { q } : {}), ...(type ? { type } : {}) }).toString();
  return {
    q, type, types: PACKAGE_TYPES.map((t) => ({ value: t, name: PACKAGE_PAGES[t].name })), packages: views.map(row), any, docs: DOCS,
    total, pageNo, pages: Math.max(1, Math.ceil(total / PAGE_SIZE)), pagerQuery: keep,
  };
}

/** A version page's data. */
async function versionData(req: Request, owner: UserModel, mode: AccessMode, type: PackageType) {
  const d = await versionDetails(ctxOf(req), req.principal, owner, type, String(req.params.name), String(req.params.version));
  const { pkg, version } = d.view;
  const t = PACKAGE_PAGES[type];
  const registry = `${rootUrl()}api/packages/${encodeURIComponent(owner.name)}/${type}`;
  const pkgUrl = packageUrl(owner, type, pkg.lowerName);
  const repo = repoLink(d.view);
  return {
    pkg: { name: pkg.name, version: version.version, typeName: t.name, docs: t.docs, url: pkgUrl, versionUrl: packageUrl(owner, type, pkg.lowerName, version.lowerVersion) },
    created: new Date(Number(version.createdUnix) * 1000), creator: d.view.creator.name, creatorUrl: `${rootUrl()}${encodeURIComponent(d.view.creator.name)}`,
    install: t.install(registry, pkg.name, version.version, owner.name, d.fileProps), meta: t.metadata(version.metadataJson, d.props, d.fileProps),
    // why: one file name may be in several places (a .deb in two distributions); the place tells them apart.
    files: d.files.map((f) => ({ name: f.file.name, place: f.file.compositeKey.split('|').join(' / '), size: humanSize(Number(f.blob.size)), url: t.fileUrl(registry, pkg.name, version.version, f.file) })),
    totalSize: humanSize(d.files.reduce((n, f) => n + Number(f.blob.size), 0)),
    versions: d.versions.slice(0, 5).map((v) => ({ version: v.version, url: packageUrl(owner, type, pkg.lowerName, v.lowerVersion), created: new Date(Number(v.createdUnix) * 1000) })),
    versionCount: d.versions.length,
    repo: repo && { ...repo, issues: d.view.repo!.units.includes(UnitType.Issues) ? `${repo.url}/issues` : null },
    canWrite: mode >= AccessMode.Write,
  };
}

/** The owner's package routes (mount early: `/{owner}/{repo}/...` routers would take `/{owner}/-/...`). */
export function packagePages(): Router {
  const r = express.Router();
  const base = PACKAGES_BASE;

  r.get(base, page(async (req: Request, res: Response) => {
    const { owner } = await pageOwner(req);
    await renderPage(req, res, 'packages/list', `Packages - ${owner.name}`, { ...(await ownerHead(req, owner)), ...(await listData(req, owner)), action: `${rootUrl()}${owner.name}/-/packages` });
  }));

  // The package itself is its latest version (Gitea's 303).
  r.get(`${base}/:type/:name`, page(async (req, res) => {
    const { owner } = await pageOwner(req);
    const type = pageType(req);
    const { pkg, version } = await latestVersionOf(ctxOf(req), owner, type, String(req.params.name));
    res.redirect(303, packageUrl(owner, type, pkg.lowerName, version.lowerVersion));
  }));

  r.get(`${base}/:type/:name/versions`, page(async (req, res) => {
    const { owner } = await pageOwner(req);
    const type = pageType(req);
    const q = str(req.query.q).trim();
    const sort: VersionSort = Object.hasOwn(SORTS, str(req.query.sort)) ? str(req.query.sort) as VersionSort : 'created_desc';
    const pageNo = pageNumber(req);
    const { pkg, views, total } = await packageVersions(ctxOf(req), req.principal, owner, type, String(req.params.name), { q, sort, limit: PAGE_SIZE, offset: (pageNo - 1) * PAGE_SIZE });
    await renderPage(req, res, 'packages/versions', `Versions - ${pkg.name}`, {
      ...(await ownerHead(req, owner)), pkg: { name: pkg.name, url: packageUrl(owner, type, pkg.lowerName) }, rows: views.map(row), q, sort, sorts: SORTS,
      total, pageNo, pages: Math.max(1, Math.ceil(total / PAGE_SIZE)), pagerQuery: new URLSearchParams({ ...(q ? { q } : {}), sort }).toString(),
    });
  }));

  r.get(`${base}/:type/:name/:version`, page(async (req, res) => {
    const { owner, mode } = await pageOwner(req);
    const data = await versionData(req, owner, mode, pageType(req));
    await renderPage(req, res, 'packages/version', data.pkg.name, { ...(await ownerHead(req, owner)), ...data });
  }));
  return r;
}

/**
 * A repository's packages: those linked to it (the tab shows with the Packages unit). Mount it
 * after the other routers, just before the repository pages: `/{a}/{b}/packages` must not shadow
 * a fixed route of that shape.
 */
export function repoPackagePages(): Router {
  const r = express.Router();
  r.get('/:owner/:repo/packages', page(async (req, res) => {
    const rc = await pageRepo(req);
    const header = await repoHeader(req, rc, 'packages');
    if (!header.packagesTab) throw new NotFound();
    const { owner } = await packageOwner(ctxOf(req), req.principal, rc.owner.name);
    await renderPage(req, res, 'packages/repo', `Packages - ${rc.owner.name}/${rc.repo.name}`, {
      ...header, ...(await listData(req, owner, rc.repo.id)), action: `${header.base}/packages`,
      // why: as Gitea, the empty list tells those who may link packages here where to do it.
      linkHint: rc.perm.can(UnitType.Packages, AccessMode.Write) ? `${rootUrl()}${owner.name}/-/packages` : null,
    });
  }));
  return r;
}
