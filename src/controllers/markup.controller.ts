/**
 * Rendering Markdown and other markup as HTML: `/markup`, `/markdown` and `/markdown/raw`.
 */
import type { Request as ExRequest } from 'express';
import { Body, Controller, Post, Produces, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { MarkdownOption, MarkupOption } from '../api/misc';
import type { ApiErrorBody } from '../errors';
import { ctxOf } from '../middleware/context';
import { renderMarkupRequest } from '../services/markup/markup.service';

function sendHtml(req: ExRequest, html: string): string {
  // why: Gitea answers text/html; tsoa would JSON-encode a returned string.
  req.res!.status(200).type('text/html').send(html);
  return html;
}

@Route('')
@Tags('miscellaneous')
export class MarkupController extends Controller {
  /** Render a markup document as HTML (mode `file` picks the renderer from `FilePath`). */
  @Post('markup')
  @Security('signed')
  @Produces('text/html')
  @Response<ApiErrorBody>(422, 'unknown mode or renderer, or a text too large')
  public async renderMarkup(@Body() body: MarkupOption, @Request() req: ExRequest): Promise<string> {
    const html = await renderMarkupRequest(ctxOf(req), req.principal, { mode: body.Mode, text: body.Text, context: body.Context, filePath: body.FilePath, wiki: body.Wiki });
    return sendHtml(req, html);
  }

  /** Render a Markdown document as HTML. */
  @Post('markdown')
  @Security('signed')
  @Produces('text/html')
  @Response<ApiErrorBody>(422, 'unknown mode, or a text too large')
  public async renderMarkdown(@Body() body: MarkdownOption, @Request() req: ExRequest): Promise<string> {
    const html = await renderMarkupRequest(ctxOf(req), req.principal, { mode: body.Mode, text: body.Text, context: body.Context, wiki: body.Wiki });
    return sendHtml(req, html);
  }

  /** Render raw Markdown (the request body, text/plain) as HTML. */
  @Post('markdown/raw')
  @Security('signed')
  @Produces('text/html')
  @Response<ApiErrorBody>(422, 'a text too large')
  public async renderMarkdownRaw(@Request() req: ExRequest): Promise<string> {
    const text = typeof req.body === 'string' ? req.body : '';
    return sendHtml(req, await renderMarkupRequest(ctxOf(req), req.principal, { mode: 'markdown', text }));
  }
}
