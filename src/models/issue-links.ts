/**
 * The rows that hang off an issue without a model of their own: assignees (`issue_assignees`) and
 * mentions (`issue_user`), and the clean-up of everything an issue owns when it goes.
 */
import { QueryTypes } from 'sequelize';
import { db, type DbContext } from '../db';
import { unindexSelected } from './issue-search';

type Q = <T extends object>(sql: string, replacements: Record<string, unknown>) => Promise<T[]>;
const select = (ctx: DbContext): Q => (sql, replacements) => db().query(sql, { replacements, type: QueryTypes.SELECT, transaction: ctx.tx });
const run = (ctx: DbContext, sql: string, replacements: Record<string, unknown>) => db().query(sql, { replacements, transaction: ctx.tx });

/** Assignee ids of each issue, in the order they were assigned. */
export async function assigneeIdsOfIssues(ctx: DbContext, issueIds: number[]): Promise<Map<number, number[]>> {
  const out = new Map<number, number[]>(issueIds.map((id) => [id, []]));
  if (issueIds.length === 0) return out;
  const rows = await select(ctx)<{ issue_id: number; assignee_id: number }>(
    'SELECT issue_id, assignee_id FROM issue_assignees WHERE issue_id IN (:ids) ORDER BY id', { ids: issueIds });
  for (const r of rows) out.get(Number(r.issue_id))?.push(Number(r.assignee_id));
  return out;
}

/** Assign users to an issue (existing assignments are left alone). */
export async function addAssignees(ctx: DbContext, issueId: number, userIds: number[]): Promise<void> {
  for (const uid of userIds) {
    await run(ctx, 'INSERT INTO issue_assignees (issue_id, assignee_id) VALUES (:issueId, :uid) ON CONFLICT DO NOTHING', { issueId, uid });
  }
}

/** Unassign users from an issue. */
export async function removeAssignees(ctx: DbContext, issueId: number, userIds: number[]): Promise<void> {
  if (userIds.length === 0) return;
  await run(ctx, 'DELETE FROM issue_assignees WHERE issue_id = :issueId AND assignee_id IN (:userIds)', { issueId, userIds });
}

/** Record that users were mentioned in an issue or one of its comments. */
export async function markMentioned(ctx: DbContext, issueId: number, userIds: number[]): Promise<void> {
  for (const uid of userIds) {
    const [, n] = await db().query('UPDATE issue_user SET is_mentioned = :yes WHERE issue_id = :issueId AND uid = :uid', {
      replacements: { issueId, uid, yes: true }, transaction: ctx.tx,
    }) as [unknown, unknown];
    if (affected(n) === 0) {
      await run(ctx, 'INSERT INTO issue_user (uid, issue_id, is_read, is_mentioned) VALUES (:uid, :issueId, :no, :yes) ON CONFLICT DO NOTHING', {
        issueId, uid, yes: true, no: false,
      });
    }
  }
}

/** Rows changed by an UPDATE, as the two dialects report it. */
function affected(meta: unknown): number {
  if (typeof meta === 'number') return meta;
  const m = meta as { rowCount?: number; changes?: number } | undefined;
  return m?.rowCount ?? m?.changes ?? 0;
}

/** Tables whose rows belong to one issue through `issue_id`. */
const OWNED_BY_ISSUE = ['issue_label', 'issue_assignees', 'issue_user', 'reaction', 'issue_watch', 'stopwatch', 'tracked_time', 'issue_pin', 'pull_request', 'review', 'notification', 'project_issue'];

/** Delete every link row of the given issues (labels, assignees, mentions, reactions, dependencies...). */
export async function deleteIssueLinks(ctx: DbContext, issueIds: number[]): Promise<void> {
  if (issueIds.length === 0) return;
  for (const t of OWNED_BY_ISSUE) await run(ctx, `DELETE FROM ${t} WHERE issue_id IN (:ids)`, { ids: issueIds });
  await run(ctx, 'DELETE FROM issue_dependency WHERE issue_id IN (:ids) OR dependency_id IN (:ids)', { ids: issueIds });
}

/** Delete a repository's whole tracker: issues, comments, links, labels, milestones, index documents, counters. */
export async function deleteTrackerOfRepo(ctx: DbContext, repoId: number): Promise<void> {
  const issues = 'SELECT id FROM issue WHERE repo_id = :repoId';
  const comments = `SELECT id FROM comment WHERE issue_id IN (${issues})`;
  await unindexSelected(ctx, 'comment_fts', comments, { repoId });
  await unindexSelected(ctx, 'issue_fts', issues, { repoId });
  await run(ctx, `DELETE FROM comment WHERE issue_id IN (${issues})`, { repoId });
  for (const t of OWNED_BY_ISSUE) await run(ctx, `DELETE FROM ${t} WHERE issue_id IN (${issues})`, { repoId });
  await run(ctx, `DELETE FROM issue_dependency WHERE issue_id IN (${issues}) OR dependency_id IN (${issues})`, { repoId });
  await run(ctx, 'DELETE FROM issue_label WHERE label_id IN (SELECT id FROM label WHERE repo_id = :repoId)', { repoId });
  for (const t of ['issue', 'label', 'milestone', 'repo_issue_counter']) await run(ctx, `DELETE FROM ${t} WHERE repo_id = :repoId`, { repoId });
}

/** What hangs off a page of issues: label ids, assignee ids (in assignment order), pin positions, issues with attachments. */
export interface IssueLinks {
  labelIds: Map<number, number[]>; assigneeIds: Map<number, number[]>; pinOrders: Map<number, number>; withAttachments: Set<number>;
}

/** The links of a page of issues, in one query. */
export async function issueLinksOf(ctx: DbContext, issueIds: number[]): Promise<IssueLinks> {
  const out: IssueLinks = { labelIds: new Map(), assigneeIds: new Map(), pinOrders: new Map(), withAttachments: new Set() };
  if (issueIds.length === 0) return out;
  const rows = await select(ctx)<{ k: number; i: number; v: number }>(
    `SELECT 1 AS k, issue_id AS i, label_id AS v, id AS o FROM issue_label WHERE issue_id IN (:ids)
     UNION ALL SELECT 2, issue_id, assignee_id, id FROM issue_assignees WHERE issue_id IN (:ids)
     UNION ALL SELECT 3, issue_id, pin_order, id FROM issue_pin WHERE issue_id IN (:ids)
     UNION ALL SELECT 4, issue_id, id, id FROM attachment WHERE issue_id IN (:ids) AND comment_id = 0
     ORDER BY 4`, { ids: issueIds });
  const push = (m: Map<number, number[]>, i: number, v: number) => m.set(i, [...(m.get(i) ?? []), v]);
  for (const r of rows) {
    const [k, i, v] = [Number(r.k), Number(r.i), Number(r.v)];
    if (k === 1) push(out.labelIds, i, v);
    else if (k === 2) push(out.assigneeIds, i, v);
    else if (k === 3) out.pinOrders.set(i, v);
    else out.withAttachments.add(i);
  }
  return out;
}
