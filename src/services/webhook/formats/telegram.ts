/**
 * Telegram's message (Gitea's services/webhook/telegram.go): HTML text passed through an HTML
 * sanitizer, which re-escapes text, keeps links (adding rel="nofollow" to absolute ones) and drops
 * markup it does not allow.
 */
import sanitizeHtml from 'sanitize-html';
import type { PushPayload } from '../../../api/webhook';
import { htmlEscape, pathEscapeSegments, shortRefName, trimRight, trimSpace } from './go';
import {
  type Convertor, commentText, htmlLink, issueText, packageText, pullText, pushSummary, releaseText, reviewAction, statusText, wikiText,
  workflowJobText,
} from './text';

/** Telegram's message, in Gitea's field order. */
export interface TelegramMessage { text: string; parse_mode: string; disable_web_page_preview: boolean }

const EMPTY: TelegramMessage = { text: '', parse_mode: '', disable_web_page_preview: false };

const message = (html: string): TelegramMessage => ({ text: trimSpace(sanitize(html)), parse_mode: 'HTML', disable_web_page_preview: true });

/** The Telegram convertor. */
export function telegram(): Convertor<TelegramMessage> {
  const repoLink = (r: { html_url: string; full_name: string }) => htmlLink(r.html_url, r.full_name);
  const refEvent = (p: { ref: string; ref_type: string; repository: { html_url: string; full_name: string } }, verb: string) => {
    const name = shortRefName(p.ref);
    return message(`[${repoLink(p.repository)}] ${htmlEscape(p.ref_type)} ${htmlLink(`${p.repository.html_url}/src/${pathEscapeSegments(name)}`, name)} ${verb}`);
  };
  const push = (p: PushPayload) => {
    const { branch, desc, titleLink } = pushSummary(p);
    const title = `[${repoLink(p.repository)}:${htmlLink(titleLink, branch)}] ${htmlEscape(desc)}`;
    const commits = (p.commits ?? []).map((c) =>
      `\n[${htmlLink(c.url, c.id.slice(0, 7))}] ${htmlEscape(trimRight(c.message, '\r\n'))}${c.author ? ` - ${htmlEscape(c.author.name)}` : ''}`);
    return message(title + commits.join(''));
  };
  return {
    create: (p) => refEvent(p, 'created'),
    delete: (p) => refEvent(p, 'deleted'),
    fork: (p) => message(`${htmlEscape(p.forkee.full_name)} is forked to ${repoLink(p.repository)}`),
    push,
    issue: (p) => {
      const t = issueText(p, htmlLink, true);
      return message(`${t.text}\n\n${htmlEscape(t.extra)}`);
    },
    issueComment: (p) => message(`${commentText(p, htmlLink, true).text}\n${htmlEscape(p.comment.body)}`),
    pullRequest: (p) => {
      const t = pullText(p, htmlLink, true);
      return message(`${t.text}\n${htmlEscape(t.extra)}`);
    },
    review: (p, eventType) => {
      if (p.action !== 'reviewed') return message('');
      const title = `[${htmlEscape(p.repository.full_name)}] Pull request review ${htmlEscape(reviewAction(eventType) ?? '')}: #${p.number} ${htmlEscape(p.pull_request.title)}`;
      return message(`${title}\n${htmlEscape(p.review?.content ?? '')}`);
    },
    repository: (p) => {
      if (p.action === 'created') return message(`[${repoLink(p.repository)}] Repository created`);
      if (p.action === 'deleted') return message(`[${htmlEscape(p.repository.full_name)}] Repository deleted`);
      return EMPTY;
    },
    release: (p) => message(releaseText(p, htmlLink, true).text),
    wiki: (p) => message(wikiText(p, htmlLink, true).text),
    pkg: (p) => message(packageText(p, htmlLink, true).text),
    status: (p) => message(statusText(p, htmlLink, true).text),
    workflowJob: (p) => message(workflowJobText(p, htmlLink, true).text),
  };
}

// The sanitizer: Gitea's policy for messages (bluemonday's UGC policy with Gitea's additions) as a
// sanitize-html allowlist: the elements and attributes it keeps, links with a safe scheme, and
// rel="nofollow" on absolute links.

const ALLOWED_TAGS = (
  'a abbr acronym area article aside b bdi bdo blockquote br caption cite code col colgroup dd del details dfn div dl dt em figcaption figure '
  + 'h1 h2 h3 h4 h5 h6 hgroup hr i img ins kbd label li map mark meter ol p pre progress q rp rt ruby s samp section small span '
  + 'strike strong sub summary sup table tbody td tfoot th thead time tr tt u ul var wbr').split(' ');

const ALLOWED_ATTRS = (
  'abbr align alt aria-describedby aria-hidden aria-label aria-labelledby border cellpadding cellspacing cite colspan datetime dir headers height '
  + 'hreflang id lang name open rel rowspan scope span start summary title valign width').split(' ');

/** Sanitize a message's HTML as Gitea does before sending it to Telegram. */
export function sanitize(html: string): string {
  if (trimSpace(html) === '') return html;
  return sanitizeHtml(html.replace(/\r\n?/g, '\n'), {
    allowedTags: ALLOWED_TAGS,
    allowedAttributes: { '*': ALLOWED_ATTRS, a: [...ALLOWED_ATTRS, 'href'], area: [...ALLOWED_ATTRS, 'href'] },
    allowedSchemes: ['http', 'https', 'mailto'],
    allowProtocolRelative: true,
    // why: Go's HTML escaping, which Gitea's output has, also escapes quotes in text.
    textFilter: (text) => text.replace(/'/g, '&#39;').replace(/"/g, '&#34;'),
    transformTags: {
      a: (tagName, attribs) => {
        const absolute = /^([a-zA-Z][a-zA-Z0-9+.-]*:)?\/\/[^/?#]/.test(attribs.href ?? '');
        if (!absolute) return { tagName, attribs };
        const rel = attribs.rel ?? '';
        return { tagName, attribs: { ...attribs, rel: rel.includes('nofollow') ? rel : `${rel} nofollow`.trim() } };
      },
    },
  });
}
