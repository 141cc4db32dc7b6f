/**
 * ACCESS_LOG_TEMPLATE: the part of Go's text/template an access line needs. Gitea's default template
 * (GITEA_ACCESS_LOG_TEMPLATE) reads exactly as Gitea writes it, and so does any template built from
 * the placeholders below; anything else (functions, pipes, conditions, other fields, other time
 * layouts) is refused at start-up with the action it does not know. Rendering is src/log's.
 */
import { ConfigError } from './errors';

/** Gitea's default ACCESS_LOG_TEMPLATE (modules/setting/log.go), character for character. */
export const GITEA_ACCESS_LOG_TEMPLATE = '{{.Ctx.RemoteHost}} - {{.Identity}} {{.Start.Format "[02/Jan/2006:15:04:05 -0700]" }} '
  + '"{{.Ctx.Req.Method}} {{.Ctx.Req.URL.RequestURI}} {{.Ctx.Req.Proto}}" {{.ResponseWriter.Status}} {{.ResponseWriter.Size}} '
  + '"{{.Ctx.Req.Referer}}" "{{.Ctx.Req.UserAgent}}"';

/** A fact of one request that a template can place. */
export type AccessField =
  | 'remoteHost' | 'remoteAddr' | 'identity' | 'method' | 'requestUri' | 'path' | 'proto' | 'host'
  | 'referer' | 'userAgent' | 'status' | 'size' | 'requestId' | 'durationMs';

/** The placeholders a template may use, by their text in the template. */
export const ACCESS_PLACEHOLDERS: Readonly<Record<string, AccessField>> = {
  '.Ctx.RemoteHost': 'remoteHost',
  '.Ctx.RemoteAddr': 'remoteAddr',
  '.Identity': 'identity',
  '.Ctx.Req.Method': 'method',
  '.Ctx.Req.URL.RequestURI': 'requestUri',
  '.Ctx.Req.URL.Path': 'path',
  '.Ctx.Req.Proto': 'proto',
  '.Ctx.Req.Host': 'host',
  '.Ctx.Req.Referer': 'referer',
  '.Ctx.Req.UserAgent': 'userAgent',
  '.ResponseWriter.Status': 'status',
  '.ResponseWriter.Size': 'size',
  '.RequestID': 'requestId',
  // why: not Gitea's; the forge's own name for the time the request took, in milliseconds.
  '.DurationMs': 'durationMs',
};

/** The Go time layouts `{{.Start.Format "..."}}` may use. */
export const ACCESS_TIME_LAYOUTS: readonly string[] = [
  '[02/Jan/2006:15:04:05 -0700]',
  '02/Jan/2006:15:04:05 -0700',
  '2006-01-02T15:04:05Z07:00',
  '2006-01-02T15:04:05.000Z07:00',
  '2006/01/02 15:04:05',
];

/** One piece of a parsed template: text as it is, a request's fact, or its start time in a layout. */
export type AccessTemplatePart = { text: string } | { field: AccessField } | { time: string };

const KEY = '[log] ACCESS_LOG_TEMPLATE';

function refuse(what: string): ConfigError {
  return new ConfigError(`${KEY}: ${what} is not supported; a template may use ${Object.keys(ACCESS_PLACEHOLDERS).map((p) => `{{${p}}}`).join(' ')} `
    + `and {{.Start.Format "<layout>"}} with one of the layouts ${ACCESS_TIME_LAYOUTS.map((l) => `"${l}"`).join(', ')} (see docs/logging.md)`);
}

/** The layout text of a Go string literal ("..." with escapes, or `...`), or null. */
function goString(lit: string): string | null {
  if (lit.startsWith('`') && lit.endsWith('`') && lit.length >= 2) return lit.slice(1, -1);
  if (!/^"(?:[^"\\]|\\.)*"$/.test(lit)) return null;
  try { return JSON.parse(lit) as string; } catch { return null; }
}

/** One action, the text between `{{` and `}}` without trim markers. */
function action(text: string): AccessTemplatePart {
  const a = text.trim();
  const field = ACCESS_PLACEHOLDERS[a];
  if (field) return { field };
  const format = /^\.Start\.Format\s+(".*"|`.*`)$/s.exec(a);
  if (format) {
    const layout = goString(format[1]);
    if (layout !== null && ACCESS_TIME_LAYOUTS.includes(layout)) return { time: layout };
    throw refuse(`the time layout ${format[1]}`);
  }
  throw refuse(`{{${text}}}`);
}

/**
 * Parse a template into its parts; throws ConfigError naming the first action it cannot render.
 * Go's trim markers (`{{- ` and ` -}}`) drop the white space before or after an action.
 */
export function parseAccessLogTemplate(template: string): AccessTemplatePart[] {
  const parts: AccessTemplatePart[] = [];
  let i = 0;
  let trimNext = false;
  while (i <= template.length) {
    const open = template.indexOf('{{', i);
    let text = template.slice(i, open < 0 ? template.length : open);
    if (trimNext) text = text.replace(/^\s+/, '');
    if (open < 0) {
      if (text) parts.push({ text });
      break;
    }
    const close = template.indexOf('}}', open + 2);
    if (close < 0) throw refuse(`an unclosed action "${template.slice(open, open + 40)}"`);
    let inner = template.slice(open + 2, close);
    if (/^-\s/.test(inner)) {
      text = text.replace(/\s+$/, '');
      inner = inner.slice(1);
    }
    trimNext = /\s-$/.test(inner);
    if (trimNext) inner = inner.slice(0, -1);
    if (text) parts.push({ text });
    parts.push(action(inner));
    i = close + 2;
  }
  return parts;
}
