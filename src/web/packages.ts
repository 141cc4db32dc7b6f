/**
 * The package registries under `/api/packages/{owner}/{type}/...`, as Gitea serves them to each
 * format's own client: Go modules (the GOPROXY protocol), R packages (a CRAN-like repository) and
 * Debian, RPM and Alpine packages (apt, dnf and apk repositories with signed indexes).
 * Callers authenticate like git over HTTP (Basic with a password or token, or a token header);
 * reads of a public owner need nothing. A refusal is Gitea's: plain text, and 401 with
 * `WWW-Authenticate: Basic realm="Gitea Package API"` when the caller lacks the right. Everything
 * answers 404 while [packages] ENABLED is off.
 */
import { pipeline } from 'node:stream';
import express, { type NextFunction, type Request, type RequestHandler, type Response, type Router } from 'express';
import { settings, type PackageType } from '../config';
import { Forbidden, HttpError, NotFound, TooLarge } from '../errors';
import { mapError } from '../errors/mapper';
import { authenticate } from '../middleware/auth';
import { ctxOf } from '../middleware/context';
import { AccessMode } from '../models/perm';
import { findUserByName, UserType, type UserModel } from '../models/user.model';
import { assertPackageAccess } from '../services/packages/access';
import { openBlob, receiveBlob, type StoredFile } from '../services/packages/blob-store';
import { goInfo, goList, goMod, goZip, publishGoModule, type GoAnswer } from '../services/packages/go.service';
import { GO_MAX_ZIP_BYTES } from '../services/packages/go';
import { CRAN_MAX_BYTES } from '../services/packages/cran';
import { cranDownload, cranIndex, publishCran, type CranFile } from '../services/packages/cran.service';
import { alpineKey, alpineKeyName, repositoryPgpKey } from '../services/packages/keys';
import { DEB_MAX_BYTES } from '../services/packages/deb';
import { APK_MAX_BYTES } from '../services/packages/apk';
import { RPM_MAX_BYTES } from '../services/packages/rpm';
import { publishRpm, removeRpm, rpmDownload, rpmGroup, rpmRepoConfig, rpmRepodataFile } from '../services/packages/rpm.service';
import { alpineDownload, alpineIndexFile, alpinePlace, publishAlpine, removeAlpine } from '../services/packages/alpine.service';
import {
  debianByHash, debianPackagesFile, debianPlace, debianPoolFile, debianReleaseFile, publishDebian, removeDebian,
} from '../services/packages/debian.service';
import { log } from '../log';

const NAME = /^[A-Za-z0-9_.-]+$/;
/** An RPM's path below its group: `package/{name}/{version}/{arch}`, and a file name after it that is not looked at (Gitea's). */
const RPM_PACKAGE = /^(.*?)\/package\/([^/]+)\/([^/]+)\/([^/]+)(?:\/[^/]+\.rpm)?$/;

function wrap(fn: (req: Request, res: Response) => Promise<void>): RequestHandler {
  return (req, res, next) => { fn(req, res).catch(next); };
}

/** 404 for every route while the registries are off. */
function enabled(_req: Request, _res: Response, next: NextFunction): void {
  next(settings().packages.enabled ? undefined : new NotFound('Not found.'));
}

/** The owner of this request's packages (404 when unknown or not a user or organization). */
async function ownerOf(req: Request): Promise<UserModel> {
  const name = String(req.params.owner);
  const owner = NAME.test(name) ? await findUserByName(ctxOf(req), name) : null;
  if (!owner || (owner.type !== UserType.Individual && owner.type !== UserType.Organization)) throw new NotFound('Not found.');
  return owner;
}

/** Run `fn` for the owner once the caller may `need` its packages. */
function access(need: AccessMode.Read | AccessMode.Write, fn: (req: Request, res: Response, owner: UserModel) => Promise<void>): RequestHandler {
  return wrap(async (req, res) => {
    const owner = await ownerOf(req);
    await assertPackageAccess(ctxOf(req), req.principal, owner, need);
    await fn(req, res, owner);
  });
}

/**
 * The request's body as a temporary blob, refused as soon as it says or shows it is larger than the
 * format allows (413) or than [packages] LIMIT_SIZE_<TYPE> (Gitea's 403; site administrators are exempt).
 */
async function uploadOf(req: Request, type: PackageType, formatMax: number) {
  const typeLimit = req.principal.user?.isAdmin ? -1 : settings().packages.limitSize[type];
  const byType = typeLimit > -1 && typeLimit < formatMax;
  const cap = byType ? typeLimit : formatMax;
  const tooLarge = () => (byType ? new Forbidden('maximum allowed package type size exceeded') : new TooLarge(`the upload is larger than ${cap} bytes`));
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (Number.isFinite(declared) && declared > cap) throw tooLarge();
  return receiveBlob(req, cap, tooLarge);
}

/** Send a stored file as Gitea does (attachment, Last-Modified, byte ranges), with its sha256 as its ETag. */
function sendFile(req: Request, res: Response, f: StoredFile, contentType = 'application/octet-stream'): void {
  res.setHeader('Content-Type', contentType);
  const ascii = f.name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  res.setHeader('Content-Disposition', `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(f.name)}`);
  res.setHeader('Access-Control-Expose-Headers', 'Content-Disposition');
  res.setHeader('Last-Modified', new Date(f.createdUnix * 1000).toUTCString());
  res.setHeader('Cache-Control', 'max-age=0, private, must-revalidate, no-transform');
  res.setHeader('Accept-Ranges', 'bytes');
  const etag = `"${f.sha256}"`;
  res.setHeader('ETag', etag);
  const match = req.headers['if-none-match'];
  const since = Date.parse(String(req.headers['if-modified-since'] ?? ''));
  // why: If-None-Match decides when sent (RFC 9110 13.1.3); a file replaced within the same second keeps no stale copy.
  const fresh = match !== undefined ? match.split(',').some((t) => t.trim().replace(/^W\//, '') === etag || t.trim() === '*') : Number.isFinite(since) && Math.floor(since / 1000) >= f.createdUnix;
  if (fresh) { res.status(304).end(); return; }
  let start = 0;
  let end = f.size - 1;
  const m = /^bytes=(\d*)-(\d*)$/.exec(String(req.headers.range ?? ''));
  if (m && (m[1] || m[2]) && f.size > 0) {
    if (m[1]) { start = Number(m[1]); end = m[2] ? Math.min(Number(m[2]), f.size - 1) : f.size - 1; } else { start = Math.max(0, f.size - Number(m[2])); }
    if (start > end || start >= f.size) { res.status(416).setHeader('Content-Range', `bytes */${f.size}`); res.end(); return; }
    res.status(206).setHeader('Content-Range', `bytes ${start}-${end}/${f.size}`);
  }
  res.setHeader('Content-Length', String(f.size === 0 ? 0 : end - start + 1));
  if (req.method === 'HEAD' || f.size === 0) { res.end(); return; }
  pipeline(openBlob(f.sha256, { start, end }), res, () => undefined);
}

/** Send what a Go read answered. */
function sendGo(req: Request, res: Response, a: GoAnswer): void {
  if (a.kind === 'file') return sendFile(req, res, a.file);
  res.status(200).type(a.contentType).send(a.body);
}

/** Send a CRAN read's answer. */
function sendCran(req: Request, res: Response, a: CranFile): void {
  if (a.kind === 'file') return sendFile(req, res, a.file);
  res.status(200).type(a.contentType).send(a.body);
}

/** Errors as Gitea's registries answer them: the mapper's status, headers and message, as plain text (a 500's blank but to administrators). */
function registryErrors(err: unknown, req: Request, res: Response, _next: NextFunction): void {
  if (res.headersSent) { res.destroy(); return; }
  const admin = !!req.principal?.user?.isAdmin;
  const m = mapError(err, '', admin);
  if (m.log) log.error(`[${req.requestId}] ${req.method} ${req.originalUrl}:`, err);
  // why: a refused upload's body may still be arriving; the connection is not kept for a next request.
  if (!req.complete) res.setHeader('Connection', 'close');
  for (const [k, v] of Object.entries(m.headers)) res.setHeader(k, v);
  res.status(m.status).setHeader('X-Content-Type-Options', 'nosniff');
  res.type('text/plain; charset=utf-8').send(m.status >= 500 && !admin ? '' : m.body.message);
}

/** The registries' routes. */
export function packagesRouter(): Router {
  const r = express.Router();
  const base = '/api/packages/:owner';
  r.use(base, enabled, authenticate('refuse'));

  // Go modules.
  r.put(`${base}/go/upload`, access(AccessMode.Write, async (req, res, owner) => {
    await publishGoModule(ctxOf(req), req.principal.user!, owner, await uploadOf(req, 'go', GO_MAX_ZIP_BYTES));
    res.status(201).end();
  }));
  r.get(`${base}/go/sumdb/sum.golang.org/supported`, (_req, res) => { res.status(404).end(); });
  r.get(`${base}/go/*`, access(AccessMode.Read, async (req, res, owner) => {
    const rest = String((req.params as unknown as Record<string, string>)[0] ?? '');
    const ctx = ctxOf(req);
    if (rest.endsWith('/@latest')) return sendGo(req, res, await goInfo(ctx, owner, rest.slice(0, -'/@latest'.length), 'latest'));
    const at = rest.indexOf('/@v/');
    if (at < 0) throw new NotFound('');
    const module = rest.slice(0, at);
    const file = rest.slice(at + 4);
    if (file === 'list') return sendGo(req, res, await goList(ctx, owner, module));
    const m = /^(.+)\.(info|mod|zip)$/.exec(file);
    if (!m) throw new NotFound('');
    const read = { info: goInfo, mod: goMod, zip: goZip }[m[2] as 'info' | 'mod' | 'zip'];
    sendGo(req, res, await read(ctx, owner, module, m[1]));
  }));

  // R packages.
  r.put(`${base}/cran/src`, access(AccessMode.Write, async (req, res, owner) => {
    await publishCran(ctxOf(req), req.principal.user!, owner, null, await uploadOf(req, 'cran', CRAN_MAX_BYTES));
    res.status(201).end();
  }));
  r.put(`${base}/cran/bin`, access(AccessMode.Write, async (req, res, owner) => {
    const platform = String(req.query.platform ?? '').trim();
    const rversion = String(req.query.rversion ?? '').trim();
    if (!platform || !rversion) throw new HttpError(400, 'platform and rversion are required');
    await publishCran(ctxOf(req), req.principal.user!, owner, { platform, rversion }, await uploadOf(req, 'cran', CRAN_MAX_BYTES));
    res.status(201).end();
  }));
  r.get(`${base}/cran/src/contrib/:file`, access(AccessMode.Read, async (req, res, owner) => {
    const file = String(req.params.file);
    const index = /^PACKAGES(\.gz)?$/.exec(file);
    sendCran(req, res, index ? await cranIndex(ctxOf(req), owner, null, !!index[1]) : await cranDownload(ctxOf(req), owner, null, file));
  }));
  r.get(`${base}/cran/src/contrib/Archive/:name/:file`, access(AccessMode.Read, async (req, res, owner) => {
    sendCran(req, res, await cranDownload(ctxOf(req), owner, null, String(req.params.file)));
  }));
  r.get(`${base}/cran/bin/:platform/contrib/:rversion/:file`, access(AccessMode.Read, async (req, res, owner) => {
    const bin = { platform: String(req.params.platform), rversion: String(req.params.rversion) };
    const file = String(req.params.file);
    const index = /^PACKAGES(\.gz)?$/.exec(file);
    sendCran(req, res, index ? await cranIndex(ctxOf(req), owner, bin, !!index[1]) : await cranDownload(ctxOf(req), owner, bin, file));
  }));

  // Debian (apt).
  const debian = `${base}/debian`;
  r.put(`${debian}/pool/:dist/:component/upload`, access(AccessMode.Write, async (req, res, owner) => {
    const { dist, component } = debianPlace(String(req.params.dist), String(req.params.component));
    await publishDebian(ctxOf(req), req.principal.user!, owner, dist, component, await uploadOf(req, 'debian', DEB_MAX_BYTES));
    res.status(201).end();
  }));
  r.delete(`${debian}/pool/:dist/:component/:name/:version/:arch`, access(AccessMode.Write, async (req, res, owner) => {
    const p = req.params;
    await removeDebian(ctxOf(req), req.principal.user!, owner, String(p.dist), String(p.component), String(p.name), String(p.version), String(p.arch));
    res.status(204).end();
  }));
  r.get(`${debian}/pool/:dist/:component/:file`, access(AccessMode.Read, async (req, res, owner) => {
    const f = await debianPoolFile(ctxOf(req), owner, String(req.params.dist), String(req.params.component), String(req.params.file));
    sendFile(req, res, f, 'application/vnd.debian.binary-package');
  }));
  r.get(`${debian}/dists/:dist/by-hash/:alg/:hash`, access(AccessMode.Read, async (req, res, owner) => {
    sendFile(req, res, await debianByHash(ctxOf(req), owner, String(req.params.dist), String(req.params.alg), String(req.params.hash)));
  }));
  r.get(`${debian}/dists/:dist/:file`, access(AccessMode.Read, async (req, res, owner) => {
    sendFile(req, res, await debianReleaseFile(ctxOf(req), owner, String(req.params.dist), String(req.params.file)));
  }));
  r.get(`${debian}/dists/:dist/:component/:arch/by-hash/:alg/:hash`, access(AccessMode.Read, async (req, res, owner) => {
    sendFile(req, res, await debianByHash(ctxOf(req), owner, String(req.params.dist), String(req.params.alg), String(req.params.hash)));
  }));
  r.get(`${debian}/dists/:dist/:component/:arch/:file`, access(AccessMode.Read, async (req, res, owner) => {
    const p = req.params;
    sendFile(req, res, await debianPackagesFile(ctxOf(req), owner, String(p.dist), String(p.component), String(p.arch), String(p.file)));
  }));

  // Alpine (apk).
  const alpine = `${base}/alpine`;
  r.put(`${alpine}/:branch/:repository`, access(AccessMode.Write, async (req, res, owner) => {
    const { branch, repository } = alpinePlace(String(req.params.branch), String(req.params.repository));
    await publishAlpine(ctxOf(req), req.principal.user!, owner, branch, repository, await uploadOf(req, 'alpine', APK_MAX_BYTES));
    res.status(201).end();
  }));
  r.get(`${alpine}/:branch/:repository/:arch/APKINDEX.tar.gz`, access(AccessMode.Read, async (req, res, owner) => {
    sendFile(req, res, await alpineIndexFile(ctxOf(req), owner, String(req.params.branch), String(req.params.repository), String(req.params.arch)));
  }));
  r.get(`${alpine}/:branch/:repository/:arch/:file`, access(AccessMode.Read, async (req, res, owner) => {
    const p = req.params;
    sendFile(req, res, await alpineDownload(ctxOf(req), owner, String(p.branch), String(p.repository), String(p.arch), String(p.file)));
  }));
  r.delete(`${alpine}/:branch/:repository/:arch/:file`, access(AccessMode.Write, async (req, res, owner) => {
    const p = req.params;
    await removeAlpine(ctxOf(req), req.principal.user!, owner, String(p.branch), String(p.repository), String(p.arch), String(p.file));
    res.status(204).end();
  }));

  // The signing keys of the Linux formats' repositories.
  for (const kind of ['debian', 'rpm'] as const) {
    r.get(`${base}/${kind}/repository.key`, access(AccessMode.Read, async (req, res, owner) => {
      const key = await repositoryPgpKey(ctxOf(req), owner, kind);
      res.status(200).type('application/pgp-keys').setHeader('Content-Disposition', 'attachment; filename="repository.key"');
      res.send(key.publicKey);
    }));
  }
  r.get(`${base}/alpine/key`, access(AccessMode.Read, async (req, res, owner) => {
    const key = await alpineKey(ctxOf(req), owner);
    res.status(200).type('application/x-pem-file').setHeader('Content-Disposition', `attachment; filename="${alpineKeyName(owner, key.publicKey)}"`);
    res.send(key.publicKey);
  }));

  // RPM (dnf, zypper): the group is the path before `/repodata/`, `/upload` or `/package/` (Gitea's order), after the key above.
  const rpmPath = (req: Request) => String((req.params as unknown as Record<string, string>)[0] ?? '');
  r.get([`${base}/rpm.repo`, `${base}/rpm/*.repo`], access(AccessMode.Read, async (req, res, owner) => {
    const group = req.path.endsWith('/rpm.repo') ? '' : rpmGroup(rpmPath(req));
    res.status(200).type('text/plain; charset=utf-8').send(rpmRepoConfig(owner, group));
  }));
  r.get(`${base}/rpm/*`, access(AccessMode.Read, async (req, res, owner) => {
    const rest = `/${rpmPath(req)}`;
    const repodata = /^(.*?)\/repodata\/([^/]+)$/.exec(rest);
    if (repodata) return sendFile(req, res, await rpmRepodataFile(ctxOf(req), owner, rpmGroup(repodata[1]), repodata[2]));
    const pkg = RPM_PACKAGE.exec(rest);
    if (!pkg) throw new NotFound('');
    sendFile(req, res, await rpmDownload(ctxOf(req), owner, rpmGroup(pkg[1]), pkg[2], pkg[3], pkg[4]));
  }));
  r.put(`${base}/rpm/*`, access(AccessMode.Write, async (req, res, owner) => {
    const upload = /^(.*?)\/upload$/.exec(`/${rpmPath(req)}`);
    if (!upload) throw new NotFound('');
    const group = rpmGroup(upload[1]);
    const sign = /^(1|t|true)$/i.test(String(req.query.sign ?? ''));
    await publishRpm(ctxOf(req), req.principal.user!, owner, group, await uploadOf(req, 'rpm', RPM_MAX_BYTES), sign);
    res.status(201).end();
  }));
  r.delete(`${base}/rpm/*`, access(AccessMode.Write, async (req, res, owner) => {
    const pkg = RPM_PACKAGE.exec(`/${rpmPath(req)}`);
    if (!pkg) throw new NotFound('');
    await removeRpm(ctxOf(req), req.principal.user!, owner, rpmGroup(pkg[1]), pkg[2], pkg[3], pkg[4]);
    res.status(204).end();
  }));

  r.all([base, `${base}/*`], (_req, _res, next) => next(new NotFound('Not found.')));
  r.use(base, registryErrors);
  return r;
}
