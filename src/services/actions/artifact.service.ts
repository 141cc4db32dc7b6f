/**
 * Artifacts, v4 protocol (what `actions/upload-artifact@v4` and `download-artifact@v4` speak, via
 * @actions/artifact): a job calls the twirp service `github.actions.results.api.v1.ArtifactService`
 * with its runtime token, and moves the bytes through URLs the forge signs (an hour long) instead
 * of through the service. Also the REST side (list, get, delete, zip download through a signed
 * URL) and the cleanup that expires artifacts after their retention and removes old job logs.
 */
import crypto from 'node:crypto';
import type { Readable } from 'node:stream';
import { settings } from '../../config';
import { systemCtx, type DbContext } from '../../db';
import { BadRequest, NotFound, Unauthorized } from '../../errors';
import { UnitType } from '../../models/perm';
import { ActionStatus } from '../../models/action-run.model';
import { findJobById } from '../../models/action-run-job.model';
import { findTaskById, markLogExpired, tasksWithLogsStoppedBefore, type ActionTaskModel } from '../../models/action-task.model';
import {
  ArtifactStatus, artifactsToRemove, confirmArtifact, findArtifactById, findRunArtifact, listArtifacts, moveArtifact, upsertPendingArtifact,
  type ActionArtifactModel,
} from '../../models/action-artifact.model';
import { findRepoByOwnerAndName } from '../../models/repository.model';
import { findUserByName } from '../../models/user.model';
import { nowUnix } from '../../models/issue.model';
import { assertUnitReadable, assertUnitWriter } from '../repo/access';
import type { RepoContext } from '../repo/context';
import { repoUrls } from '../content/view';
import { verifyRuntimeToken } from './runtime-token';
import { taskOfToken } from './task.service';
import { removeLog } from '../storage/log-store';
import { appendChunk, assemble, openArtifactFile, removeArtifactFile, removeUploadParts, saveBlock, saveBlockList } from './artifact-store';

const SERVICE = 'twirp/github.actions.results.api.v1.ArtifactService';
const LINK_SECONDS = 3600;
const DAY = 86400;
const MAX_BLOCK_ID = 64;
const BATCH = 100;

/** The running task a call of the artifact service comes from, and its run and job. */
export interface ArtifactCaller { task: ActionTaskModel; runId: number; jobId: number }

/** A running task by id with its job's run; 401 when it is gone or done. */
async function runningTask(taskId: number): Promise<ArtifactCaller> {
  const task = await findTaskById(systemCtx, taskId);
  const job = task && task.status === ActionStatus.Running ? await findJobById(systemCtx, task.jobId) : null;
  if (!task || !job) throw new Unauthorized('the task of this token is not running');
  return { task, runId: job.runId, jobId: job.id };
}

/** The caller of a service call: `Authorization: Bearer` with a runtime token (or, as older runners send, the task's token). */
export async function artifactCaller(authorization: string | undefined): Promise<ArtifactCaller> {
  const bearer = /^Bearer (\S+)$/.exec(authorization ?? '')?.[1];
  if (!bearer) throw new Unauthorized('a Bearer runtime token is required');
  const claims = verifyRuntimeToken(bearer);
  const taskId = claims?.taskId ?? (await taskOfToken(bearer))?.id;
  if (!taskId) throw new Unauthorized('the runtime token is not valid');
  return runningTask(taskId);
}

/** A request body's field by its proto name, sent by protojson in that form or in lower camel case. */
function field(body: Record<string, unknown>, name: string): unknown {
  return body[name] ?? body[name.replace(/_(\w)/g, (_m, c: string) => c.toUpperCase())];
}

/** The text of a string field (or of a wrapper sent as its bare value). */
const text = (body: Record<string, unknown>, name: string): string => {
  const v = field(body, name);
  return typeof v === 'string' || typeof v === 'number' ? String(v) : '';
};

/** 400 unless the call names the caller's own run. */
function ownRun(c: ArtifactCaller, body: Record<string, unknown>): void {
  if (text(body, 'workflow_run_backend_id') !== String(c.runId)) throw new BadRequest('run-id does not match');
}

/** An artifact name the forge stores: 1 to 255 characters, none of them a path separator or a control character. */
function artifactName(body: Record<string, unknown>): string {
  const name = text(body, 'name');
  // eslint-disable-next-line no-control-regex
  if (!name || name.length > 255 || /[/\\\x00-\x1f\x7f]/.test(name) || name === '.' || name === '..') throw new BadRequest(`invalid artifact name: ${JSON.stringify(name)}`);
  return name;
}

const signKey = () => `artifact:${settings().security.secretKey}`;
const sign = (parts: (string | number)[]) => crypto.createHmac('sha256', signKey()).update(parts.join('\n')).digest('base64url');
const sameSig = (a: string, b: string) => a.length === b.length && crypto.timingSafeEqual(Buffer.from(a), Buffer.from(b));

/** A URL of the service's byte endpoints (UploadArtifact, DownloadArtifact) for one artifact of one task, signed for an hour. */
function serviceUrl(endpoint: string, name: string, taskId: number, artifactId: number): string {
  const expires = Math.floor(Date.now() / 1000) + LINK_SECONDS;
  const q = new URLSearchParams({ sig: sign([endpoint, expires, name, taskId, artifactId]), expires: String(expires), artifactName: name, taskID: String(taskId), artifactID: String(artifactId) });
  return `${settings().server.rootUrl}${SERVICE}/${endpoint}?${q}`;
}

/** The artifact a signed service URL names, for its task while that runs; 401 for a bad or stale link. */
async function signedArtifact(endpoint: string, q: Record<string, unknown>): Promise<{ caller: ArtifactCaller; artifact: ActionArtifactModel }> {
  const s = (k: string) => (typeof q[k] === 'string' ? (q[k] as string) : '');
  const [taskId, artifactId, expires] = [Number(s('taskID')), Number(s('artifactID')), Number(s('expires'))];
  if (!sameSig(s('sig'), sign([endpoint, s('expires'), s('artifactName'), s('taskID'), s('artifactID')]))) throw new Unauthorized('the link signature does not match');
  if (!(expires * 1000 > Date.now())) throw new Unauthorized('the link has expired');
  const caller = await runningTask(taskId);
  const artifact = await findArtifactById(systemCtx, artifactId);
  if (!artifact || artifact.runId !== caller.runId || artifact.artifactName !== s('artifactName')) throw new NotFound('artifact not found');
  return { caller, artifact };
}

/** CreateArtifact: start (or restart) the upload of an artifact of the caller's run; answers the signed upload URL. */
export async function createArtifact(c: ArtifactCaller, body: Record<string, unknown>) {
  ownRun(c, body);
  const name = artifactName(body);
  const now = nowUnix();
  const most = settings().actions.artifactRetentionDays;
  const asked = Date.parse(text(body, 'expires_at'));
  // why: as on GitHub, an upload may keep its artifact for less time than the instance's retention, never longer.
  const days = Number.isFinite(asked) ? Math.min(most, Math.max(1, Math.floor((asked / 1000 - now) / DAY))) : most;
  const t = c.task;
  const row = await upsertPendingArtifact(systemCtx, {
    runId: c.runId, runnerId: t.runnerId, repoId: t.repoId, ownerId: t.ownerId, commitSha: t.commitSha, artifactName: name, expired: now + days * DAY,
  }, now);
  await removeUploadParts(row.id);
  return { ok: true, signedUploadUrl: serviceUrl('UploadArtifact', name, t.id, row.id) };
}

/** The block ids of an Azure block list (`<Latest>`, `<Committed>` or `<Uncommitted>` entries, in order). */
function blockIds(xml: string): string[] {
  const ids = [...xml.matchAll(/<(Latest|Committed|Uncommitted)>([^<]*)<\/\1>/g)].map((m) => m[2].trim());
  if (ids.length === 0) throw new BadRequest('the block list names no blocks');
  return ids;
}

/** UploadArtifact (the signed URL): one block (`comp=block`, `blockid`), an appended chunk, or the block list. */
export async function uploadArtifactPart(q: Record<string, unknown>, body: Readable, readText: () => Promise<string>): Promise<void> {
  const { artifact } = await signedArtifact('UploadArtifact', q);
  if (artifact.status !== ArtifactStatus.UploadPending) throw new BadRequest('this artifact is not being uploaded');
  const comp = typeof q.comp === 'string' ? q.comp : '';
  const blockId = typeof q.blockid === 'string' ? q.blockid : '';
  if (comp === 'blocklist' || comp === 'blockList') {
    await saveBlockList(artifact.id, blockIds(await readText()));
  } else if ((comp === 'block' || comp === 'appendBlock') && blockId) {
    if (Buffer.byteLength(blockId) > MAX_BLOCK_ID) throw new BadRequest(`a block id is at most ${MAX_BLOCK_ID} bytes`);
    await saveBlock(artifact.id, blockId, body);
  } else if (comp === 'block' || comp === 'appendBlock') {
    await appendChunk(artifact.id, body);
  } else {
    throw new BadRequest(`unknown comp: ${JSON.stringify(comp)}`);
  }
}

/** FinalizeArtifact: join the uploaded parts, check the size and hash the client reports, and confirm the artifact. */
export async function finalizeArtifact(c: ArtifactCaller, body: Record<string, unknown>) {
  ownRun(c, body);
  const artifact = await findRunArtifact(systemCtx, c.runId, artifactName(body));
  if (!artifact) throw new NotFound('artifact not found');
  if (artifact.status === ArtifactStatus.UploadConfirmed) return { ok: true, artifactId: String(artifact.id) };
  if (artifact.status !== ArtifactStatus.UploadPending) throw new BadRequest('this artifact is not being uploaded');
  const joined = await assemble(c.runId, artifact.id);
  const size = Number(text(body, 'size') || 0);
  const hash = text(body, 'hash');
  const problem = size > 0 && size !== joined.size ? `the upload has ${joined.size} bytes, not ${size}`
    : hash.startsWith('sha256:') && hash.slice(7).toLowerCase() !== joined.sha256 ? `the upload's sha256 is ${joined.sha256}, not ${hash.slice(7)}` : '';
  if (problem || !(await confirmArtifact(systemCtx, artifact.id, joined.storagePath, joined.size, nowUnix()))) {
    await removeArtifactFile(joined.storagePath);
    throw new BadRequest(problem || 'this artifact is not being uploaded');
  }
  // why: an artifact uploaded again under the same name replaces the file of the earlier upload.
  if (artifact.storagePath && artifact.storagePath !== joined.storagePath) await removeArtifactFile(artifact.storagePath);
  return { ok: true, artifactId: String(artifact.id) };
}

/** ListArtifacts: the caller's run's finished artifacts, by name or id when asked. */
export async function listRunArtifacts(c: ArtifactCaller, body: Record<string, unknown>) {
  ownRun(c, body);
  const name = text(body, 'name_filter');
  const id = Number(text(body, 'id_filter') || 0);
  const { rows } = await listArtifacts(systemCtx, { runId: c.runId, confirmedOnly: true, ...(name ? { name } : {}), ...(id ? { id } : {}) });
  return {
    artifacts: rows.map((a) => ({
      workflowRunBackendId: String(a.runId), workflowJobRunBackendId: text(body, 'workflow_job_run_backend_id'), databaseId: String(a.id),
      name: a.artifactName, size: String(a.fileSize), createdAt: new Date(a.created * 1000).toISOString(),
    })),
  };
}

/** GetSignedArtifactURL: a download URL of a finished artifact of the caller's run. */
export async function signedArtifactUrl(c: ArtifactCaller, body: Record<string, unknown>) {
  ownRun(c, body);
  const artifact = await findRunArtifact(systemCtx, c.runId, artifactName(body));
  if (!artifact || artifact.status !== ArtifactStatus.UploadConfirmed) throw new NotFound('artifact not found');
  return { signedUrl: serviceUrl('DownloadArtifact', artifact.artifactName, c.task.id, artifact.id) };
}

/** DownloadArtifact (the signed URL): the artifact's zip. */
export async function downloadByServiceUrl(q: Record<string, unknown>): Promise<{ stream: Readable; size: number }> {
  const { artifact } = await signedArtifact('DownloadArtifact', q);
  const file = artifact.status === ArtifactStatus.UploadConfirmed ? await openArtifactFile(artifact.storagePath) : null;
  if (!file) throw new NotFound('artifact not found');
  return file;
}

/** Remove an artifact now: its row becomes deleted (once, across nodes) and its file goes. */
async function removeArtifact(a: ActionArtifactModel, from: ArtifactStatus): Promise<void> {
  if (!(await moveArtifact(systemCtx, a.id, from, ArtifactStatus.Deleted, nowUnix()))) return;
  await removeArtifactFile(a.storagePath);
  await removeUploadParts(a.id);
}

/** DeleteArtifact: delete a finished artifact of the caller's run. */
export async function deleteRunArtifact(c: ArtifactCaller, body: Record<string, unknown>) {
  ownRun(c, body);
  const artifact = await findRunArtifact(systemCtx, c.runId, artifactName(body));
  if (!artifact || artifact.status !== ArtifactStatus.UploadConfirmed) throw new NotFound('artifact not found');
  await removeArtifact(artifact, ArtifactStatus.UploadConfirmed);
  return { ok: true, artifactId: String(artifact.id) };
}

// ---- REST ----

/** A repository's finished artifacts (of one run when `runId`), by name when asked, oldest first. */
export function listRepoArtifacts(ctx: DbContext, rc: RepoContext, f: { runId?: number; name?: string }, page: { limit: number; offset: number }) {
  assertUnitReadable(rc, UnitType.Actions);
  return listArtifacts(ctx, { repoId: rc.repo.id, ...(f.runId ? { runId: f.runId } : {}), ...(f.name ? { name: f.name } : {}) }, page);
}

/** A repository's finished (or expired) artifact by id; 404 otherwise. */
export async function repoArtifact(ctx: DbContext, rc: RepoContext, id: number, write = false): Promise<ActionArtifactModel> {
  (write ? assertUnitWriter : assertUnitReadable)(rc, UnitType.Actions);
  const a = await findArtifactById(ctx, id);
  if (!a || a.repoId !== rc.repo.id || (a.status !== ArtifactStatus.UploadConfirmed && a.status !== ArtifactStatus.Expired)) throw new NotFound('artifact not found');
  return a;
}

/** Delete an artifact of a repository (writers of its Actions unit). */
export async function deleteRepoArtifact(ctx: DbContext, rc: RepoContext, id: number): Promise<void> {
  const a = await repoArtifact(ctx, rc, id, true);
  await removeArtifact(a, a.status);
}

const rawPath = (owner: string, repo: string, id: number) => `${repoUrls('', owner, repo).api}/actions/artifacts/${id}/zip/raw`;

/** Where `GET .../artifacts/{id}/zip` redirects: the raw download, signed for an hour; 404 for an expired artifact. */
export async function artifactZipUrl(ctx: DbContext, rc: RepoContext, id: number): Promise<string> {
  const a = await repoArtifact(ctx, rc, id);
  if (a.status === ArtifactStatus.Expired) throw new NotFound('Artifact has expired');
  const path = rawPath(rc.owner.name, rc.repo.name, a.id);
  const expires = Math.floor(Date.now() / 1000) + LINK_SECONDS;
  return `${settings().server.rootUrl}${path}?sig=${sign([path, expires, a.id])}&expires=${expires}`;
}

/** The raw download a signed URL names: the artifact's zip and its name. 401 for a bad or stale link, 404 for a missing or expired artifact. */
export async function rawArtifactDownload(ctx: DbContext, owner: string, repo: string, id: number, sig: string, expires: string) {
  const user = await findUserByName(ctx, owner);
  const r = user && (await findRepoByOwnerAndName(ctx, user.id, repo));
  const a = r && Number.isInteger(id) && id > 0 ? await findArtifactById(ctx, id) : null;
  if (!a || a.repoId !== r!.id || (a.status !== ArtifactStatus.UploadConfirmed && a.status !== ArtifactStatus.Expired)) throw new NotFound('artifact not found');
  if (!sameSig(sig, sign([rawPath(user!.name, r!.name, a.id), expires, a.id]))) throw new Unauthorized('Error unauthorized');
  if (!(Number(expires) * 1000 > Date.now())) throw new Unauthorized('Error link expired');
  const file = a.status === ArtifactStatus.UploadConfirmed ? await openArtifactFile(a.storagePath) : null;
  if (!file) throw new NotFound('Artifact has expired');
  return { ...file, name: a.artifactName };
}

// ---- cleanup ----

/**
 * Gitea's `cleanup_actions`: artifacts past their retention become expired and artifacts marked
 * for deletion (with their repository or run) deleted, their files removed; logs of tasks that
 * stopped more than LOG_RETENTION_DAYS ago are removed. Guarded updates make it safe on every node.
 */
export async function cleanupActions(now = nowUnix()): Promise<{ artifacts: number; logs: number }> {
  let artifacts = 0;
  for (;;) {
    const batch = await artifactsToRemove(systemCtx, now, BATCH);
    for (const a of batch) {
      if (a.status === ArtifactStatus.PendingDeletion) await removeArtifact(a, a.status);
      else if (await moveArtifact(systemCtx, a.id, ArtifactStatus.UploadConfirmed, ArtifactStatus.Expired, now)) await removeArtifactFile(a.storagePath);
      artifacts++;
    }
    if (batch.length < BATCH) break;
  }
  let logs = 0;
  const cutoff = now - settings().actions.logRetentionDays * DAY;
  for (;;) {
    const batch = await tasksWithLogsStoppedBefore(systemCtx, cutoff, BATCH);
    for (const t of batch) {
      if (await markLogExpired(systemCtx, t.id)) {
        await removeLog(t.logFilename);
        logs++;
      }
    }
    if (batch.length < BATCH) break;
  }
  return { artifacts, logs };
}
