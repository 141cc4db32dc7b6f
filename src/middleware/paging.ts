/**
 * The one pagination helper: `page` (1-based) and `limit` (default DEFAULT_PAGING_NUM, capped at
 * MAX_RESPONSE_ITEMS), then X-Total-Count and a Link header with absolute first/prev/next/last URLs.
 */
import type { Request } from 'express';
import { settings } from '../config';
import { Validation } from '../errors';
import { MAX_ROW_ID } from './input-guard';

/** Page window of a list request. */
export interface ListOptions { page: number; limit: number; offset: number }

/**
 * Normalize page/limit as Gitea does: a page below 1 is the first page, a limit of 0 or less is
 * the default and a larger limit than the maximum is the maximum. Non-integers are refused; a page
 * past any possible list (more rows than an id can number) is an empty page, never a database error.
 */
export function listOptions(page?: number, limit?: number): ListOptions {
  const { defaultPagingNum, maxResponseItems } = settings().api;
  for (const [name, v] of [['page', page], ['limit', limit]] as const) {
    if (v !== undefined && v !== null && !Number.isInteger(v)) throw new Validation(`${name} must be an integer`);
  }
  const p = !page || page < 1 ? 1 : Math.min(page, MAX_ROW_ID);
  let l = !limit || limit < 1 ? defaultPagingNum : limit;
  if (l > maxResponseItems) l = maxResponseItems;
  return { page: p, limit: l, offset: (p - 1) * l };
}

/** Set X-Total-Count and Link on the response of a list request. */
export function setPaging(req: Request, opts: ListOptions, total: number): void {
  const res = req.res!;
  res.setHeader('X-Total-Count', String(total));
  const last = Math.max(1, Math.ceil(total / opts.limit));
  // why: most lists fit one page, and parsing the URL cost more than the rest of this.
  if (opts.page >= last && opts.page <= 1) return;
  const base = new URL(req.originalUrl.replace(/^\//, ''), settings().server.rootUrl);
  const link = (page: number, rel: string) => {
    const u = new URL(base);
    u.searchParams.set('page', String(page));
    u.searchParams.set('limit', String(opts.limit));
    return `<${u.toString()}>; rel="${rel}"`;
  };
  const links: string[] = [];
  if (opts.page < last) links.push(link(opts.page + 1, 'next'), link(last, 'last'));
  if (opts.page > 1) links.push(link(1, 'first'), link(Math.min(opts.page - 1, last), 'prev'));
  if (links.length) res.setHeader('Link', links.join(','));
}

/**
 * setPaging plus the older page headers Gitea still sends on commit lists: X-Page, X-PerPage,
 * X-Total, X-PageCount and X-HasMore.
 */
export function setPagingWithPageCount(req: Request, opts: ListOptions, total: number): void {
  setPaging(req, opts, total);
  const res = req.res!;
  const pageCount = Math.ceil(total / opts.limit);
  res.setHeader('X-Page', String(opts.page));
  res.setHeader('X-PerPage', String(opts.limit));
  res.setHeader('X-Total', String(total));
  res.setHeader('X-PageCount', String(pageCount));
  res.setHeader('X-HasMore', String(opts.page < pageCount));
}
