/**
 * Git smart HTTP: `GET /{owner}/{repo}(.git)/info/refs?service=...` and
 * `POST /{owner}/{repo}(.git)/git-upload-pack|git-receive-pack`, protocol v0 and v2; the wiki is
 * `/{owner}/{repo}.wiki(.git)/...`. Bodies stream
 * both ways through pipes (gzip request bodies are inflated on the fly) and git is killed when the
 * client goes away.
 */
import zlib from 'node:zlib';
import { pipeline } from 'node:stream';
import { performance } from 'node:perf_hooks';
import express, { type Request, type Response, type NextFunction, type Router } from 'express';
import { systemCtx } from '../db';
import { HttpError, NotFound } from '../errors';
import { renamedLocation } from '../errors/mapper';
import { safeGitProtocol } from '../git/run';
import { log } from '../log';
import { logGitOperation } from '../log/access';
import { authenticate } from '../middleware/auth';
import { authorizeGitService, GIT_AUTH_HEADERS } from '../services/git-serve/git-access';
import { spawnGitService, type GitService } from '../services/git-serve/git-serve';
import type { RepoContext } from '../services/repo/context';

const SERVICES: Record<string, GitService> = { 'git-upload-pack': 'upload-pack', 'git-receive-pack': 'receive-pack' };
const NAME = /^[A-Za-z0-9_.-]+$/;

function noCache(res: Response): void {
  res.setHeader('Cache-Control', 'no-cache, max-age=0, must-revalidate');
  res.setHeader('Pragma', 'no-cache');
  res.setHeader('Expires', 'Fri, 01 Jan 1980 00:00:00 GMT');
}

function pktLine(s: string): string {
  return (s.length + 4).toString(16).padStart(4, '0') + s;
}

/** The Git-Protocol header when well-formed; git sees exactly this value or nothing. */
function clientProtocol(req: Request): string | undefined {
  const h = req.headers['git-protocol'];
  return safeGitProtocol(typeof h === 'string' ? h : undefined);
}

/** A repository, or its wiki (`<repo>.wiki.git`), being served. */
interface Target { rc: RepoContext; wiki: boolean }

/** Check names and permission. */
async function prepare(req: Request, service: GitService): Promise<Target> {
  const owner = req.params.owner;
  let repo = req.params.repo.replace(/\.git$/i, '');
  // why: repository names may not end in .wiki, so the suffix always means the wiki.
  const wiki = /\.wiki$/i.test(repo);
  if (wiki) repo = repo.slice(0, -'.wiki'.length);
  // why: names that cannot exist answer like a missing repository, not 422.
  if (!NAME.test(owner) || !NAME.test(repo)) throw new NotFound();
  return { rc: await authorizeGitService(systemCtx, req.principal, owner, repo, service, wiki), wiki };
}

/** Kill git when the client disconnects before the answer is complete. */
function abortOnDisconnect(res: Response): AbortController {
  const ac = new AbortController();
  // why: req 'close' also fires once the request body is read; res 'close' before finish means the client left.
  res.once('close', () => { if (!res.writableFinished) ac.abort(); });
  return ac;
}

/** Run git and stream its stdout into the response; stderr is drained (and kept short for the log). */
function streamGit(req: Request, res: Response, t: Target, service: GitService, flags: string[], input: NodeJS.ReadableStream | null, prefix?: string): void {
  const ac = abortOnDisconnect(res);
  const start = Date.now();
  const t0 = performance.now();
  const child = spawnGitService(t.rc, req.principal, service, { transport: 'http', gitProtocol: clientProtocol(req), signal: ac.signal, flags, wiki: t.wiki });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => { if (stderr.length < 4096) stderr += d.toString(); });
  // why: git that ends before reading the whole request (killed, crashed) reads no more of it, and
  // Node has let go of the request by then; a client still sending would wait on a full socket until
  // keep-alive gives up, so the connection itself is closed.
  const socket = req.socket;
  child.once('close', (code: number | null, signal: NodeJS.Signals | null) => {
    if (code !== 0 && !ac.signal.aborted) log.error(`[${req.requestId}] git ${service} exited ${code ?? signal}: ${stderr.trim()}`);
    if (input && !req.complete) socket.destroy();
    // why: the fetch or push itself (the POST); the ref advertisement before it has only its access line.
    if (input) {
      logGitOperation({
        transport: 'http', command: `git-${service}`, repo: `${t.rc.owner.name}/${t.rc.repo.name}${t.wiki ? '.wiki' : ''}`, principal: req.principal,
        remote: req.ip, requestId: req.requestId, start, t0, outcome: { exitCode: code, signal, aborted: ac.signal.aborted },
      });
    }
  });
  res.status(200);
  if (prefix) res.write(prefix);
  if (service === 'receive-pack' && input) {
    // why: the server records the push once git exits (spawnGitService); the answer ends only then,
    // so a client whose push returned finds it recorded, and a draining worker waits for it.
    child.stdout.pipe(res, { end: false });
    child.once('close', () => res.end());
    res.once('close', () => child.stdout.destroy());
  } else {
    pipeline(child.stdout, res, () => undefined);
  }
  if (input) {
    pipeline(input, child.stdin, (err) => { if (err) child.kill('SIGKILL'); });
  } else {
    child.stdin.on('error', () => undefined);
    child.stdin.end();
  }
}

function infoRefs(req: Request, res: Response, next: NextFunction): void {
  const name = typeof req.query.service === 'string' ? req.query.service : '';
  const service = SERVICES[name];
  if (!service) {
    // why: the "dumb" protocol is not served.
    next(new NotFound());
    return;
  }
  prepare(req, service).then((t) => {
    noCache(res);
    res.setHeader('Content-Type', `application/x-${name}-advertisement`);
    const v2 = /^version=2(:|$)/.test(clientProtocol(req) ?? '');
    // why: protocol v2 answers start with the capability list; v0 needs the service header first.
    const prefix = v2 ? undefined : `${pktLine(`# service=${name}\n`)}0000`;
    streamGit(req, res, t, service, ['--stateless-rpc', '--advertise-refs'], null, prefix);
  }).catch(next);
}

function rpc(name: string) {
  const service = SERVICES[name];
  return (req: Request, res: Response, next: NextFunction): void => {
    if (req.headers['content-type'] !== `application/x-${name}-request`) {
      res.status(415).type('text/plain').send('unsupported content type');
      return;
    }
    prepare(req, service).then((t) => {
      noCache(res);
      res.setHeader('Content-Type', `application/x-${name}-result`);
      const enc = String(req.headers['content-encoding'] ?? '').toLowerCase();
      let input: NodeJS.ReadableStream = req;
      if (enc === 'gzip' || enc === 'x-gzip') {
        const gunzip = zlib.createGunzip();
        pipeline(req, gunzip, () => undefined);
        input = gunzip;
      }
      streamGit(req, res, t, service, ['--stateless-rpc'], input);
    }).catch(next);
  };
}

/**
 * Errors as short plain text, with Gitea's Basic challenge on 401. A server-side failure of a
 * repository's storage is logged and answered as git's own ERR packet, so the client prints it
 * ("remote error: ...") instead of an empty reply.
 */
function gitErrors(err: unknown, req: Request, res: Response, next: NextFunction): void {
  if (!(err instanceof HttpError) || res.headersSent) {
    next(err);
    return;
  }
  if (err.log) log.error(`[${req.requestId}] ${req.method} ${req.originalUrl}:`, err);
  noCache(res);
  // why: as Gitea, a clone URL under an account's old name answers 307 to the new one; git follows it.
  const moved = renamedLocation(err, req.originalUrl);
  if (moved) {
    res.redirect(307, moved);
    return;
  }
  const service = typeof req.query.service === 'string' ? SERVICES[req.query.service] : undefined;
  if (err.status >= 500 && req.method === 'GET' && service) {
    res.status(200).setHeader('Content-Type', `application/x-git-${service}-advertisement`);
    res.send(pktLine(`ERR ${err.message}\n`));
    return;
  }
  for (const [k, v] of Object.entries(err.headers)) res.setHeader(k, v);
  if (err.status === 401) for (const [k, v] of Object.entries(GIT_AUTH_HEADERS)) res.setHeader(k, v);
  res.status(err.status).type('text/plain').send(err.message);
}

/** The smart HTTP routes; mount before the web router. */
export function gitHttpRouter(): Router {
  const r = express.Router();
  // why: git clients cannot send a one-time code; with a second factor on, the password is refused (a token works).
  const auth = authenticate('refuse');
  r.get('/:owner/:repo/info/refs', auth, infoRefs);
  r.post('/:owner/:repo/git-upload-pack', auth, rpc('git-upload-pack'));
  r.post('/:owner/:repo/git-receive-pack', auth, rpc('git-receive-pack'));
  r.use(['/:owner/:repo/info/refs', '/:owner/:repo/git-upload-pack', '/:owner/:repo/git-receive-pack'], gitErrors);
  return r;
}
