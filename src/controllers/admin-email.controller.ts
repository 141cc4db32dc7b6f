/**
 * Every email address of the instance, for site administrators: `/admin/emails`.
 */
import type { Request as ExRequest } from 'express';
import { Controller, Get, Query, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { Email } from '../api/email';
import type { ApiErrorBody } from '../errors';
import { ctxOf } from '../middleware/context';
import { listOptions, setPaging } from '../middleware/paging';
import { toEmail } from '../convert/email';
import { searchEmailsForAdmin } from '../models/user-admin';

@Route('admin/emails')
@Tags('admin')
export class AdminEmailController extends Controller {
  /** List all email addresses of individual users, ordered by address. */
  @Get()
  @Security('admin', ['admin'])
  @SuccessResponse(200, 'EmailList')
  @Response<ApiErrorBody>(403, 'forbidden')
  public async adminGetAllEmails(@Request() req: ExRequest, @Query() page?: number, @Query() limit?: number): Promise<Email[]> {
    return this.search(req, '', page, limit);
  }

  /** Search email addresses by address, login name or full name (case-insensitive substring). */
  @Get('search')
  @Security('admin', ['admin'])
  @SuccessResponse(200, 'EmailList')
  @Response<ApiErrorBody>(403, 'forbidden')
  public async adminSearchEmails(@Request() req: ExRequest, @Query() q?: string, @Query() page?: number, @Query() limit?: number): Promise<Email[]> {
    return this.search(req, (q ?? '').trim(), page, limit);
  }

  private async search(req: ExRequest, keyword: string, page?: number, limit?: number): Promise<Email[]> {
    const opts = listOptions(page, limit);
    const { rows, count } = await searchEmailsForAdmin(ctxOf(req), keyword, opts.limit, opts.offset);
    setPaging(req, opts, count);
    return rows.map((e) => toEmail(e, { id: e.uid, name: e.userName }));
  }
}
