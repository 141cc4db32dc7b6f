/**
 * The one HTML allowlist every rendered document goes through (security class 11): the tags and
 * attributes Markdown produces, links only to http, https and mailto, images also from `data:image/`,
 * no `on*`, no `style`, no frames, forms or scripts. User-written `id`/`name` values get Gitea's
 * `user-content-` prefix so a document cannot clobber the page's own ids.
 */
import sanitizeHtml from 'sanitize-html';

const PREFIX = 'user-content-';

const TAGS = [
  'a', 'abbr', 'b', 'bdi', 'bdo', 'blockquote', 'br', 'caption', 'cite', 'code', 'col', 'colgroup', 'dd', 'del', 'details', 'dfn',
  'div', 'dl', 'dt', 'em', 'figcaption', 'figure', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'hr', 'i', 'img', 'input', 'ins', 'kbd', 'li',
  'mark', 'ol', 'p', 'picture', 'pre', 'q', 'rp', 'rt', 'ruby', 's', 'samp', 'small', 'source', 'span', 'strike', 'strong', 'sub',
  'summary', 'sup', 'table', 'tbody', 'td', 'tfoot', 'th', 'thead', 'time', 'tr', 'tt', 'u', 'ul', 'var', 'wbr',
];

const ALIGN = ['align'];
const OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: TAGS,
  allowedAttributes: {
    '*': ['id', 'name', 'title', 'lang', 'dir', 'aria-label', 'aria-hidden'],
    a: ['href', 'rel', 'class'],
    img: ['src', 'alt', 'width', 'height', 'align', 'loading'],
    source: ['srcset', 'media', 'type'],
    input: ['type', 'checked', 'disabled', 'aria-label'],
    ol: ['start', 'type', 'reversed'],
    li: ['value', 'class'],
    ul: ['class'],
    td: [...ALIGN, 'colspan', 'rowspan', 'class'],
    th: [...ALIGN, 'colspan', 'rowspan', 'scope', 'class'],
    tr: ALIGN, p: ALIGN, div: ALIGN, h1: ALIGN, h2: ALIGN, h3: ALIGN, h4: ALIGN, h5: ALIGN, h6: ALIGN,
    table: ['class'],
    code: ['class'],
    pre: ['class'],
    span: ['class'],
    details: ['open'],
    time: ['datetime'],
    q: ['cite'], blockquote: ['cite'], del: ['cite', 'datetime'], ins: ['cite', 'datetime'],
  },
  allowedClasses: {
    a: ['ref-issue', 'mention', 'commit'],
    code: ['language-*'],
    pre: ['code-block'],
    li: ['task-list-item'],
    ul: ['contains-task-list'],
    // why: fenced code is highlighted with highlight.js's classes, which the stylesheet colours.
    span: ['emoji', 'issue-keyword', 'hljs-*'],
    table: ['data-table'],
    th: ['line-num'],
    td: ['line-num'],
  },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesByTag: { img: ['http', 'https', 'data'], source: ['http', 'https'] },
  allowedSchemesAppliedToAttributes: ['href', 'src', 'cite', 'srcset'],
  // why: `//evil.example/x` leaves the forge as surely as a full URL, without a scheme to check.
  allowProtocolRelative: false,
  disallowedTagsMode: 'discard',
  transformTags: {
    '*': (tagName, attribs) => {
      for (const key of ['id', 'name']) {
        const v = attribs[key];
        if (v !== undefined && !v.startsWith(PREFIX)) attribs[key] = PREFIX + v;
      }
      return { tagName, attribs };
    },
    // why: the only input a document may hold is a read-only task-list checkbox; it says what it is
    // to a screen reader (its own label, since the task's text is not a <label>).
    input: (tagName, attribs) => (attribs.type === 'checkbox'
      ? { tagName, attribs: { type: 'checkbox', disabled: '', ...(attribs.checked !== undefined ? { checked: '' } : {}), 'aria-label': attribs.checked !== undefined ? 'Done task' : 'Open task' } }
      : { tagName: 'span', attribs: {} }),
  },
  exclusiveFilter: (frame) => frame.tag === 'img' && /^data:/i.test(frame.attribs.src ?? '') && !/^data:image\/(png|gif|jpeg|webp|avif|bmp)[;,]/i.test(frame.attribs.src ?? ''),
};

/** Clean HTML produced by a renderer (or written by a user) down to the allowlist. */
export function sanitize(html: string): string {
  return sanitizeHtml(html, OPTIONS);
}

/** Escape text for HTML element content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
