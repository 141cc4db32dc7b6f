/**
 * A board's column and card actions (Gitea's routes under `.../projects/{id}`): add a column
 * (`POST .../{id}`), reorder columns (`POST .../{id}/move` with `{columns: [{columnID, sorting}]}`,
 * or a column's Move left / Move right form), rename and recolour (`PUT .../{id}/{columnID}` or its
 * form), make the default, delete (`DELETE`, or its form), and move cards: the page script posts
 * `{issues: [{issueID, sorting}]}` to `.../{id}/{columnID}/move` for the column a card was dropped
 * in, and each card's "Move to" menu posts a plain form to `.../{id}/cards/{issueID}/move` (to the
 * end of the chosen column, or one place up or down in its own), which the same service serves, so
 * a board works without a pointer and without the script.
 */
import octicons from '@primer/octicons';
import express, { type Request, type Response, type Router } from 'express';
import { settings } from '../../config';
import { Validation } from '../../errors';
import { ctxOf, doerOf } from '../../middleware/context';
import { bodyGuard, formBody } from '../../middleware/input-guard';
import {
  addColumn, deleteColumn, editColumn, makeDefaultColumn, moveCard, moveCards, reorderColumns, shiftColumn, type Board,
} from '../../services/project/board.service';
import type { CardRow } from '../../models/project-issue.model';
import { flashOutcome, requireCsrf } from './context';
import type { ProjectPlace } from './projects';
import { jsonRoute, page, repoHome, signedIn } from './route';

const STATES = {
  open: ['issue-opened', 'open', 'Open'], closed: ['issue-closed', 'closed', 'Closed'],
  pullOpen: ['git-pull-request', 'open', 'Open'], pullClosed: ['git-pull-request-closed', 'closed', 'Closed'], merged: ['git-merge', 'merged', 'Merged'],
} as const;
const octicon = (name: string) => (octicons as unknown as Record<string, { heights: Record<string, { path: string }> }>)[name].heights['16'].path;

const STATE_VIEWS = Object.fromEntries(Object.entries(STATES).map(([k, [name, cls, label]]) => [k, {
  svg: `<svg class="octicon" width="16" height="16" aria-hidden="true"><use href="#oi-${name}"></use></svg>`, cls, name: label,
}])) as Record<keyof typeof STATES, { svg: string; cls: string; name: string }>;

/**
 * The cards' state icons: their shapes once per page as SVG symbols, each card's a `<use>` of one.
 * why: a board of 2,000 cards drew the same 300-byte icon 2,000 times.
 */
export const CARD_ICONS = {
  symbols: `<svg class="card-symbols" aria-hidden="true">${Object.values(STATES).map(([name]) => `<symbol id="oi-${name}" viewBox="0 0 16 16">${octicon(name)}</symbol>`).join('')}</svg>`,
  /** A card's state: its icon (a `<use>` of a symbol), class and name; one object per state, shared by the cards. */
  state(c: { isPull: boolean; isClosed: boolean; merged: boolean }): { svg: string; cls: string; name: string } {
    return STATE_VIEWS[c.isPull ? (c.merged ? 'merged' : c.isClosed ? 'pullClosed' : 'pullOpen') : c.isClosed ? 'closed' : 'open'];
  },
};

/**
 * The board as the view draws it: its columns with their cards, each card's page, and on an owner's
 * board the repository it comes from. why: worked out once per repository, not once per card.
 */
export function boardView(place: ProjectPlace, board: Board) {
  const root = new URL(settings().server.rootUrl).pathname;
  const homes = new Map<number, string>();
  const names = new Map<number, string>();
  for (const [id, r] of board.repos) {
    homes.set(id, place.rc ? repoHome(place.rc) : `${root}${r.owner.name}/${r.repo.name}`);
    names.set(id, place.rc ? '' : `${r.owner.name}/${r.repo.name}`);
  }
  return {
    columns: board.columns.map(({ column, cards }) => ({ id: column.id, title: column.title, color: column.color, isDefault: column.default, cards })),
    cardUrl: (c: CardRow) => `${homes.get(c.repoId)}/${c.isPull ? 'pulls' : 'issues'}/${c.index}`,
    repoName: (c: CardRow) => names.get(c.repoId) ?? '',
  };
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
  // why: a drag posts the whole order of the column it ends in; a column of thousands of cards is more than the pages' usual 64 KiB.
  const body = [express.json({ limit: '512kb' }), bodyGuard()];
  /** A request of the page script: `{message}` and the status when refused, `{ok: true}` when done. */
  const script = (method: 'post' | 'put' | 'delete', path: string, run: (req: Request, place: ProjectPlace) => Promise<unknown>) => {
    r[method](`${base}/:id${path}`, (req, _res, next) => next(method === 'delete' ? undefined : json(req)), ...body, csrf, jsonRoute(async (req: Request, res: Response) => {
      await run(req, await resolve(req));
      res.json({ ok: true });
    }));
  };

  // Cards: the script's JSON, or a card's "Move to" form.
  script('post', '/:columnID(\\d+)/move', (req, place) => moveCards(ctxOf(req), doerOf(req), req.principal, place.scope, id(req), col(req), cardMoves(req.body)));
  action('/cards/:issue(\\d+)/move', (req, place, b) => {
    // why: the menu's one choice is a column (to its end) or a step up or down in the card's own column.
    const where = b.column === 'up' || b.column === 'down' ? b.column : 'end';
    return moveCard(ctxOf(req), doerOf(req), req.principal, place.scope, id(req), where === 'end' ? num(b.column) : null, Number(req.params.issue), where);
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
