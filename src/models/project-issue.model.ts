/**
 * The cards of project boards (Gitea's `project_issue`): an issue or pull request on a project, in
 * one of its columns (`project_board_id`), at a place in that column (`sorting`, then id). As in
 * Gitea 1.24 an issue is on at most one project; the board reads all its cards, their issues and
 * their labels in one query each, however many there are.
 */
import { QueryTypes } from 'sequelize';
import { Table, Column, Model, DataType } from 'sequelize-typescript';
import { db, type DbContext } from '../db';

@Table({ tableName: 'project_issue', underscored: true, timestamps: false })
export class ProjectIssueModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare issueId: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare projectId: number;
  @Column({ type: DataType.INTEGER, allowNull: false, field: 'project_board_id' }) declare columnId: number;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare sorting: number;
}

type Q = <T extends object>(sql: string, replacements: Record<string, unknown>) => Promise<T[]>;
const select = (ctx: DbContext): Q => (sql, replacements) => db().query(sql, { replacements, type: QueryTypes.SELECT, transaction: ctx.tx });
const run = (ctx: DbContext, sql: string, replacements: Record<string, unknown>) => db().query(sql, { replacements, transaction: ctx.tx });

/** Where an issue sits: its project and column. */
export interface CardPlace { issueId: number; projectId: number; columnId: number; sorting: number }

/** The card of an issue (the project it is on), or null. */
export async function cardOfIssue(ctx: DbContext, issueId: number): Promise<CardPlace | null> {
  const rows = await select(ctx)<{ project_id: number; project_board_id: number; sorting: number | string }>(
    'SELECT project_id, project_board_id, sorting FROM project_issue WHERE issue_id = :issueId ORDER BY id LIMIT 1', { issueId },
  );
  return rows.length ? { issueId, projectId: Number(rows[0].project_id), columnId: Number(rows[0].project_board_id), sorting: Number(rows[0].sorting) } : null;
}

/** The cards of `issueIds` on project `projectId` (those not on it are missing). */
export async function cardsOnProject(ctx: DbContext, projectId: number, issueIds: number[]): Promise<CardPlace[]> {
  if (issueIds.length === 0) return [];
  const rows = await select(ctx)<{ issue_id: number; project_board_id: number; sorting: number | string }>(
    'SELECT issue_id, project_board_id, sorting FROM project_issue WHERE project_id = :projectId AND issue_id IN (:issueIds)', { projectId, issueIds },
  );
  return rows.map((r) => ({ issueId: Number(r.issue_id), projectId, columnId: Number(r.project_board_id), sorting: Number(r.sorting) }));
}

/** A card with what the permission check needs of its issue. */
export interface CardIssue { issueId: number; columnId: number; repoId: number; isPull: boolean }

/** The cards of `issueIds` on project `projectId` with their issues' repository and kind, in one query (those not on it are missing). */
export async function cardIssuesOnProject(ctx: DbContext, projectId: number, issueIds: number[]): Promise<CardIssue[]> {
  if (issueIds.length === 0) return [];
  const rows = await select(ctx)<{ issue_id: number; project_board_id: number; repo_id: number; is_pull: boolean | number }>(
    `SELECT pi.issue_id, pi.project_board_id, i.repo_id, i.is_pull FROM project_issue pi JOIN issue i ON i.id = pi.issue_id
      WHERE pi.project_id = :projectId AND pi.issue_id IN (:issueIds)`, { projectId, issueIds },
  );
  return rows.map((r) => ({ issueId: Number(r.issue_id), columnId: Number(r.project_board_id), repoId: Number(r.repo_id), isPull: Boolean(r.is_pull) }));
}

/**
 * Lock the issue rows of cards about to change column until the transaction ends, in id order (as
 * every change of an issue locks it first). why: PostgreSQL only; SQLite's one writer already holds
 * the whole database for the transaction, so a statement there would lock nothing.
 */
export async function lockCardIssues(ctx: DbContext, issueIds: number[]): Promise<void> {
  if (issueIds.length === 0 || !ctx.tx || db().getDialect() === 'sqlite') return;
  await select(ctx)('SELECT id FROM issue WHERE id IN (:issueIds) ORDER BY id FOR UPDATE', { issueIds });
}

/** Take an issue off every project. */
export async function removeCardsOfIssue(ctx: DbContext, issueId: number): Promise<void> {
  await run(ctx, 'DELETE FROM project_issue WHERE issue_id = :issueId', { issueId });
}

/** Put an issue on a project, last in `columnId`. */
export async function insertCard(ctx: DbContext, projectId: number, columnId: number, issueId: number): Promise<void> {
  await run(ctx, `INSERT INTO project_issue (issue_id, project_id, project_board_id, sorting)
    SELECT :issueId, :projectId, :columnId, COALESCE(MAX(sorting) + 1, 0) FROM project_issue WHERE project_board_id = :columnId`, { issueId, projectId, columnId });
}

/** Move an issue's card of `projectId` to the end of `columnId`. */
export async function appendCard(ctx: DbContext, projectId: number, columnId: number, issueId: number): Promise<void> {
  const [{ next }] = await select(ctx)<{ next: number | string }>('SELECT COALESCE(MAX(sorting) + 1, 0) AS next FROM project_issue WHERE project_board_id = :columnId', { columnId });
  await placeCards(ctx, projectId, columnId, [{ issueId, sorting: Number(next) }]);
}

/** Put cards of `projectId` into `columnId` at the given places, in one statement. */
export async function placeCards(ctx: DbContext, projectId: number, columnId: number, cards: { issueId: number; sorting: number }[]): Promise<void> {
  if (cards.length === 0) return;
  const cases = cards.map((c) => `WHEN ${Math.trunc(c.issueId)} THEN ${Math.trunc(c.sorting)}`).join(' ');
  await run(ctx, `UPDATE project_issue SET project_board_id = :columnId, sorting = CASE issue_id ${cases} END
    WHERE project_id = :projectId AND issue_id IN (:issueIds)`, { projectId, columnId, issueIds: cards.map((c) => c.issueId) });
}

/** Move every card of column `from` after the cards of column `to` (a column being deleted), keeping their order. */
export async function moveColumnCards(ctx: DbContext, from: number, to: number): Promise<void> {
  const [{ next }] = await select(ctx)<{ next: number | string }>('SELECT COALESCE(MAX(sorting) + 1, 0) AS next FROM project_issue WHERE project_board_id = :to', { to });
  const [{ low }] = await select(ctx)<{ low: number | string | null }>('SELECT MIN(sorting) AS low FROM project_issue WHERE project_board_id = :from', { from });
  if (low === null) return;
  await run(ctx, 'UPDATE project_issue SET project_board_id = :to, sorting = sorting - :low + :next WHERE project_board_id = :from', { from, to, low: Number(low), next: Number(next) });
}

/** The ids of the cards in one column, in their order. */
export async function columnCardIds(ctx: DbContext, columnId: number): Promise<number[]> {
  const rows = await select(ctx)<{ issue_id: number }>('SELECT issue_id FROM project_issue WHERE project_board_id = :columnId ORDER BY sorting, id', { columnId });
  return rows.map((r) => Number(r.issue_id));
}

/** A label as a card shows it. */
export interface CardLabel { id: number; name: string; color: string; exclusive: boolean; description: string }

/** A card as the board draws it: its place, what it shows of its issue, and its labels in name order. */
export interface CardRow {
  issueId: number; columnId: number; repoId: number; index: number; title: string; isClosed: boolean; isPull: boolean; merged: boolean; labels: CardLabel[];
}

const NO_LABELS: CardLabel[] = [];

/**
 * Every card of a project with its issue and labels, in board order (column, then place): one query
 * for the cards, each with its label ids, and one for the few labels they name, however many cards.
 * why: a label query per card row would have read one row per card and label (thousands) where the
 * labels themselves are a handful.
 */
export async function cardsOfProject(ctx: DbContext, projectId: number): Promise<CardRow[]> {
  const labelIds = db().getDialect() === 'sqlite'
    ? '(SELECT GROUP_CONCAT(il.label_id) FROM issue_label il WHERE il.issue_id = pi.issue_id)'
    : "(SELECT string_agg(il.label_id::text, ',') FROM issue_label il WHERE il.issue_id = pi.issue_id)";
  const rows = await select(ctx)<{
    issue_id: number; project_board_id: number; repo_id: number; index: number | string; name: string; is_closed: boolean | number; is_pull: boolean | number;
    merged: boolean | number | null; label_ids: string | null;
  }>(
    `SELECT pi.issue_id, pi.project_board_id, i.repo_id, i."index", i.name, i.is_closed, i.is_pull, pr.has_merged AS merged, ${labelIds} AS label_ids
       FROM project_issue pi
       JOIN issue i ON i.id = pi.issue_id
       LEFT JOIN pull_request pr ON pr.issue_id = pi.issue_id
      WHERE pi.project_id = :projectId
      ORDER BY pi.sorting, pi.id`, { projectId },
  );
  const named = await select(ctx)<{ id: number; name: string; color: string; exclusive: boolean | number; description: string }>(
    `SELECT l.id, l.name, l.color, l.exclusive, l.description FROM label l
      WHERE l.id IN (SELECT il.label_id FROM issue_label il JOIN project_issue pi ON pi.issue_id = il.issue_id WHERE pi.project_id = :projectId)`, { projectId },
  );
  const labels = new Map(named.map((l) => [Number(l.id), { id: Number(l.id), name: l.name, color: l.color, exclusive: Boolean(l.exclusive), description: l.description }]));
  const byName = (a: CardLabel, b: CardLabel) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id - b.id);
  return rows.map((r) => ({
    issueId: Number(r.issue_id), columnId: Number(r.project_board_id), repoId: Number(r.repo_id), index: Number(r.index), title: r.name,
    isClosed: Boolean(r.is_closed), isPull: Boolean(r.is_pull), merged: Boolean(r.merged),
    labels: r.label_ids ? r.label_ids.split(',').map((id) => labels.get(Number(id))).filter((l): l is CardLabel => !!l).sort(byName) : NO_LABELS,
  }));
}

/** Open and closed cards of each project, counted only in `repoIds` when given, in one query. */
export async function cardCountsOf(ctx: DbContext, projectIds: number[], repoIds?: number[]): Promise<Map<number, { open: number; closed: number }>> {
  const out = new Map<number, { open: number; closed: number }>(projectIds.map((id) => [id, { open: 0, closed: 0 }]));
  if (projectIds.length === 0 || (repoIds && repoIds.length === 0)) return out;
  const rows = await select(ctx)<{ project_id: number; is_closed: boolean | number; n: number | string }>(
    `SELECT pi.project_id, i.is_closed, COUNT(*) AS n FROM project_issue pi JOIN issue i ON i.id = pi.issue_id
      WHERE pi.project_id IN (:projectIds)${repoIds ? ' AND i.repo_id IN (:repoIds)' : ''}
      GROUP BY pi.project_id, i.is_closed`, { projectIds, repoIds: repoIds ?? [] },
  );
  for (const r of rows) {
    const c = out.get(Number(r.project_id));
    if (c) c[r.is_closed ? 'closed' : 'open'] = Number(r.n);
  }
  return out;
}

/** The repositories whose issues are cards of the projects (for the readable-repository check of a list). */
export async function cardRepoIdsOf(ctx: DbContext, projectIds: number[]): Promise<number[]> {
  if (projectIds.length === 0) return [];
  const rows = await select(ctx)<{ repo_id: number }>(
    'SELECT DISTINCT i.repo_id FROM project_issue pi JOIN issue i ON i.id = pi.issue_id WHERE pi.project_id IN (:projectIds)', { projectIds },
  );
  return rows.map((r) => Number(r.repo_id));
}

/** Take a repository's issues off an owner's projects (the repository left that owner). */
export async function removeRepoCardsFromOwnerProjects(ctx: DbContext, repoId: number, ownerId: number): Promise<void> {
  await run(ctx, `DELETE FROM project_issue
    WHERE issue_id IN (SELECT id FROM issue WHERE repo_id = :repoId)
      AND project_id IN (SELECT id FROM project WHERE owner_id = :ownerId AND repo_id = 0)`, { repoId, ownerId });
}
