/**
 * A board's column and card actions (Gitea's routes under `.../projects/{id}`): add a column
 * (`POST .../{id}`), reorder columns (`POST .../{id}/move` with `{columns: [{columnID, sorting}]}`,
 * or a column's Move left / Move right form), rename and recolour (`PUT .../{id}/{columnID}` or its
 * form), make the default, delete (`DELETE`, or its form), and move cards: the page script posts
 * `{issues: [{issueID, sorting}]}` to `.../{id}/{columnID}/move` for the column a card was dropped
 * in, and each card's "Move to" menu posts a plain form to the same address (to the end of that
 * column, or one place up or down), so a board works without a pointer and without the script.
 */
import type { Request, Response, Router } from 'express';
import { settings } from '../../config';
import { Validation } from '../../errors';
import { ctxOf, doerOf } from '../../middleware/context';
import { formBody } from '../../middleware/input-guard';
import {
  addColumn, deleteColumn, editColumn, makeDefaultColumn, moveCard, moveCards, reorderColumns, shiftColumn, type Board,
} from '../../services/project/board.service';
import { flashOutcome, requireCsrf } from './context';
import type { ProjectPlace } from './projects';
import { jsonBody, jsonRoute, page, repoHome, signedIn } from './route';

/** A card as the board's view draws it. */
export interface CardView {
  id: number; index: number; title: string; isPull: boolean; isClosed: boolean; merged: boolean; url: string; repoName: string;
  labels: { name: string; color: string; exclusive: boolean; description: string }[];
}

/** The board's columns as the view draws them, each with its cards. */
export function cardsView(place: ProjectPlace, board: Board) {
  const root = new URL(settings().server.rootUrl).pathname;
  return board.columns.map(({ column, cards }) => ({
    id: column.id, title: column.title, color: column.color, isDefault: column.default,
    cards: cards.map((c): CardView => {
      const home = place.rc ? repoHome(place.rc) : `${root}${c.repo.owner.name}/${c.repo.repo.name}`;
      return {
        id: c.issueId, index: c.index, title: c.title, isPull: c.isPull, isClosed: c.isClosed, merged: c.merged, labels: c.labels,
        url: `${home}/${c.isPull ? 'pulls' : 'issues'}/${c.index}`, repoName: place.rc ? '' : `${c.repo.owner.name}/${c.repo.repo.name}`,
      };
    }),
  }));
}

const num = (v: unknown): number => (typeof v === 'number' ? v : typeof v === 'string' && /^\d{1,15}$/.test(v) ? Number(v) : NaN);

/** The JSON body's `issues` as card moves (Gitea's movedIssuesForm). */
function cardMoves(body: unknown): { issueId: number; sorting: number }[] {
  const issues = (body as { issues?: unknown })?.issues;
  if (!Array.isArray(issues) || issues.length > 10_000) throw new Validation('issues: a list of {issueID, sorting} is needed');
  return issues.map((x: { issueID?: unknown; sorting?: unknown }) => ({ issueId: num(x?.issueID), sorting: num(x?.sorting) }));
}

/** The JSON body's `columns` as column ids in their new order (Gitea's movedColumnsForm). */
function columnOrder(body: unknown): number[] {
  const columns = (body as { columns?: unknown })?.columns;
  if (!Array.isArray(columns) || columns.length > 100) throw new Validation('columns: a list of {columnID, sorting} is needed');
  const moves = columns.map((x: { columnID?: unknown; sorting?: unknown }) => ({ id: num(x?.columnID), sorting: num(x?.sorting) }));
  if (moves.some((m) => Number.isNaN(m.id) || Number.isNaN(m.sorting))) throw new Validation('columns: a list of {columnID, sorting} is needed');
  return moves.sort((a, b) => a.sorting - b.sorting).map((m) => m.id);
}

/** Register the board's column and card routes under `base`. */
export function boardRoutes(r: Router, base: string, resolve: (req: Request) => Promise<ProjectPlace>): void {
  const csrf = requireCsrf();
  const id = (req: Request) => (/^\d{1,9}$/.test(String(req.params.id)) ? Number(req.params.id) : 0);
  const col = (req: Request) => Number(req.params.columnID);
  const json = (req: Request) => (req.is('application/json') ? undefined : 'route');
  /** A form on the board: run it, flash the outcome, back to the board. */
  const action = (path: string, run: (req: Request, place: ProjectPlace, b: Record<string, string>) => Promise<unknown>, done: string) => {
    r.post(`${base}/:id${path}`, ...formBody(), csrf, page(async (req, res) => {
      if (!signedIn(req, res)) return;
      const place = await resolve(req);
      await flashOutcome(req, () => run(req, place, req.body as Record<string, string>), () => done);
      res.redirect(303, `${place.base}/${id(req)}`);
    }));
  };
  /** A request of the page script: `{message}` and the status when refused, `{ok: true}` when done. */
  const script = (method: 'post' | 'put' | 'delete', path: string, run: (req: Request, place: ProjectPlace) => Promise<unknown>) => {
    r[method](`${base}/:id${path}`, (req, _res, next) => next(method === 'delete' ? undefined : json(req)), ...jsonBody(), csrf, jsonRoute(async (req: Request, res: Response) => {
      await run(req, await resolve(req));
      res.json({ ok: true });
    }));
  };

  // Cards: the script's JSON, or a card's "Move to" form.
  script('post', '/:columnID(\\d+)/move', (req, place) => moveCards(ctxOf(req), doerOf(req), req.principal, place.scope, id(req), col(req), cardMoves(req.body)));
  action('/:columnID(\\d+)/move', (req, place, b) => {
    const where = b.position === 'up' || b.position === 'down' ? b.position : 'end';
    return moveCard(ctxOf(req), doerOf(req), req.principal, place.scope, id(req), col(req), num(b.issue), where);
  }, 'The card is moved.');

  // Columns.
  script('post', '/move', (req, place) => reorderColumns(ctxOf(req), place.scope, id(req), columnOrder(req.body)));
  script('put', '/:columnID(\\d+)', (req, place) => editColumn(ctxOf(req), place.scope, id(req), col(req), req.body as { title?: string; color?: string }));
  script('delete', '/:columnID(\\d+)', (req, place) => deleteColumn(ctxOf(req), place.scope, id(req), col(req)));
  action('', (req, place, b) => addColumn(ctxOf(req), doerOf(req), place.scope, id(req), { title: b.title, color: b.color }), 'The column is added.');
  action('/:columnID(\\d+)/edit', (req, place, b) => editColumn(ctxOf(req), place.scope, id(req), col(req), { title: b.title, color: b.color }), 'The column is saved.');
  action('/:columnID(\\d+)/delete', (req, place) => deleteColumn(ctxOf(req), place.scope, id(req), col(req)), 'The column is deleted; its cards are in the default column.');
  action('/:columnID(\\d+)/default', (req, place) => makeDefaultColumn(ctxOf(req), place.scope, id(req), col(req)), 'The column is now the default one.');
  action('/:columnID(\\d+)/:dir(left|right)', (req, place) => shiftColumn(ctxOf(req), place.scope, id(req), col(req), req.params.dir === 'left' ? -1 : 1), 'The column is moved.');
}
