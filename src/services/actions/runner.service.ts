/**
 * Actions runners: registration tokens per scope (instance, user or organization, repository),
 * registering and declaring, authenticating each runner call, presence kept in memory and written
 * every two minutes per runner (one statement for all that are due), and the REST views of runners.
 */
import crypto from 'node:crypto';
import { systemCtx, withTx, type DbContext } from '../../db';
import { NotFound, Unauthorized, BadRequest } from '../../errors';
import type { ActionsScope } from '../../models/actions-scope';
import {
  declareRunner, deleteRunner, findRunnerById, findRunnerByUuid, insertRunner, listRunners, writeRunnerPresence, type ActionRunnerModel,
} from '../../models/action-runner.model';
import { findRunnerToken, insertRunnerToken, latestRunnerToken } from '../../models/action-runner-token.model';
import { findRepoById } from '../../models/repository.model';
import { findUserById } from '../../models/user.model';
import { nowUnix } from '../../models/issue.model';
import { publish, subscribe } from '../../queue/bus';

const RUNNER_DELETED = 'actions.runner-deleted';
// why: Gitea's presence rules: offline after a minute without a call, busy within 10 s of a task update.
const OFFLINE_AFTER = 60;
const ACTIVE_WITHIN = 10;
// why: the database learns of a runner's calls every two minutes (an idle runner then costs half a
// row a minute); this process answers from memory, others allow for the lag.
const PRESENCE_WRITE_EVERY = 120;

const sha256 = (s: string) => crypto.createHash('sha256').update(s).digest('hex');

/** A new registration token (40 letters and digits, as Gitea's). */
export function newRegistrationToken(): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  return Array.from(crypto.randomBytes(40), (b) => alphabet[b % alphabet.length]).join('');
}

/** The registration token of a scope: the newest one while it is active, else a new one. */
export async function registrationToken(ctx: DbContext, s: ActionsScope): Promise<string> {
  const latest = await latestRunnerToken(ctx, s);
  if (latest?.isActive) return latest.token;
  return (await withTx(ctx, (tx) => insertRunnerToken(tx, s, newRegistrationToken(), nowUnix()))).token;
}

/** What Register needs. */
export interface RegisterInput { token: string; name: string; version: string; labels: string[]; ephemeral: boolean }

/** Register a runner with a registration token; returns it with its plaintext token (the only time it is told). */
export async function registerRunner(ctx: DbContext, r: RegisterInput): Promise<{ runner: ActionRunnerModel; token: string }> {
  if (!r.token || !r.name) throw new BadRequest('missing runner token, name');
  const reg = await findRunnerToken(ctx, r.token);
  if (!reg) throw new Unauthorized('runner registration token not found');
  if (!reg.isActive) throw new Unauthorized('runner registration token has been invalidated, please use the latest one');
  if (reg.repoId && !(await findRepoById(ctx, reg.repoId))) throw new Unauthorized('the repository of this registration token no longer exists');
  if (reg.ownerId && !(await findUserById(ctx, reg.ownerId))) throw new Unauthorized('the owner of this registration token no longer exists');
  const token = crypto.randomBytes(20).toString('hex');
  const runner = await insertRunner(ctx, {
    ownerId: reg.ownerId, repoId: reg.repoId, uuid: crypto.randomUUID(), name: [...r.name].slice(0, 255).join(''), version: r.version.slice(0, 64),
    tokenHash: sha256(token), tokenLastEight: token.slice(-8), labels: r.labels, ephemeral: r.ephemeral, now: nowUnix(),
  });
  return { runner, token };
}

/** A runner as authenticated calls see it (cached by UUID; a deletion anywhere drops it). */
export interface RunnerIdentity { id: number; uuid: string; name: string; ownerId: number; repoId: number; labels: string[]; ephemeral: boolean; version: string }

const identities = new Map<string, { tokenHash: string; runner: RunnerIdentity }>();
subscribe(RUNNER_DELETED, (uuid) => identities.delete(String(uuid)));

function identityOf(r: ActionRunnerModel): RunnerIdentity {
  return { id: r.id, uuid: r.uuid, name: r.name, ownerId: r.ownerId, repoId: r.repoId, labels: r.labels(), ephemeral: r.ephemeral, version: r.version };
}

/** The runner of a call's `x-runner-uuid` and `x-runner-token`; 401 for an unknown runner or a wrong token. */
export async function authenticateRunner(uuid: string | undefined, token: string | undefined): Promise<RunnerIdentity> {
  if (!uuid || !token) throw new Unauthorized('unregistered runner');
  let known = identities.get(uuid);
  if (!known) {
    const row = /^[0-9a-f-]{36}$/i.test(uuid) ? await findRunnerByUuid(systemCtx, uuid) : null;
    if (!row) throw new Unauthorized('unregistered runner');
    known = { tokenHash: row.tokenHash, runner: identityOf(row) };
    identities.set(uuid, known);
  }
  const given = Buffer.from(sha256(token));
  if (!crypto.timingSafeEqual(given, Buffer.from(known.tokenHash))) throw new Unauthorized('runner token mismatch');
  notePresence(known.runner.id, false);
  return known.runner;
}

/** Replace a runner's version and labels (Declare). */
export async function declare(ctx: DbContext, r: RunnerIdentity, version: string, labels: string[]): Promise<RunnerIdentity> {
  await declareRunner(ctx, r.id, version.slice(0, 64), labels, nowUnix());
  const updated = { ...r, version: version.slice(0, 64), labels };
  const known = identities.get(r.uuid);
  if (known) known.runner = updated;
  return updated;
}

// Presence: the newest times this process saw, and what it last wrote.
const presence = new Map<number, { online: number; active: number; written: number }>();
let flusher: NodeJS.Timeout | null = null;

/** Note a call of a runner (`active`: it reported on a task). */
export function notePresence(runnerId: number, active: boolean): void {
  const now = nowUnix();
  const p = presence.get(runnerId) ?? { online: 0, active: 0, written: 0 };
  p.online = now;
  if (active) p.active = now;
  presence.set(runnerId, p);
  if (!flusher) {
    flusher = setInterval(() => { flushPresence().catch((err: unknown) => console.error('runner presence:', err)); }, 10_000);
    flusher.unref();
  }
}

/** Write the presence of runners whose stored time is two minutes old or more. */
export async function flushPresence(): Promise<void> {
  const due = [...presence.entries()].filter(([, p]) => p.online - p.written >= PRESENCE_WRITE_EVERY);
  if (due.length === 0) return;
  for (const [, p] of due) p.written = p.online;
  await writeRunnerPresence(systemCtx, due.map(([id, p]) => ({ id, lastOnline: p.online, lastActive: p.active })));
}

/** A runner's REST status: online or offline, and busy. */
export function runnerPresence(r: ActionRunnerModel): { online: boolean; busy: boolean } {
  const p = presence.get(r.id);
  const now = nowUnix();
  const online = Math.max(r.lastOnline, p?.online ?? 0);
  const active = Math.max(r.lastActive, p?.active ?? 0);
  const fresh = p && p.online >= r.lastOnline ? OFFLINE_AFTER : OFFLINE_AFTER + PRESENCE_WRITE_EVERY;
  return { online: now - online <= fresh, busy: now - active <= ACTIVE_WITHIN };
}

/** The runners of a scope (all runners for the instance scope), one page. */
export function listScopeRunners(ctx: DbContext, s: ActionsScope, page: { limit: number; offset: number }) {
  return listRunners(ctx, s.ownerId === 0 && s.repoId === 0 ? null : s, page);
}

/** A runner that a scope may see and change; 404 otherwise (Gitea's two messages). */
export async function scopeRunner(ctx: DbContext, s: ActionsScope, id: number): Promise<ActionRunnerModel> {
  const r = await findRunnerById(ctx, id);
  if (!r) throw new NotFound('Runner not found');
  const global = s.ownerId === 0 && s.repoId === 0;
  if (!global && (s.repoId ? r.repoId !== s.repoId : r.ownerId !== s.ownerId || r.repoId !== 0)) throw new NotFound('No permission to access this runner');
  return r;
}

/** Delete a runner of a scope; its calls are refused from then on, on every node. */
export async function deleteScopeRunner(ctx: DbContext, s: ActionsScope, id: number): Promise<void> {
  const r = await scopeRunner(ctx, s, id);
  await removeRunner(ctx, r.id, r.uuid);
}

/** Delete a runner by id (an ephemeral one after its task, or through the API). */
export async function removeRunner(ctx: DbContext, id: number, uuid: string): Promise<void> {
  if (!(await deleteRunner(ctx, id))) throw new NotFound('Runner not found');
  presence.delete(id);
  identities.delete(uuid);
  publish(RUNNER_DELETED, uuid);
}
