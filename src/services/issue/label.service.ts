/**
 * Labels of repositories and organizations, and the labels of an issue. Colours are stored as
 * `#rrggbb`. An exclusive label named `scope/name` replaces any other exclusive label of its scope
 * on an issue (the one last by name wins within one request), as Gitea does.
 */
import fs from 'node:fs';
import path from 'node:path';
import { withTx, type DbContext } from '../../db';
import { BadRequest, NotFound, Validation } from '../../errors';
import type { CreateLabelOption, EditLabelOption } from '../../api/issue';
import {
  deleteLabelRow, findLabel, findLabelByName, findLabelsByIds, findUsableLabelsByNames, insertLabel, labelIdsOfIssues,
  listLabels as listRows, openIssueCountsInRepo, saveLabel, unlinkAllLabels, type LabelModel, type LabelOwner,
} from '../../models/label.model';
import { deleteLabelComments } from '../../models/comment.model';
import { lockIssue, nowUnix, type IssueModel } from '../../models/issue.model';
import type { UserModel } from '../../models/user.model';
import type { RepoContext } from '../repo/context';
import { assertIssueWriter, assertTrackerWriter, readableIssue } from './access';
import { changeLabels } from './state';

/** Gitea's colour rule: `#rgb` or `#rrggbb` (the `#` optional, any case), stored as `#rrggbb`. */
export function normalizeColor(input: string): string {
  let c = input.trim().toLowerCase();
  if (c.length === 3 || c.length === 6) c = `#${c}`;
  if (!/^#([0-9a-f]{6}|[0-9a-f]{3})$/.test(c)) throw new Validation(`bad color code: ${c}`);
  return c.length === 4 ? `#${[...c.slice(1)].map((x) => x + x).join('')}` : c;
}

/** The scope of an exclusive label (`a/b/c` -> `a/b`), or '' when it has none. */
export function exclusiveScope(l: { name: string; exclusive: boolean }): string {
  if (!l.exclusive) return '';
  const at = l.name.lastIndexOf('/');
  return at <= 0 || at === l.name.length - 1 ? '' : l.name.slice(0, at);
}

/** Where the labels of a RepoContext live. */
export const repoOwner = (rc: RepoContext): LabelOwner => ({ repoId: rc.repo.id });


/** The labels of a repository or organization: all, or one page. */
export function listLabels(ctx: DbContext, owner: LabelOwner, sort: string | undefined, page?: { limit: number; offset: number }): Promise<{ rows: LabelModel[]; count: number }> {
  return listRows(ctx, owner, sort, page?.limit, page?.offset);
}

/** A label by id, or by exact name when `key` is not a number (Gitea's label lookup). */
export async function getLabel(ctx: DbContext, owner: LabelOwner, key: string): Promise<LabelModel> {
  const row = /^\d+$/.test(key) ? await findLabel(ctx, owner, Number(key)) : await findLabelByName(ctx, owner, key);
  if (!row) throw new NotFound(`label does not exist [label_id: ${/^\d+$/.test(key) ? key : 0}]`);
  return row;
}

/** Create a label. */
export async function createLabel(ctx: DbContext, owner: LabelOwner, o: CreateLabelOption): Promise<LabelModel> {
  if (!o.name) throw new Validation('[Name]: Required');
  if (!o.color) throw new Validation('[Color]: Required');
  const color = normalizeColor(o.color);
  // why: Gitea ignores is_archived when an organization's label is created.
  const archived = !owner.orgId && o.is_archived ? nowUnix() : 0;
  return withTx(ctx, (tx) => insertLabel(tx, owner, { name: o.name, color, description: o.description ?? '', exclusive: !!o.exclusive, archivedUnix: archived }));
}

/** Edit a label; absent fields stay, except that an absent `is_archived` unarchives (as Gitea). */
export async function editLabel(ctx: DbContext, owner: LabelOwner, id: number, o: EditLabelOption): Promise<LabelModel> {
  const color = o.color !== undefined && o.color !== null ? normalizeColor(o.color) : undefined;
  return withTx(ctx, async (tx) => {
    const row = await findLabel(tx, owner, id);
    if (!row) throw new NotFound(`label does not exist [label_id: ${id}]`);
    if (o.name !== undefined && o.name !== null) row.name = o.name;
    if (color) row.color = color;
    if (o.description !== undefined && o.description !== null) row.description = o.description;
    if (o.exclusive !== undefined && o.exclusive !== null) row.exclusive = o.exclusive;
    row.archivedUnix = o.is_archived ? (Number(row.archivedUnix) || nowUnix()) : 0;
    await saveLabel(tx, row);
    return row;
  });
}

/** Delete a label with its links and history entries; a label that is not there is no error (as Gitea). */
export async function deleteLabel(ctx: DbContext, owner: LabelOwner, id: number): Promise<void> {
  await withTx(ctx, async (tx) => {
    const row = await findLabel(tx, owner, id);
    if (!row) return;
    await unlinkAllLabels(tx, { labelId: row.id });
    await deleteLabelComments(tx, row.id);
    await deleteLabelRow(tx, row.id);
  });
}

/** Create the labels of a template (`Default`, `Advanced`) for a new repository; 422 for an unknown one. */
export async function applyLabelTemplate(ctx: DbContext, repoId: number, name: string): Promise<void> {
  const labels = labelTemplate(name);
  await withTx(ctx, async (tx) => {
    for (const l of labels) {
      await insertLabel(tx, { repoId }, { name: l.name, color: normalizeColor(l.color), description: l.description ?? '', exclusive: !!l.exclusive, archivedUnix: 0 });
    }
  });
}

/** Create a label set's labels in a repository (the labels page's "Use a label set"); writers of its tracker only, 422 for an unknown set. */
export async function initializeLabels(ctx: DbContext, rc: RepoContext, name: string): Promise<void> {
  assertTrackerWriter(rc);
  await applyLabelTemplate(ctx, rc.repo.id, name);
}

/**
 * The open issues and pull requests of the repository that carry each label: a label of the
 * repository from its own counters, one of its organization's by one count over the repository.
 */
export async function openIssueCounts(ctx: DbContext, rc: RepoContext, labels: LabelModel[]): Promise<Map<number, number>> {
  const out = new Map(labels.filter((l) => l.repoId === rc.repo.id).map((l) => [l.id, Number(l.numIssues) - Number(l.numClosedIssues)]));
  const org = await openIssueCountsInRepo(ctx, rc.repo.id, labels.filter((l) => !out.has(l.id)).map((l) => l.id));
  return new Map([...out, ...org]);
}

/** A label of a template file. */
export interface TemplateLabel { name: string; color: string; description?: string; exclusive?: boolean }

// why: compiled code runs from dist/src/services/issue; the templates stay at the project root.
const LABEL_DIR = [path.resolve(__dirname, '../../../templates/label'), path.resolve(__dirname, '../../../../templates/label')].find((d) => fs.existsSync(d)) ?? '';

/** The names of the label templates the instance ships. */
export function labelTemplateNames(): string[] {
  return LABEL_DIR ? fs.readdirSync(LABEL_DIR).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -5)).sort() : [];
}

/** The labels of a template, or null when there is no such template. */
export function labelTemplateOrNull(name: string): TemplateLabel[] | null {
  // why: the name is looked up among the files, never joined into a path as given.
  if (!labelTemplateNames().includes(name)) return null;
  return (JSON.parse(fs.readFileSync(path.join(LABEL_DIR, `${name}.json`), 'utf8')) as { labels: TemplateLabel[] }).labels;
}

/** The labels of a template; 422 when there is no such template. */
export function labelTemplate(name: string): TemplateLabel[] {
  const labels = labelTemplateOrNull(name);
  if (!labels) throw new Validation(`GetLabelTemplateFile[${name}]: label template does not exist`);
  return labels;
}

/** The labels on an issue, by name. */
/** The labels an issue of the repository may carry: its own, then its organization's. */
export async function usableLabels(ctx: DbContext, rc: RepoContext): Promise<LabelModel[]> {
  const own = (await listRows(ctx, repoOwner(rc), undefined)).rows;
  return rc.owner.type === 1 ? [...own, ...(await listRows(ctx, { orgId: rc.owner.id }, undefined)).rows] : own;
}

/** The labels on an issue. */
export async function issueLabels(ctx: DbContext, issue: IssueModel): Promise<LabelModel[]> {
  return findLabelsByIds(ctx, (await labelIdsOfIssues(ctx, [issue.id])).get(issue.id) ?? []);
}

/**
 * The labels a request names, all ids or all names (Gitea's IssueLabelsOption), that the
 * repository may use: its own and its organization's. Others are skipped, as Gitea skips them.
 */
async function requestedLabels(ctx: DbContext, rc: RepoContext, items: unknown[] | undefined): Promise<LabelModel[]> {
  const list = items ?? [];
  const numbers = list.filter((x) => typeof x === 'number');
  const strings = list.filter((x) => typeof x === 'string') as string[];
  if (numbers.length + strings.length !== list.length) throw new BadRequest('a label must be an integer or a string');
  if (numbers.length && strings.length) throw new BadRequest('labels should be an array of strings or integers');
  const orgId = rc.owner.type === 1 ? rc.owner.id : 0;
  const found = strings.length
    ? await findUsableLabelsByNames(ctx, rc.repo.id, orgId, strings)
    : await findLabelsByIds(ctx, numbers.map((n) => Math.trunc(n as number)));
  return found.filter((l) => l.repoId === rc.repo.id || (orgId > 0 && l.orgId === orgId && l.repoId === 0));
}

/** The label set after adding `adding` (by name order) to `current`, exclusive scopes resolved. */
function withAdded(current: LabelModel[], adding: LabelModel[]): LabelModel[] {
  const set = new Map(current.map((l) => [l.id, l]));
  for (const l of [...adding].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id - b.id))) {
    if (set.has(l.id)) continue;
    const scope = exclusiveScope(l);
    if (scope) for (const other of set.values()) if (exclusiveScope(other) === scope) set.delete(other.id);
    set.set(l.id, l);
  }
  return [...set.values()];
}

async function writeLabels(ctx: DbContext, doer: UserModel, rc: RepoContext, index: number, next: (current: LabelModel[]) => LabelModel[], cleared = false): Promise<LabelModel[]> {
  const issue = await readableIssue(ctx, rc, index);
  assertIssueWriter(rc, issue);
  await withTx(ctx, async (tx) => {
    const locked = await lockIssue(tx, issue.id);
    if (!locked) throw new NotFound();
    const current = await issueLabels(tx, locked);
    const wanted = new Set(next(current).map((l) => l.id));
    const had = new Set(current.map((l) => l.id));
    await changeLabels(tx, locked, doer, [...wanted].filter((id) => !had.has(id)), [...had].filter((id) => !wanted.has(id)), cleared);
  });
  return issueLabels(ctx, issue);
}

/** Add labels to an issue; returns all its labels. */
export async function addIssueLabels(ctx: DbContext, doer: UserModel, rc: RepoContext, index: number, items: unknown[] | undefined): Promise<LabelModel[]> {
  const adding = await requestedLabels(ctx, rc, items);
  return writeLabels(ctx, doer, rc, index, (current) => withAdded(current, adding));
}

/** Make an issue's labels exactly the requested ones (exclusive scopes resolved); returns them. */
export async function replaceIssueLabels(ctx: DbContext, doer: UserModel, rc: RepoContext, index: number, items: unknown[] | undefined): Promise<LabelModel[]> {
  const wanted = await requestedLabels(ctx, rc, items);
  return writeLabels(ctx, doer, rc, index, () => withAdded([], wanted));
}

/** Remove one label from an issue (nothing when it is not on it); 422 for an unknown label. */
export async function removeIssueLabel(ctx: DbContext, doer: UserModel, rc: RepoContext, index: number, labelId: number): Promise<void> {
  const issue = await readableIssue(ctx, rc, index);
  assertIssueWriter(rc, issue, '');
  const label = (await findLabelsByIds(ctx, [labelId]))[0];
  if (!label) throw new Validation(`label does not exist [label_id: ${labelId}]`);
  await writeLabels(ctx, doer, rc, index, (current) => current.filter((l) => l.id !== labelId));
}

/** Remove every label from an issue. */
export async function clearIssueLabels(ctx: DbContext, doer: UserModel, rc: RepoContext, index: number): Promise<void> {
  const issue = await readableIssue(ctx, rc, index);
  assertIssueWriter(rc, issue, '');
  await writeLabels(ctx, doer, rc, index, () => [], true);
}
