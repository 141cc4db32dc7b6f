/**
 * The runtime token of a task (`gitea_runtime_token` in its context; act_runner exports it as
 * ACTIONS_RUNTIME_TOKEN): an HS256 JWT, as Gitea makes it, whose `scp` claim
 * `Actions.Results:<run>:<job>` is where @actions/artifact reads the run and job it uploads for.
 * It is valid for an hour past ENDLESS_TASK_TIMEOUT; the artifact service also wants its task running.
 */
import crypto from 'node:crypto';
import { settings } from '../../config';

/** What a runtime token names. */
export interface RuntimeClaims { taskId: number; runId: number; jobId: number }

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
const HEADER = b64({ alg: 'HS256', typ: 'JWT' });
const mac = (data: string) => crypto.createHmac('sha256', `actions-runtime:${settings().security.secretKey}`).update(data).digest('base64url');

/** Sign a runtime token for a task. */
export function signRuntimeToken(c: RuntimeClaims, now = Date.now()): string {
  const iat = Math.floor(now / 1000);
  const body = b64({
    nbf: iat, exp: iat + 3600 + settings().actions.endlessTaskTimeout, scp: `Actions.Results:${c.runId}:${c.jobId}`,
    // why: Gitea's cache scope claim, kept so tools that read it find the same shape.
    ac: JSON.stringify([{ Scope: '', Permission: 2 }]), TaskID: c.taskId, RunID: c.runId, JobID: c.jobId,
  });
  return `${HEADER}.${body}.${mac(`${HEADER}.${body}`)}`;
}

/** The claims of a well-formed, untampered, current runtime token, else null. */
export function verifyRuntimeToken(token: string, now = Date.now()): RuntimeClaims | null {
  const [header, body, sig, extra] = token.split('.');
  if (header !== HEADER || !body || !sig || extra !== undefined) return null;
  const want = Buffer.from(mac(`${header}.${body}`));
  const got = Buffer.from(sig);
  if (want.length !== got.length || !crypto.timingSafeEqual(want, got)) return null;
  try {
    const c = JSON.parse(Buffer.from(body, 'base64url').toString()) as { nbf?: number; exp?: number; TaskID?: number; RunID?: number; JobID?: number };
    const t = now / 1000;
    if (typeof c.exp !== 'number' || c.exp <= t || (typeof c.nbf === 'number' && c.nbf > t + 60)) return null;
    if (![c.TaskID, c.RunID, c.JobID].every((v) => Number.isInteger(v) && v! > 0)) return null;
    return { taskId: c.TaskID!, runId: c.RunID!, jobId: c.JobID! };
  } catch {
    return null;
  }
}
