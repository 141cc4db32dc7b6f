/**
 * A project's board (Gitea's ViewProject, the column routes and MoveIssues): the columns with the
 * cards the caller may see, columns added, renamed, coloured, reordered, made the default and
 * deleted (their cards go to the default column, which cannot be deleted), and cards moved between
 * columns and within one. A move writes a `project_board` timeline entry on each issue that changed
 * column, in the move's transaction; as in Gitea 1.24 it sends no webhook and makes no feed entry.
 */
import { withTx, type DbContext } from '../../db';
import { NotFound, Validation } from '../../errors';
import { CommentType } from '../../models/comment.model';
import {
  columnsOf, deleteColumnRow, findColumn, insertColumns, saveColumn, setColumnOrder, setDefaultColumn, type ProjectBoardModel,
} from '../../models/project-board.model';
import {
  cardIssuesOnProject, cardsOfProject, cardsOnProject, lockCardIssues, columnCardIds, moveColumnCards, placeCards, type CardIssue, type CardRow,
} from '../../models/project-issue.model';
import type { ProjectModel } from '../../models/project.model';
import type { UserModel } from '../../models/user.model';
import type { Principal } from '../auth/principal';
import { record } from '../issue/history';
import { assertProjectWriter, cardVisible, readableCardRepos, type CardRepo, type ProjectScope } from './access';
import { getProject } from './project.service';

/** Gitea's maxProjectColumns. */
export const MAX_COLUMNS = 20;
const COLOR = /^#[0-9a-fA-F]{6}$/;

/** A column with its cards in order. */
export interface BoardColumn { column: ProjectBoardModel; cards: CardRow[] }

/** The board of a project: its columns with the cards the caller may read, and the repositories they come from. */
export interface Board { project: ProjectModel; columns: BoardColumn[]; repos: Map<number, CardRepo> }

/**
 * The board of project `id`. A fixed number of queries whatever the number of cards: the project,
 * its columns, its cards with their issues, their labels, and (an owner's board) the repositories
 * the cards come from with the caller's permission on each.
 */
export async function projectBoard(ctx: DbContext, p: Principal, scope: ProjectScope, id: number): Promise<Board> {
  const project = await getProject(ctx, scope, id);
  const [columns, cards] = await Promise.all([columnsOf(ctx, project.id), cardsOfProject(ctx, project.id)]);
  const repos = await readableCardRepos(ctx, p, scope, [...new Set(cards.map((c) => c.repoId))]);
  const byColumn = new Map<number, CardRow[]>(columns.map((c) => [c.id, []]));
  const fallback = columns.find((c) => c.default) ?? columns[0];
  for (const card of cards) {
    if (!cardVisible(repos, card)) continue;
    // why: a card whose column is gone shows in the default column, as Gitea's LoadIssuesFromProject places it.
    const list = byColumn.get(card.columnId) ?? (fallback ? byColumn.get(fallback.id) : undefined);
    list?.push(card);
  }
  return { project, columns: columns.map((column) => ({ column, cards: byColumn.get(column.id) ?? [] })), repos };
}

/** A column form's title and colour, checked. */
function checkedColumn(f: { title?: string; color?: string }): { title: string; color: string } {
  const title = (f.title ?? '').trim();
  if (!title) throw new Validation('A column needs a title.');
  if ([...title].length > 255) throw new Validation('A column title is at most 255 characters long.');
  const color = (f.color ?? '').trim();
  if (color !== '' && !COLOR.test(color)) throw new Validation(`bad color code: ${color}`);
  return { title, color: color.toLowerCase() };
}

/** A column of a project of `scope`; 404 when either is missing. */
async function projectColumn(ctx: DbContext, scope: ProjectScope, projectId: number, columnId: number): Promise<{ project: ProjectModel; column: ProjectBoardModel }> {
  const project = await getProject(ctx, scope, projectId);
  const column = await findColumn(ctx, project.id, columnId);
  if (!column) throw new NotFound(`project column does not exist [id: ${columnId}]`);
  return { project, column };
}

/** Add a column at the end of a project's board. */
export async function addColumn(ctx: DbContext, doer: UserModel, scope: ProjectScope, projectId: number, f: { title?: string; color?: string }): Promise<ProjectBoardModel> {
  assertProjectWriter(scope);
  const { title, color } = checkedColumn(f);
  const project = await getProject(ctx, scope, projectId);
  // why: the count and the insert are one step, so two additions at once cannot pass the limit together.
  return withTx(ctx, async (tx) => {
    const columns = await columnsOf(tx, project.id);
    if (columns.length >= MAX_COLUMNS) throw new Validation(`A project has at most ${MAX_COLUMNS} columns.`);
    const sorting = columns.reduce((m, c) => Math.max(m, c.sorting + 1), 0);
    const [column] = await insertColumns(tx, [{ projectId: project.id, title, color, isDefault: columns.length === 0, sorting, creatorId: doer.id }]);
    return column;
  });
}

/** Rename or recolour a column. */
export async function editColumn(ctx: DbContext, scope: ProjectScope, projectId: number, columnId: number, f: { title?: string; color?: string }): Promise<void> {
  assertProjectWriter(scope);
  const { title, color } = checkedColumn(f);
  const { column } = await projectColumn(ctx, scope, projectId, columnId);
  column.title = title;
  column.color = color;
  await saveColumn(ctx, column);
}

/** Make a column the project's default one. */
export async function makeDefaultColumn(ctx: DbContext, scope: ProjectScope, projectId: number, columnId: number): Promise<void> {
  assertProjectWriter(scope);
  const { project, column } = await projectColumn(ctx, scope, projectId, columnId);
  await setDefaultColumn(ctx, project.id, column.id);
}

/** Delete a column; its cards go after those of the default column. The default column cannot be deleted. */
export async function deleteColumn(ctx: DbContext, scope: ProjectScope, projectId: number, columnId: number): Promise<void> {
  assertProjectWriter(scope);
  const { project, column } = await projectColumn(ctx, scope, projectId, columnId);
  if (column.default) throw new Validation('The default column cannot be deleted; make another column the default first.');
  // why: the cards move and the column goes in one transaction, so no card is ever left in a column that is gone.
  await withTx(ctx, async (tx) => {
    const fallback = (await columnsOf(tx, project.id)).find((c) => c.default && c.id !== column.id);
    if (!fallback) throw new Validation('The project has no default column to take the cards.');
    await moveColumnCards(tx, column.id, fallback.id);
    await deleteColumnRow(tx, column.id);
  });
}

/** Put a project's columns in a new order: `ids` lists some or all of its columns, in their new order, the others keep theirs after them. */
export async function reorderColumns(ctx: DbContext, scope: ProjectScope, projectId: number, ids: number[]): Promise<void> {
  assertProjectWriter(scope);
  const project = await getProject(ctx, scope, projectId);
  await withTx(ctx, async (tx) => {
    const columns = await columnsOf(tx, project.id);
    const known = new Set(columns.map((c) => c.id));
    if (new Set(ids).size !== ids.length || ids.some((id) => !known.has(id))) throw new Validation('some columns do not exist in this project');
    await setColumnOrder(tx, project.id, [...ids, ...columns.map((c) => c.id).filter((id) => !ids.includes(id))]);
  });
}

/** Move a column one place left or right (the pointer-free way to reorder). */
export async function shiftColumn(ctx: DbContext, scope: ProjectScope, projectId: number, columnId: number, by: -1 | 1): Promise<void> {
  assertProjectWriter(scope);
  const { project } = await projectColumn(ctx, scope, projectId, columnId);
  const ids = (await columnsOf(ctx, project.id)).map((c) => c.id);
  const at = ids.indexOf(columnId);
  const to = at + by;
  if (to < 0 || to >= ids.length) return;
  [ids[at], ids[to]] = [ids[to], ids[at]];
  await reorderColumns(ctx, scope, projectId, ids);
}

/** One card of a move: the issue's id and its place in the target column. */
export interface CardMove { issueId: number; sorting: number }

/**
 * The cards of `ids` on the project; 422 unless every one is there and the caller may read it.
 * why: one answer for a card that is not on the project and one the caller may not read, so a
 * refusal tells nothing of a hidden issue.
 */
async function movableCards(ctx: DbContext, p: Principal, scope: ProjectScope, project: ProjectModel, ids: number[]): Promise<CardIssue[]> {
  const cards = await cardIssuesOnProject(ctx, project.id, ids);
  const repos = await readableCardRepos(ctx, p, scope, cards.map((c) => c.repoId));
  if (cards.length !== ids.length || !cards.every((c) => cardVisible(repos, c))) throw new Validation('all issues have to be added to the project first');
  return cards;
}

/**
 * Put cards into `column` at the given places, writing a `project_board` entry on each issue whose
 * card comes from another column (`known`: where the cards were when the move was checked; a card
 * not named there is in `column` already).
 * why: the issues of the cards that change column are locked (PostgreSQL; in id order, as every
 * change of an issue locks it first) and their places read again in the transaction, so two moves
 * of one card never both see its old column and write two entries; the cards that only change
 * place need no lock, and the write transaction reads no more than those few.
 */
async function place(ctx: DbContext, doer: UserModel, project: ProjectModel, column: ProjectBoardModel, moves: CardMove[], known: CardIssue[]): Promise<void> {
  const movers = known.filter((c) => c.columnId !== column.id).map((c) => c.issueId).sort((a, b) => a - b);
  await withTx(ctx, async (tx) => {
    if (movers.length) {
      await lockCardIssues(tx, movers);
      const now = await cardsOnProject(tx, project.id, movers);
      if (now.length !== movers.length) throw new Validation('all issues have to be added to the project first');
      const meta = JSON.stringify({ ProjectColumnID: column.id, ProjectColumnTitle: column.title, ProjectTitle: project.title });
      for (const card of now.sort((a, b) => a.issueId - b.issueId)) {
        if (card.columnId !== column.id) await record(tx, { type: CommentType.ProjectColumn, issueId: card.issueId, posterId: doer.id, projectId: project.id, commentMetaData: meta });
      }
    }
    await placeCards(tx, project.id, column.id, moves);
  });
}

/**
 * Put cards into a column at the given places (Gitea's MoveIssues: `{issues: [{issueID, sorting}]}`
 * for the column a card was dragged into). Every card must already be on the project and be one the
 * caller may read; the column must be the project's.
 */
export async function moveCards(ctx: DbContext, doer: UserModel, p: Principal, scope: ProjectScope, projectId: number, columnId: number, moves: CardMove[]): Promise<void> {
  assertProjectWriter(scope);
  const { project, column } = await projectColumn(ctx, scope, projectId, columnId);
  if (moves.length === 0) return;
  const ids = moves.map((m) => m.issueId);
  if (moves.some((m) => !Number.isSafeInteger(m.issueId) || !Number.isSafeInteger(m.sorting) || m.sorting < 0) || new Set(ids).size !== ids.length) {
    throw new Validation('each card needs an issue id and a place, once');
  }
  await place(ctx, doer, project, column, moves, await movableCards(ctx, p, scope, project, ids));
}

/**
 * Move one card from a form (the card's "Move to" menu): to the end of column `columnId`, or one
 * place up or down in its own column (`columnId` null); the same rules and timeline entries as a drag.
 */
export async function moveCard(
  ctx: DbContext, doer: UserModel, p: Principal, scope: ProjectScope, projectId: number, columnId: number | null, issueId: number, where: 'end' | 'up' | 'down',
): Promise<void> {
  assertProjectWriter(scope);
  const project = await getProject(ctx, scope, projectId);
  if (!Number.isSafeInteger(issueId)) throw new Validation('all issues have to be added to the project first');
  const known = await movableCards(ctx, p, scope, project, [issueId]);
  const card = known[0];
  const { column } = await projectColumn(ctx, scope, project.id, columnId ?? card.columnId);
  const current = await columnCardIds(ctx, column.id);
  const was = current.indexOf(issueId);
  const order = current.filter((id) => id !== issueId);
  if (where === 'end' || was < 0) order.push(issueId);
  else order.splice(Math.max(0, Math.min(order.length, was + (where === 'up' ? -1 : 1))), 0, issueId);
  // why: the whole column is numbered again (cards the caller cannot see keep their order among the others).
  await place(ctx, doer, project, column, order.map((id, sorting) => ({ issueId: id, sorting })), known);
}
