/**
 * Issues of a repository (`/repos/{owner}/{repo}/issues`): create, get, list with Gitea's filters,
 * delete. The number is allocated in the creating transaction (repo_issue_counter), so concurrent
 * creators on any node get 1, 2, 3... without gaps; the repository's counts move with it.
 */
import { withTx, type DbContext } from '../../db';
import { settings } from '../../config';
import { Forbidden, NotFound, Validation } from '../../errors';
import type { CreateIssueOption } from '../../api/issue';
import { deleteIssueRow, insertNextIssue, lockIssue, type IssueModel, type NewIssue } from '../../models/issue.model';
import { adjustIssueCounts, issueCountsOf } from '../../models/repo-issue-counter.model';
import { findLabelsByIds, adjustLabelCounts, labelIdsOfIssues, labelsByIds, linkLabels, type LabelModel } from '../../models/label.model';
import { adjustMilestoneCounts, findMilestone, type MilestoneModel } from '../../models/milestone.model';
import { addAssignees, deleteIssueLinks } from '../../models/issue-links';
import { commentIdsOfIssues, deleteCommentRows } from '../../models/comment.model';
import { deleteIssueAttachments } from '../../models/attachment.model';
import { deleteIssueActions } from '../../models/action.model';
import { countFromCounters, countIssues, searchIssueIds, unindexText, type IssueFilter } from '../../models/issue-search';
import type { UserModel } from '../../models/user.model';
import type { RepoContext } from '../repo/context';
import { assertNotArchived, isRepoAdmin } from '../repo/access';
import { removeAttachmentFiles } from '../storage/attachment-store';
import { assertNotBlocked, assertTrackerReadable, canReadIssues, canWriteIssues, readableIssue } from './access';
import { resolveAssignees } from './assignee';
import { parseApiTime } from './history';
import { mentionedNames, recordMentions } from './mention';
import { changeState } from './state';
import { referencesIn, resolveCrossRefs, writeCrossRefs } from './xref';
import { issueViews, issueViewsByIds, namesOf, type IssueView } from './view';
import { notify } from '../notify/notifier';

/** Gitea's title rule on create: trimmed, at most 255 characters (longer ones end in an ellipsis). */
export function issueTitle(title: string | undefined, trim = true): string {
  const t = trim ? (title ?? '').trim() : (title ?? '');
  const chars = [...t];
  return chars.length > 255 ? `${chars.slice(0, 254).join('')}…` : t;
}

/** The full text an issue is found by. */
export const issueText = (i: { name: string; content: string }) => `${i.name}\n${i.content}`;

/** What a writer may give a new issue or pull request besides its text. */
export interface NewIssueLinks { milestone: MilestoneModel | null; labels: LabelModel[]; assignees: UserModel[] }

/**
 * The milestone, labels and assignees of a new issue or pull request as given by a writer; a
 * milestone or labels that are not the repository's (or its organization's) are dropped, as Gitea.
 */
export async function newIssueLinks(ctx: DbContext, rc: RepoContext, o: { milestone?: number; labels?: number[]; assignee?: string; assignees?: string[] }): Promise<NewIssueLinks> {
  const milestone = o.milestone ? await findMilestone(ctx, rc.repo.id, o.milestone) : null;
  const labels = o.labels?.length ? (await findLabelsByIds(ctx, o.labels)).filter((l) => l.repoId === rc.repo.id || (l.orgId > 0 && l.orgId === rc.repo.ownerId)) : [];
  const assignees = await resolveAssignees(ctx, rc, [...(o.assignees ?? []), ...(o.assignee ? [o.assignee] : [])]);
  return { milestone, labels, assignees };
}

/** A new issue with whom its creation concerns: the users it mentions and those assigned to it (but its creator). */
export interface InsertedIssue { issue: IssueModel; mentioned: number[]; assigned: number[] }

/**
 * Insert a numbered issue or pull request with its labels, milestone, assignees and mentions, in
 * the caller's transaction, which states its creation (an issue's or a pull request's event).
 */
export async function insertIssueWithLinks(tx: DbContext, rc: RepoContext, doer: UserModel, fields: Omit<NewIssue, 'index'>, links: NewIssueLinks): Promise<InsertedIssue> {
  const created = await insertNextIssue(tx, fields, fields.isPull ? { numPulls: 1 } : { numIssues: 1 }, issueText(fields), { actUserId: doer.id, isPrivate: rc.repo.isPrivate });
  const labelIds = links.labels.map((l) => l.id);
  if (labelIds.length) {
    await linkLabels(tx, created.id, labelIds);
    await adjustLabelCounts(tx, [...labelIds].sort((a, b) => a - b), 1, 0);
  }
  await adjustMilestoneCounts(tx, links.milestone?.id ?? 0, 1, 0);
  await addAssignees(tx, created.id, links.assignees.map((u) => u.id));
  const mentioned = await recordMentions(tx, rc, created, doer, created.content);
  const assigned = links.assignees.map((u) => u.id).filter((id) => id !== doer.id);
  return { issue: created, mentioned, assigned };
}

/** The repository of an issue's JSON. */
function repoRefOf(rc: RepoContext): IssueView['repo'] {
  return { rootUrl: settings().server.rootUrl, repoId: rc.repo.id, owner: rc.owner.name, repo: rc.repo.name };
}

/** The parts of a new issue's JSON that its creator already knows. */
export function newIssueParts(rc: RepoContext, doer: UserModel, links: NewIssueLinks): IssueView['parts'] {
  return {
    poster: doer, milestone: links.milestone, assignees: links.assignees, assets: [], pinOrder: 0,
    labels: [...links.labels].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id - b.id))
      .map((label) => ({ label, owner: rc.owner.name, repo: label.orgId ? undefined : rc.repo.name })),
  };
}

/** Create an issue; milestone, labels, assignees and due date are kept only for writers (as Gitea). */
export async function createIssue(ctx: DbContext, doer: UserModel, rc: RepoContext, o: CreateIssueOption): Promise<IssueView> {
  assertTrackerReadable(rc);
  if (!canReadIssues(rc, false)) throw new Forbidden('user should have specific read permission or be a repo admin or a site admin');
  assertNotArchived(rc);
  const title = issueTitle(o.title);
  if (!title) throw new Validation('[Title]: Required');
  await assertNotBlocked(ctx, rc, doer);
  const writer = canWriteIssues(rc, false);
  const links: NewIssueLinks = writer ? await newIssueLinks(ctx, rc, o) : { milestone: null, labels: [], assignees: [] };
  const deadline = writer && o.due_date ? parseApiTime(o.due_date, 'DueDate') : 0;
  const fields = { repoId: rc.repo.id, posterId: doer.id, name: title, content: o.body ?? '', milestoneId: links.milestone?.id ?? 0, isPull: false, ref: o.ref ?? '', deadlineUnix: deadline };
  // why: a new issue with nothing else to record needs no transaction around it, since insertNextIssue
  // is atomic alone; BEGIN and COMMIT were round trips that held a connection (PostgreSQL) or the
  // single writer (SQLite) between them.
  const prepared = await notify.prepare(ctx, 'issueCreated', { repo: rc.repo, owner: rc.owner, doer });
  const parsed = referencesIn(title, fields.content);
  // why: a reference to a number of this repository needs no permission check and carries no action (only
  // pull requests close), so the creating statement finds those issues itself; others are resolved first.
  const local = parsed.every((r) => !r.owner || (r.owner === rc.owner.lowerName && r.name === rc.repo.lowerName));
  const plain = !links.labels.length && !links.milestone && !links.assignees.length && !o.closed && mentionedNames(fields.content).length === 0 && prepared.quiet;
  const refs = plain && local ? [] : await resolveCrossRefs(ctx, doer, { repoId: rc.repo.id, isPull: false, comment: false }, title, fields.content, parsed);
  const targets = local ? { ids: [], indexes: parsed.map((r) => r.index) } : { ids: refs.map((r) => r.issue.id), indexes: [] };
  const row = plain
    ? await insertNextIssue(ctx, fields, { numIssues: 1 }, issueText(fields), { actUserId: doer.id, isPrivate: rc.repo.isPrivate }, targets)
    : await withTx(ctx, async (tx) => {
      const { issue: created, mentioned, assigned } = await insertIssueWithLinks(tx, rc, doer, fields, links);
      const view = { row: created, repo: repoRefOf(rc), parts: newIssueParts(rc, doer, links) };
      await notify.issueCreated(tx, { doer, issue: created, mentioned, assigned, view, prepared });
      await writeCrossRefs(tx, doer, { issueId: created.id, repoId: rc.repo.id, isPull: false, commentId: 0 }, refs, false);
      if (!o.closed) return created;
      const locked = (await lockIssue(tx, created.id))!;
      await changeState(tx, locked, doer, true);
      return locked;
    });
  const milestone = links.milestone && (await findMilestone(ctx, rc.repo.id, links.milestone.id));
  // why: everything the answer shows is known here; reading the new issue back cost a third of a creation.
  return { row, repo: repoRefOf(rc), parts: newIssueParts(rc, doer, { ...links, milestone }) };
}

/** One issue (or pull request) by number. */
export async function getIssue(ctx: DbContext, rc: RepoContext, index: number): Promise<IssueView> {
  const row = await readableIssue(ctx, rc, index);
  return (await issueViews(ctx, [row], namesOf(rc)))[0];
}

/** The filters of a repository's issue list, resolved to ids by the caller. */
export type RepoIssueQuery = Omit<IssueFilter, 'repoIds' | 'isPull'> & { type?: string };

/** The filters set besides repositories, state and kind. */
const narrowing = (f: IssueFilter) => Object.entries(f).filter(([k, v]) => v !== undefined && !['repoIds', 'scope', 'isClosed', 'isPull'].includes(k)).map(([k]) => k);

/**
 * Which counters the writers keep answer the total of a filtered list: the repositories' (only
 * state and kind filter) or one label's (over both kinds); null when none does.
 */
function countedBy(f: IssueFilter): 'repos' | 'label' | null {
  const extra = narrowing(f);
  if (extra.length === 0 && (f.scope || f.repoIds.length === 1)) return 'repos';
  if (extra.length === 1 && extra[0] === 'allLabelIds' && f.allLabelIds!.length === 1 && f.isPull === undefined && !f.scope && f.repoIds.length === 1) return 'label';
  return null;
}

/** The total of `f` from the counters `by` names (null for a label that is gone). */
async function countedTotal(ctx: DbContext, f: IssueFilter, by: 'repos' | 'label'): Promise<number | null> {
  const inState = (all: number, closed: number) => (f.isClosed === undefined ? all : f.isClosed ? closed : all - closed);
  if (by === 'label') {
    const [label] = await labelsByIds(ctx, f.allLabelIds!);
    return label ? inState(label.numIssues, label.numClosedIssues) : null;
  }
  if (f.scope) return countFromCounters(ctx, f.scope, f.isClosed, f.isPull);
  const c = (await issueCountsOf(ctx, f.repoIds)).get(f.repoIds[0])!;
  const issues = inState(c.numIssues, c.numClosedIssues);
  const pulls = inState(c.numPulls, c.numClosedPulls);
  return f.isPull === undefined ? issues + pulls : f.isPull ? pulls : issues;
}

/**
 * One page of a filtered issue list and the filtered total. why: counting rows costs as much as
 * reading them; the counters answer when they can (read at the same time as the page), else the
 * page query counts as it reads.
 */
export async function pageOfIssues(
  ctx: DbContext, f: IssueFilter, sort: string, opts: { limit: number; offset: number }, rc?: RepoContext,
): Promise<{ items: IssueView[]; total: number }> {
  const by = countedBy(f);
  const [counted, page] = await Promise.all([
    by ? countedTotal(ctx, f, by) : null, searchIssueIds(ctx, f, sort, opts.limit, opts.offset, by === null),
  ]);
  const total = counted ?? page.total ?? (await countIssues(ctx, f));
  return { items: await issueViewsByIds(ctx, page.ids, rc ? namesOf(rc) : undefined), total };
}

/** The number of issues matching `f`, from the counters when they answer it. */
export async function totalOfIssues(ctx: DbContext, f: IssueFilter): Promise<number> {
  const by = countedBy(f);
  return (by ? await countedTotal(ctx, f, by) : null) ?? countIssues(ctx, f);
}

/**
 * A repository's issues and pull requests, newest first. `type` narrows to one kind; a caller who
 * reads only one of the units sees only it, and asking for the other kind is a 404 (as Gitea).
 */
export async function listIssues(ctx: DbContext, rc: RepoContext, q: RepoIssueQuery, opts: { limit: number; offset: number }): Promise<{ items: IssueView[]; total: number }> {
  assertTrackerReadable(rc);
  const issues = canReadIssues(rc, false);
  const pulls = canReadIssues(rc, true);
  let isPull: boolean | undefined = q.type === 'pulls' ? true : q.type === 'issues' ? false : undefined;
  if ((isPull === true && !pulls) || (isPull === false && !issues)) throw new NotFound();
  if (isPull === undefined && issues !== pulls) isPull = pulls;
  const { type: _type, ...filter } = q;
  return pageOfIssues(ctx, { ...filter, repoIds: [rc.repo.id], isPull }, 'newest', opts, rc);
}

/** Delete an issue and everything it owns (repository admins and site admins). */
export async function deleteIssue(ctx: DbContext, rc: RepoContext, index: number): Promise<void> {
  const issue = await readableIssue(ctx, rc, index);
  if (!isRepoAdmin(rc)) throw new Forbidden('user should be an owner or a collaborator with admin write of a repository');
  const uuids = await withTx(ctx, async (tx) => {
    const row = await lockIssue(tx, issue.id);
    if (!row) throw new NotFound();
    await removeIssueRows(tx, [row]);
    return deleteIssueAttachments(tx, [row.id]);
  });
  await removeAttachmentFiles(uuids);
}

/**
 * Remove issues with their comments, links and index documents, and take them out of every count
 * (inside the caller's transaction; attachment rows are the caller's).
 */
export async function removeIssueRows(tx: DbContext, rows: IssueModel[]): Promise<void> {
  const ids = rows.map((r) => r.id);
  const labels = await labelIdsOfIssues(tx, ids);
  for (const row of rows) {
    const closed = row.isClosed ? 1 : 0;
    await adjustIssueCounts(tx, row.repoId, row.isPull ? { numPulls: -1, numClosedPulls: -closed } : { numIssues: -1, numClosedIssues: -closed });
    await adjustLabelCounts(tx, [...(labels.get(row.id) ?? [])].sort((a, b) => a - b), -(1 - closed), -closed);
    await adjustMilestoneCounts(tx, row.milestoneId, -(1 - closed), -closed);
  }
  const commentIds = await commentIdsOfIssues(tx, ids);
  await unindexText(tx, 'comment_fts', commentIds);
  await deleteCommentRows(tx, commentIds);
  await deleteIssueActions(tx, rows.map((r) => ({ repoId: r.repoId, index: Number(r.index) })), commentIds);
  await deleteIssueLinks(tx, ids);
  await unindexText(tx, 'issue_fts', ids);
  for (const id of ids) await deleteIssueRow(tx, id);
}
