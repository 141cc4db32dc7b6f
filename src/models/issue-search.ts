/**
 * Listing and searching issues: every filter of Gitea's issue lists as one SQL statement over the
 * issue table and its indexes, and the keyword index (`issue_fts`, `comment_fts`) kept in step by
 * the writers' transactions: FTS5 on SQLite, a tsvector with a GIN index on PostgreSQL.
 */
import { QueryTypes } from 'sequelize';
import { db, type DbContext } from '../db';

const isSqlite = () => db().getDialect() === 'sqlite';

/** (Re)index a document: an issue's title and body, or a comment's body. */
export async function indexText(ctx: DbContext, table: 'issue_fts' | 'comment_fts', id: number, body: string): Promise<void> {
  await unindexText(ctx, table, [id]);
  const sql = isSqlite()
    ? `INSERT INTO ${table} (rowid, body) VALUES (:id, :body)`
    : `INSERT INTO ${table} (id, doc) VALUES (:id, to_tsvector('simple', :body))`;
  await db().query(sql, { replacements: { id, body }, transaction: ctx.tx });
}

/** Drop documents from the keyword index. */
export async function unindexText(ctx: DbContext, table: 'issue_fts' | 'comment_fts', ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  await db().query(`DELETE FROM ${table} WHERE ${isSqlite() ? 'rowid' : 'id'} IN (:ids)`, { replacements: { ids }, transaction: ctx.tx });
}

/** What an issue list may be filtered by (all given filters apply together). */
export interface IssueFilter {
  /** the repositories to list (ignored when `scope` is given) */
  repoIds: number[];
  /** SQL selecting the repository ids whose issues, and whose pull requests, may be listed (visibleRepoIdsSql) */
  scope?: { issues: string; pulls: string };
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
  /** updated_unix window */
  since?: number;
  before?: number;
  /** keywords: every word must be in the title, the body or a comment (an integer also matches the number) */
  keyword?: string;
}

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

function keywordClause(q: string, params: Record<string, unknown>): string | null {
  const words = keywordTokens(q);
  const parts: string[] = [];
  words.forEach((tokens, i) => {
    const p = `kw${i}`;
    params[p] = matchExpr(tokens);
    const inIssue = isSqlite()
      ? `SELECT rowid FROM issue_fts WHERE issue_fts MATCH :${p}`
      : `SELECT id FROM issue_fts WHERE doc @@ to_tsquery('simple', :${p})`;
    const inComment = isSqlite()
      ? `SELECT c.issue_id FROM comment_fts f JOIN comment c ON c.id = f.rowid WHERE comment_fts MATCH :${p}`
      : `SELECT c.issue_id FROM comment_fts f JOIN comment c ON c.id = f.id WHERE f.doc @@ to_tsquery('simple', :${p})`;
    parts.push(`(id IN (${inIssue}) OR id IN (${inComment}))`);
  });
  const trimmed = q.trim();
  if (/^\d{1,15}$/.test(trimmed)) {
    params.kwIndex = Number(trimmed);
    return parts.length ? `("index" = :kwIndex OR (${parts.join(' AND ')}))` : '"index" = :kwIndex';
  }
  return parts.length ? parts.join(' AND ') : null;
}

function whereOf(f: IssueFilter): { sql: string; params: Record<string, unknown> } {
  const params: Record<string, unknown> = { repoIds: f.repoIds.length ? f.repoIds : [-1], yes: true, no: false };
  const and = f.scope
    ? [`((is_pull = :no AND repo_id IN (${f.scope.issues})) OR (is_pull = :yes AND repo_id IN (${f.scope.pulls})))`]
    : [f.repoIds.length === 1 ? 'repo_id = :repoId' : 'repo_id IN (:repoIds)'];
  params.repoId = f.repoIds[0] ?? -1;
  if (f.ownerId !== undefined) { params.owner = f.ownerId; and.push('repo_id IN (SELECT id FROM repository WHERE owner_id = :owner)'); }
  if (f.isClosed !== undefined) and.push(`is_closed = ${f.isClosed ? ':yes' : ':no'}`);
  if (f.isPull !== undefined) and.push(`is_pull = ${f.isPull ? ':yes' : ':no'}`);
  (f.allLabelIds ?? []).forEach((id, i) => {
    params[`lab${i}`] = id;
    and.push(`id IN (SELECT issue_id FROM issue_label WHERE label_id = :lab${i})`);
  });
  if (f.anyLabelIds?.length) {
    params.anyLabels = f.anyLabelIds;
    and.push('id IN (SELECT issue_id FROM issue_label WHERE label_id IN (:anyLabels))');
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
  if (f.since) { params.since = f.since; and.push('updated_unix >= :since'); }
  if (f.before) { params.before = f.before; and.push('updated_unix <= :before'); }
  if (f.keyword) {
    const kw = keywordClause(f.keyword, params);
    if (kw) and.push(kw);
  }
  return { sql: and.join(' AND '), params };
}


/**
 * One page of issue ids matching `f` in the order `sort`.
 * why: only ids are read here, so the default listing is answered from its covering index; the
 * rows of the page are loaded by id afterwards.
 */
export async function searchIssueIds(ctx: DbContext, f: IssueFilter, sort: string, limit: number, offset: number): Promise<number[]> {
  const { sql, params } = whereOf(f);
  const rows = await db().query<{ id: number }>(
    `SELECT id FROM issue WHERE ${sql} ORDER BY ${SORTS[sort] ?? SORTS.newest} LIMIT :limit OFFSET :offset`,
    { replacements: { ...params, limit, offset }, type: QueryTypes.SELECT, transaction: ctx.tx },
  );
  return rows.map((r) => Number(r.id));
}

/** The number of issues matching `f`. */
export async function countIssues(ctx: DbContext, f: IssueFilter): Promise<number> {
  const { sql, params } = whereOf(f);
  const rows = await db().query<{ n: number | string }>(`SELECT COUNT(*) AS n FROM issue WHERE ${sql}`, {
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
