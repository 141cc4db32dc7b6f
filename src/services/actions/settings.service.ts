/**
 * Actions secrets and variables of a repository (its owners), an organization (its owners) or the
 * signed-in user, with Gitea's rules: names of letters, digits and `_` not starting with a digit
 * or `GITEA_`/`GITHUB_` (variables not with `CI` either), kept upper-cased, so unique without
 * regard to case; values up to 64 KiB (a secret's in bytes, a variable's in characters, its line
 * ends made `\n`); descriptions cut at 4,096 characters. Secret values are sealed with SECRET_KEY
 * and never shown. Deviation: renaming a variable onto a taken name is a 409 (Gitea answers 500).
 */
import { withTx, isUniqueViolation, type DbContext } from '../../db';
import { BadRequest, Conflict, Forbidden, NotFound, Validation } from '../../errors';
import { AccessMode } from '../../models/perm';
import type { UserModel } from '../../models/user.model';
import { insertSecret, updateSecret, SecretModel } from '../../models/secret.model';
import { insertVariable, updateVariable as updateVariableRow, ActionVariableModel } from '../../models/action-variable.model';
import { deleteScoped, findScoped, listScoped, rowsOfScopes, type ActionsScope } from '../../models/actions-scope';
import type { CreateOrUpdateSecretOption, CreateVariableOption, UpdateVariableOption } from '../../api/actions';
import type { Principal } from '../auth/principal';
import { open, seal } from '../auth/secret-box';
import { assertOrgOwner, resolveOrg } from '../org/guard';
import type { RepoContext } from '../repo/context';

// why: Gitea's (?i) matches with Unicode case folding (ſ, the Kelvin sign); `u` with `i` does too.
const NAME = /^[A-Z_][A-Z0-9_]*$/iu;
const RESERVED = /^GIT(EA|HUB)_/i;
const CI = /^CI/i;
const MAX_NAME = 255;
const MAX_DATA = 65536;
const MAX_DESCRIPTION = 4096;

/** A repository's secrets and variables, for its owners (Gitea's reqOwner: the owner, an owning team, site admins). */
export function repoActionsScope(rc: RepoContext): ActionsScope {
  if (rc.perm.mode < AccessMode.Owner) throw new Forbidden('user should be the owner of the repo');
  return { ownerId: 0, repoId: rc.repo.id };
}

/** An organization's secrets and variables, for its owners. */
export async function orgActionsScope(ctx: DbContext, p: Principal, name: string): Promise<ActionsScope> {
  const org = await resolveOrg(ctx, p, name);
  await assertOrgOwner(ctx, p, org);
  return { ownerId: org.id, repoId: 0 };
}

/** The signed-in user's secrets and variables. */
export function userActionsScope(doer: UserModel): ActionsScope {
  return { ownerId: doer.id, repoId: 0 };
}

/** The stored form of a valid name; 400 for an invalid one. */
function storedName(name: string, variable: boolean): string {
  if (name.length > MAX_NAME || !NAME.test(name) || RESERVED.test(name)) throw new BadRequest('invalid secret name');
  if (variable && CI.test(name)) throw new BadRequest('env name cannot be ci');
  return name.toUpperCase();
}

/** A required, non-empty text field of a body (422 as Gitea's binding says it). */
function required(value: unknown, field: string): string {
  if (typeof value !== 'string' || value === '') throw new Validation(`[${field}]: Required`);
  return value;
}

function description(d: unknown): string {
  if (d !== undefined && d !== null && typeof d !== 'string') throw new Validation('description must be a string');
  return [...(d ?? '')].slice(0, MAX_DESCRIPTION).join('');
}

/** A scope's secrets, one page (all of them without `page`). */
export function listSecrets(ctx: DbContext, s: ActionsScope, page?: { limit: number; offset: number }): Promise<{ rows: SecretModel[]; count: number }> {
  return listScoped(SecretModel, ctx, s, page);
}

/** The secrets (opened) and variables a task of `repo` gets: the instance's variables, then its owner's, then its own, the nearer winning. */
export async function taskSettings(ctx: DbContext, repo: { id: number; ownerId: number }, withSecrets: boolean): Promise<{ secrets: Record<string, string>; vars: Record<string, string> }> {
  const [instance, owner, own] = [{ ownerId: 0, repoId: 0 }, { ownerId: repo.ownerId, repoId: 0 }, { ownerId: 0, repoId: repo.id }];
  const rank = (r: { ownerId: number; repoId: number }) => (r.repoId ? 2 : r.ownerId ? 1 : 0);
  const nearestLast = <R extends { ownerId: number; repoId: number }>(rows: R[]) => [...rows].sort((a, b) => rank(a) - rank(b));
  const secrets: Record<string, string> = {};
  if (withSecrets) for (const s of nearestLast(await rowsOfScopes(SecretModel, ctx, [owner, own]))) secrets[s.name] = open(s.data);
  const vars: Record<string, string> = {};
  for (const v of nearestLast(await rowsOfScopes(ActionVariableModel, ctx, [instance, owner, own]))) vars[v.name] = v.data;
  return { secrets, vars };
}

/** Create or replace a secret; whether it was created. */
export async function putSecret(ctx: DbContext, s: ActionsScope, rawName: string, o: CreateOrUpdateSecretOption): Promise<boolean> {
  const data = required(o?.data, 'Data');
  const name = storedName(rawName, false);
  if (Buffer.byteLength(data) > MAX_DATA) throw new BadRequest('data too long');
  const row = { data: seal(data), description: description(o.description) };
  return withTx(ctx, async (tx) => {
    const existing = await findScoped(SecretModel, tx, s, name);
    if (existing) {
      await updateSecret(tx, existing.id, row);
      return false;
    }
    await insertSecret(tx, s, { name, ...row });
    return true;
  }).catch(async (err: unknown) => {
    // why: another request created it between the look and the insert; this one replaces it, as it would have a moment later.
    if (!isUniqueViolation(err)) throw err;
    const existing = await findScoped(SecretModel, ctx, s, name);
    if (!existing) throw err;
    await updateSecret(ctx, existing.id, row);
    return false;
  });
}

/** Delete a secret. */
export async function deleteSecret(ctx: DbContext, s: ActionsScope, rawName: string): Promise<void> {
  const name = storedName(rawName, false);
  if (!(await deleteScoped(SecretModel, ctx, s, name))) throw new NotFound(`secret was not found [name: ${name}]`);
}

/** A scope's variables, one page (all of them without `page`). */
export function listVariables(ctx: DbContext, s: ActionsScope, page?: { limit: number; offset: number }): Promise<{ rows: ActionVariableModel[]; count: number }> {
  return listScoped(ActionVariableModel, ctx, s, page);
}

/** A variable by name (any case). */
export async function getVariable(ctx: DbContext, s: ActionsScope, name: string): Promise<ActionVariableModel> {
  const v = await findScoped(ActionVariableModel, ctx, s, name.toUpperCase());
  if (!v) throw new NotFound('variable not found');
  return v;
}

/** A variable's value as stored: line ends made `\n`, at most MAX_DATA characters. */
function variableData(value: unknown): string {
  const data = required(value, 'Value').replace(/\r\n/g, '\n');
  if ([...data].length > MAX_DATA) throw new BadRequest('data too long');
  return data;
}

const taken = (name: string) => new Conflict(`variable name ${name} already exists`);

/** Create a variable (409 when the name is taken). */
export async function createVariable(ctx: DbContext, s: ActionsScope, rawName: string, o: CreateVariableOption): Promise<ActionVariableModel> {
  required(o?.value, 'Value');
  if (await findScoped(ActionVariableModel, ctx, s, rawName.toUpperCase())) throw taken(rawName);
  const name = storedName(rawName, true);
  const row = { name, data: variableData(o.value), description: description(o.description) };
  return insertVariable(ctx, s, row).catch((err: unknown) => {
    throw isUniqueViolation(err) ? taken(rawName) : err;
  });
}

/** Change a variable's value and description, and rename it when `name` is given. */
export async function updateVariable(ctx: DbContext, s: ActionsScope, rawName: string, o: UpdateVariableOption): Promise<void> {
  required(o?.value, 'Value');
  if (o.name !== undefined && o.name !== null && typeof o.name !== 'string') throw new Validation('name must be a string');
  const v = await getVariable(ctx, s, rawName);
  const newName = o.name || rawName;
  const name = storedName(newName, true);
  const row = { name, data: variableData(o.value), description: description(o.description) };
  await updateVariableRow(ctx, v.id, row).catch((err: unknown) => {
    throw isUniqueViolation(err) ? taken(newName) : err;
  });
}

/** Delete a variable. */
export async function deleteVariable(ctx: DbContext, s: ActionsScope, rawName: string): Promise<void> {
  const name = storedName(rawName, true);
  if (!(await deleteScoped(ActionVariableModel, ctx, s, name))) throw new NotFound('variable not found');
}
