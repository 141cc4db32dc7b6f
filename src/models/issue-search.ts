/**
 * Listing and searching issues: every filter of Gitea's issue lists as one SQL statement over the
 * issue table and its indexes, and the keyword index (`issue_fts`, `comment_fts`) kept in step by
 * the writers' transactions: FTS5 on SQLite, a tsvector with a GIN index on PostgreSQL.
 */
import { QueryTypes } from 'sequelize';
import { db, type DbContext } from '../db';
import { TableCache } from './table-cache';

const isSqlite = () => db().getDialect() === 'sqlite';

/** What an issue's keyword document carries besides its text on PostgreSQL (migration 20261126000200). */
export interface IndexedIssue { id: number; repoId: number; isPull: boolean; isClosed: boolean; createdUnix: number }

/** (Re)index an issue's title and body (`fresh`: it has no document yet). */
export async function indexIssueText(ctx: DbContext, issue: IndexedIssue, text: string, fresh = false): Promise<void> {
  if (!fresh) await unindexText(ctx, 'issue_fts', [issue.id]);
  const sql = isSqlite()
    ? 'INSERT INTO issue_fts (rowid, body) VALUES (:id, :text)'
    : `INSERT INTO issue_fts (id, repo_id, is_pull, is_closed, created_unix, doc)
       VALUES (:id, :repoId, :isPull, :isClosed, :createdUnix, to_tsvector('simple', :text))`;
  const { id, repoId, isPull, isClosed, createdUnix } = issue;
  await db().query(sql, { replacements: { id, repoId, isPull, isClosed, createdUnix, text }, transaction: ctx.tx });
}

/** (Re)index a comment's body (`fresh`: it has no document yet). */
export async function indexCommentText(ctx: DbContext, comment: { id: number; issueId: number }, text: string, fresh = false): Promise<void> {
  if (!fresh) await unindexText(ctx, 'comment_fts', [comment.id]);
  const sql = isSqlite()
    ? 'INSERT INTO comment_fts (rowid, body) VALUES (:id, :text)'
    : `INSERT INTO comment_fts (id, issue_id, repo_id, is_pull, is_closed, created_unix, doc)
       SELECT :id, id, repo_id, is_pull, is_closed, created_unix, to_tsvector('simple', :text) FROM issue WHERE id = :issueId`;
  await db().query(sql, { replacements: { id: comment.id, issueId: comment.issueId, text }, transaction: ctx.tx });
}

/** Keep the documents of an issue and its comments in step with its state (PostgreSQL; SQLite reads the state from the issue). */
export async function indexIssueState(ctx: DbContext, issue: { id: number; isClosed: boolean }): Promise<void> {
  if (isSqlite()) return;
  const replacements = { id: issue.id, isClosed: issue.isClosed };
  await db().query('UPDATE issue_fts SET is_closed = :isClosed WHERE id = :id', { replacements, transaction: ctx.tx });
  await db().query('UPDATE comment_fts SET is_closed = :isClosed WHERE issue_id = :id', { replacements, transaction: ctx.tx });
}

/** Drop documents from the keyword index. */
export async function unindexText(ctx: DbContext, table: 'issue_fts' | 'comment_fts', ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  await db().query(`DELETE FROM ${table} WHERE ${isSqlite() ? 'rowid' : 'id'} IN (:ids)`, { replacements: { ids }, transaction: ctx.tx });
}

/** The repositories whose issues, and whose pull requests, a search covers. */
export interface RepoScope { issues: number[]; pulls: number[] }

/**
 * `column` is one of `ids`, for many ids. why: written as constants, which both databases look up in
 * a hash or sorted table built once; a VALUES subquery of 1,000 rows took four times as long to
 * parse and plan, on either database.
 */
function oneOf(column: string, ids: number[]): string {
  const list = (ids.length ? ids : [0]).map((id) => String(Number(id))).join(',');
  return isSqlite() ? `${column} IN (${list})` : `${column} = ANY('{${list}}'::int[])`;
}

/** What an issue list may be filtered by (all given filters apply together). */
export interface IssueFilter {
  /** the repositories to list (ignored when `scope` is given) */
  repoIds: number[];
  /** the repositories whose issues, and whose pull requests, may be listed (a search across repositories) */
  scope?: RepoScope;
  /** only repositories of this owner */
  ownerId?: number;
  isClosed?: boolean;
  isPull?: boolean;
  /** the issue has every one of these labels */
  allLabelIds?: number[];
  /** the issue has at least one of these labels */
  anyLabelIds?: number[];
  milestoneIds?: number[];
  posterId?: number;
  assigneeId?: number;
  mentionedId?: number;
  /** pull requests someone else opened that wait for this user's review (or a team's it is in) */
  reviewRequestedId?: number;
  /** pull requests someone else opened that this user reviewed or commented on */
  reviewedId?: number;
  /** updated_unix window */
  since?: number;
  before?: number;
  /** keywords: every word must be in the title, the body or a comment (an integer also matches the number) */
  keyword?: string;
  /** pull requests into this base branch */
  baseBranch?: string;
}

/** Gitea's ReviewTypeRequest (a review row that asks for a review). */
const REVIEW_REQUEST = 4;
/** Gitea's comment types that count as taking part in a review: a comment, a line comment, a review. */
const REVIEWED_COMMENT_TYPES = [0, 21, 22];

/** Orders of an issue list, as Gitea names them; newest first by default. */
const SORTS: Record<string, string> = {
  newest: 'created_unix DESC, id DESC',
  oldest: 'created_unix ASC, id ASC',
  recentupdate: 'updated_unix DESC, created_unix DESC, id DESC',
  leastupdate: 'updated_unix ASC, created_unix ASC, id ASC',
  recentclose: 'closed_unix DESC, created_unix DESC, id DESC',
  leastclose: 'closed_unix ASC, created_unix ASC, id ASC',
  mostcomment: 'num_comments DESC, created_unix DESC, id DESC',
  leastcomment: 'num_comments ASC, created_unix DESC, id DESC',
  priority: 'priority DESC, created_unix DESC, id DESC',
  nearduedate: 'CASE WHEN deadline_unix = 0 THEN 1 ELSE 0 END, deadline_unix ASC, created_unix DESC, id DESC',
  farduedate: 'deadline_unix DESC, created_unix DESC, id DESC',
};

/** Is `sort` one of the orders an issue list knows? */
export function isIssueSort(sort: string): boolean {
  return Object.hasOwn(SORTS, sort);
}

/** The words of a keyword query, each as the index tokens it is made of. */
function keywordTokens(q: string): string[][] {
  return q.split(/\s+/).map((w) => w.match(/[\p{L}\p{N}]+/gu) ?? []).filter((t) => t.length > 0).slice(0, 16);
}

/** One word as an index query: its tokens in sequence, the last one a prefix. */
function matchExpr(tokens: string[]): string {
  const lower = tokens.map((t) => t.toLowerCase());
  return isSqlite() ? `"${lower.join(' ')}"*` : `${lower.join(' <-> ')}:*`;
}

/** The issue columns a PostgreSQL keyword document carries, as a search reads them. */
const CARRIED = ['id', 'repo_id', 'is_pull', 'is_closed', 'created_unix'];

/**
 * The issues matching a keyword query, as a subquery: issues with every word (a prefix) in the
 * title, the body or a comment, and for a number the issue of that number. On SQLite its one
 * column is `kw_id`. On PostgreSQL its columns are CARRIED, read from the documents and narrowed
 * there by `pre` (conditions on those columns only). why: the listing starts from the (few)
 * matches instead of testing every issue of the repositories against them.
 */
function keywordSet(q: string, params: Record<string, unknown>, repoCond: string, pre: string[]): string | null {
  const sqlite = isSqlite();
  const perWord = keywordTokens(q).map((tokens, i) => {
    const p = `kw${i}`;
    params[p] = matchExpr(tokens);
    if (sqlite) {
      const inIssue = `SELECT rowid AS kw_id FROM issue_fts WHERE issue_fts MATCH :${p}`;
      const inComment = `SELECT c.issue_id AS kw_id FROM comment_fts f JOIN comment c ON c.id = f.rowid WHERE comment_fts MATCH :${p}`;
      return `SELECT kw_id FROM (${inIssue} UNION ${inComment}) AS w${i}`;
    }
    const match = `to_tsquery('simple', :${p})`;
    // why: a comment's document carries its issue's columns too, so neither comment nor issue rows
    // are visited, nor the documents of the issues found by a comment (a probe each, half the time).
    const inIssue = `SELECT ${CARRIED.join(', ')} FROM issue_fts WHERE ${[`doc @@ ${match}`, ...pre].join(' AND ')}`;
    const inComment = `SELECT issue_id, ${CARRIED.slice(1).join(', ')} FROM comment_fts WHERE ${[`doc @@ ${match}`, ...pre].join(' AND ')}`;
    return `SELECT * FROM (${inIssue} UNION ${inComment}) AS w${i}`;
  });
  const sets = perWord.length ? [perWord.join(' INTERSECT ')] : [];
  const trimmed = q.trim();
  if (/^\d{1,15}$/.test(trimmed)) {
    params.kwIndex = Number(trimmed);
    sets.push(`SELECT ${sqlite ? 'id AS kw_id' : CARRIED.join(', ')} FROM issue WHERE ${repoCond} AND "index" = :kwIndex`);
  }
  return sets.length ? sets.map((x) => `SELECT * FROM (${x}) AS s`).join(' UNION ') : null;
}

/** The orders answered from the columns a PostgreSQL keyword document carries. */
const CARRIED_SORTS = new Set(['newest', 'oldest']);

/**
 * The FROM and WHERE of an issue list (for `sort`, when it orders). A keyword search on PostgreSQL
 * that filters and orders only by what the documents carry reads the documents alone.
 */
function whereOf(f: IssueFilter, sort = 'newest'): { from: string; sql: string; params: Record<string, unknown> } {
  const params: Record<string, unknown> = { repoIds: f.repoIds.length ? f.repoIds : [-1], yes: true, no: false };
  // why: `+repo_id` keeps SQLite from walking each repository's index for a search across many;
  // newest-first over the state index, keeping the caller's repositories, stops after one page.
  const pre = f.scope
    ? [`((is_pull = :no AND ${oneOf('+repo_id', f.scope.issues)}) OR (is_pull = :yes AND ${oneOf('+repo_id', f.scope.pulls)}))`]
    : [f.repoIds.length === 1 ? 'repo_id = :repoId' : 'repo_id IN (:repoIds)'];
  const repoCond = f.scope ? oneOf('repo_id', [...new Set([...f.scope.issues, ...f.scope.pulls])]) : pre[0];
  params.repoId = f.repoIds[0] ?? -1;
  if (f.ownerId !== undefined) { params.owner = f.ownerId; pre.push('repo_id IN (SELECT id FROM repository WHERE owner_id = :owner)'); }
  if (f.isClosed !== undefined) pre.push(`is_closed = ${f.isClosed ? ':yes' : ':no'}`);
  if (f.isPull !== undefined) pre.push(`is_pull = ${f.isPull ? ':yes' : ':no'}`);
  const and = [...pre];
  // why: a probe per issue as the listing walks its order, which stops after a page; `id IN (...)`
  // made SQLite collect every issue of the label first (10,000 of them for a label on 10%).
  (f.allLabelIds ?? []).forEach((id, i) => {
    params[`lab${i}`] = id;
    and.push(`EXISTS (SELECT 1 FROM issue_label l WHERE l.issue_id = issue.id AND l.label_id = :lab${i})`);
  });
  if (f.anyLabelIds?.length) {
    params.anyLabels = f.anyLabelIds;
    and.push('EXISTS (SELECT 1 FROM issue_label l WHERE l.issue_id = issue.id AND l.label_id IN (:anyLabels))');
  }
  if (f.milestoneIds?.length) {
    params.milestones = f.milestoneIds;
    and.push('milestone_id IN (:milestones)');
  }
  if (f.posterId !== undefined) { params.poster = f.posterId; and.push('poster_id = :poster'); }
  if (f.assigneeId !== undefined) { params.assignee = f.assigneeId; and.push('id IN (SELECT issue_id FROM issue_assignees WHERE assignee_id = :assignee)'); }
  if (f.mentionedId !== undefined) {
    params.mentioned = f.mentionedId;
    and.push('id IN (SELECT issue_id FROM issue_user WHERE uid = :mentioned AND is_mentioned = :yes)');
  }
  if (f.reviewRequestedId !== undefined) {
    params.requested = f.reviewRequestedId;
    // why: as Gitea's applyReviewRequestedCondition; a verdict deletes the reviewer's open request
    // (and its teams'), so an existing request row is one still waiting.
    and.push(`poster_id <> :requested AND id IN (SELECT issue_id FROM review WHERE type = ${REVIEW_REQUEST} AND (reviewer_id = :requested
      OR reviewer_team_id IN (SELECT team_id FROM team_user WHERE uid = :requested)))`);
  }
  if (f.reviewedId !== undefined) {
    params.reviewer = f.reviewedId;
    // why: as Gitea's applyReviewedCondition: a review of any kind but a request, or a comment, a line comment or a review comment.
    and.push(`poster_id <> :reviewer AND (id IN (SELECT issue_id FROM review WHERE type <> ${REVIEW_REQUEST} AND (reviewer_id = :reviewer
      OR reviewer_team_id IN (SELECT team_id FROM team_user WHERE uid = :reviewer)))
      OR id IN (SELECT issue_id FROM comment WHERE poster_id = :reviewer AND type IN (${REVIEWED_COMMENT_TYPES.join(', ')})))`);
  }
  if (f.baseBranch !== undefined) { params.baseBranch = f.baseBranch; and.push('id IN (SELECT issue_id FROM pull_request WHERE base_branch = :baseBranch)'); }
  if (f.since) { params.since = f.since; and.push('updated_unix >= :since'); }
  if (f.before) { params.before = f.before; and.push('updated_unix <= :before'); }
  const kw = f.keyword ? keywordSet(f.keyword, params, repoCond, isSqlite() ? [] : pre) : null;
  let from = 'issue';
  if (kw && isSqlite()) from = `issue JOIN (${kw}) AS kw ON kw.kw_id = issue.id`;
  else if (kw && (and.length > pre.length || !CARRIED_SORTS.has(sort))) from = `issue JOIN (SELECT id AS kw_id FROM (${kw}) AS k) AS kw ON kw.kw_id = issue.id`;
  else if (kw) from = `(${kw}) AS issue`;
  return { from, sql: and.join(' AND '), params };
}


/** Deep pages of the creation-time orders start from an anchor every this many rows. */
const ANCHOR_EVERY = 1500;
/** The position of a remembered row in the creation-time orders: its creation time and id. */
type Anchor = { c: number; id: number } | null;
// why: an OFFSET walks every row before the page, so page 1,000 costed thirty times page 1. The key
// of every 1,500th row of a listing is kept until the issue table is written, and a deep page
// walks at most 1,500 rows from the nearest one.
const anchors = new TableCache<Anchor>('issue-anchors', ['issue'], 60_000);

/** The row at position `offset` of a creation-time listing (the anchor of the pages after it). */
function anchorAt(ctx: DbContext, f: IssueFilter, sort: 'newest' | 'oldest', offset: number): Promise<Anchor> {
  const { from, sql, params } = whereOf(f, sort);
  const key = JSON.stringify([f, sort, offset]);
  return anchors.get(ctx, key, async () => {
    const rows = await db().query<{ created_unix: number | string; id: number }>(
      `SELECT created_unix, id FROM ${from} WHERE ${sql} ORDER BY ${SORTS[sort]} LIMIT 1 OFFSET :offset`,
      { replacements: { ...params, offset }, type: QueryTypes.SELECT, transaction: ctx.tx },
    );
    return rows.length ? { c: Number(rows[0].created_unix), id: Number(rows[0].id) } : null;
  });
}

/**
 * One page of issue ids matching `f` in the order `sort`, with the number of all matches when
 * `withTotal` (null when the page is past the end or starts from an anchor: count apart then).
 * why: only ids are read here, so the default listing is answered from its covering index; the
 * rows of the page are loaded by id afterwards. The total comes with the page (a window count),
 * so a filter such as a keyword is evaluated once, not once for the page and once to count.
 */
export async function searchIssueIds(
  ctx: DbContext, f: IssueFilter, sort: string, limit: number, offset: number, withTotal = false,
): Promise<{ ids: number[]; total: number | null }> {
  const { from, sql, params } = whereOf(f, sort);
  let where = sql;
  let skip = offset;
  const anchored = (sort === 'newest' || sort === 'oldest') && offset >= ANCHOR_EVERY;
  if (anchored) {
    const base = offset - (offset % ANCHOR_EVERY);
    const a = await anchorAt(ctx, f, sort as 'newest' | 'oldest', base);
    if (!a) return { ids: [], total: null };
    // why: a row-value comparison, which both databases answer as a range of the index.
    where = `${sql} AND (created_unix, id) ${sort === 'newest' ? '<=' : '>='} (:anchorC, :anchorId)`;
    Object.assign(params, { anchorC: a.c, anchorId: a.id });
    skip = offset - base;
  }
  const total = withTotal && !anchored ? ', COUNT(*) OVER () AS total' : '';
  const rows = await db().query<{ id: number; total?: number | string }>(
    `SELECT id${total} FROM ${from} WHERE ${where} ORDER BY ${SORTS[sort] ?? SORTS.newest} LIMIT :limit OFFSET :offset`,
    { replacements: { ...params, limit, offset: skip }, type: QueryTypes.SELECT, transaction: ctx.tx },
  );
  return { ids: rows.map((r) => Number(r.id)), total: total && rows.length ? Number(rows[0].total) : null };
}

/** The number of issues matching `f`. */
export async function countIssues(ctx: DbContext, f: IssueFilter): Promise<number> {
  const { from, sql, params } = whereOf(f);
  const rows = await db().query<{ n: number | string }>(`SELECT COUNT(*) AS n FROM ${from} WHERE ${sql}`, {
    replacements: params, type: QueryTypes.SELECT, transaction: ctx.tx,
  });
  return Number(rows[0]?.n ?? 0);
}

/** Drop the documents whose ids a subquery selects (a repository's issues or comments going away). */
export async function unindexSelected(ctx: DbContext, table: 'issue_fts' | 'comment_fts', idsSql: string, replacements: Record<string, unknown>): Promise<void> {
  await db().query(`DELETE FROM ${table} WHERE ${isSqlite() ? 'rowid' : 'id'} IN (${idsSql})`, { replacements, transaction: ctx.tx });
}

/** SQLite statements that refill the keyword index from the issues and comments it indexes (after a restore). */
export function fullTextRebuildSql(): string[] {
  return [
    "INSERT INTO issue_fts (rowid, body) SELECT id, name || char(10) || content FROM issue",
    "INSERT INTO comment_fts (rowid, body) SELECT id, content FROM comment WHERE type = 0 AND content <> ''",
  ];
}

/**
 * The number of issues a filter of repositories (by scope), state and kind matches, summed from
 * the repositories' counters. why: a search across many repositories counts without reading issues.
 */
export async function countFromCounters(ctx: DbContext, scope: RepoScope, isClosed?: boolean, isPull?: boolean): Promise<number> {
  const pick = (all: string, closed: string) => (isClosed === undefined ? all : isClosed ? closed : `${all} - ${closed}`);
  const parts: string[] = [];
  if (isPull !== true) parts.push(`SELECT COALESCE(SUM(${pick('num_issues', 'num_closed_issues')}), 0) AS n FROM repo_issue_counter WHERE ${oneOf('repo_id', scope.issues)}`);
  if (isPull !== false) parts.push(`SELECT COALESCE(SUM(${pick('num_pulls', 'num_closed_pulls')}), 0) AS n FROM repo_issue_counter WHERE ${oneOf('repo_id', scope.pulls)}`);
  const rows = await db().query<{ n: number | string }>(parts.join(' UNION ALL '), { type: QueryTypes.SELECT, transaction: ctx.tx, replacements: { yes: true, no: false } });
  return rows.reduce((sum, r) => sum + Number(r.n), 0);
}
