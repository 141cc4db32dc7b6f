/**
 * What templates call to draw the pieces every page shares: Octicons, relative times, avatars and
 * coloured labels. Each rendered page gets its own `ViewHelpers`, which gathers the label colours
 * it drew into one style block (the pages allow no inline styles, see render.ts).
 */
import octicons from '@primer/octicons';

/** The attributes of an escaped HTML value. */
function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

const iconCache = new Map<string, string>();

/** An Octicon as inline SVG (decorative: hidden from screen readers); an unknown name draws nothing. */
export function icon(name: string, size = 16, cls = ''): string {
  const key = `${name}\0${size}\0${cls}`;
  let svg = iconCache.get(key);
  if (svg === undefined) {
    const o = (octicons as Record<string, { toSVG(o: { width: number; class?: string }): string } | undefined>)[name];
    svg = o ? o.toSVG({ width: size, ...(cls ? { class: cls } : {}) }) : '';
    iconCache.set(key, svg);
  }
  return svg;
}

/** An icon for a file or folder of a tree listing, by its kind. */
export function entryIcon(type: string, name = ''): string {
  if (type === 'dir') return icon('file-directory-fill', 16, 'entry-icon dir');
  if (type === 'submodule' || type === 'commit') return icon('file-submodule', 16, 'entry-icon');
  if (type === 'symlink') return icon('file-symlink-file', 16, 'entry-icon');
  if (/\.(png|jpe?g|gif|webp|svg|ico|bmp)$/i.test(name)) return icon('file-media', 16, 'entry-icon');
  if (/\.(zip|tar|gz|tgz|bz2|xz|7z|rar)$/i.test(name)) return icon('file-zip', 16, 'entry-icon');
  return icon('file', 16, 'entry-icon');
}

/** A time shown relative to now ("3 hours ago"), the absolute time on hover and without script. */
export function time(value: string | Date | null | undefined): string {
  if (!value) return '';
  const d = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(d.getTime())) return '';
  const iso = d.toISOString();
  const absolute = d.toUTCString().replace(/:\d\d GMT$/, ' UTC');
  return `<relative-time datetime="${iso}" title="${esc(absolute)}">${esc(absolute)}</relative-time>`;
}

/** A user as the API shows one (enough of it for an avatar). */
export interface AvatarUser { login?: string; username?: string; avatar_url?: string }

/** A user's avatar image, `size` pixels square (an identicon until they upload one). */
export function avatar(user: AvatarUser | null | undefined, size = 20): string {
  const src = user?.avatar_url;
  if (!src) return `<span class="avatar ghost s${size}"></span>`;
  return `<img class="avatar" src="${esc(src)}" width="${size}" height="${size}" alt="" loading="lazy">`;
}

/** The text colour that reads on a background colour (`#rrggbb`): black on light, white on dark. */
export function contrastColor(hex: string): string {
  const m = /^#?([0-9a-f]{6})$/i.exec(hex);
  if (!m) return '#000000';
  const n = parseInt(m[1], 16);
  const lin = (c: number) => { const v = c / 255; return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
  const l = 0.2126 * lin(n >> 16) + 0.7152 * lin((n >> 8) & 255) + 0.0722 * lin(n & 255);
  // why: the luminance where black and white text reach the same contrast ratio.
  return l > 0.179 ? '#000000' : '#ffffff';
}

/** A label as the API shows one. */
export interface LabelView { name: string; color: string; exclusive?: boolean; description?: string }

/** Per page: the helpers, and the label colours the page used, written into its style block. */
export class ViewHelpers {
  readonly icon = icon;
  readonly entryIcon = entryIcon;
  readonly time = time;
  readonly avatar = avatar;
  readonly escape = esc;
  private readonly colours = new Set<string>();
  private readonly rules: string[] = [];

  /** Add rules the forge made (never user text) to the page's style block. */
  css(rules: string): void {
    this.rules.push(rules);
  }

  /** A label in its colour with readable text; an exclusive label's scope (`scope/name`) is set apart. */
  label(l: LabelView): string {
    const hex = (/^#?([0-9a-f]{6})$/i.exec(l.color)?.[1] ?? 'd1d9e0').toLowerCase();
    this.colours.add(hex);
    const title = l.description ? ` title="${esc(l.description)}"` : '';
    const cut = l.exclusive ? l.name.lastIndexOf('/') : -1;
    const text = cut > 0 ? `<span class="scope">${esc(l.name.slice(0, cut))}</span><span class="item">${esc(l.name.slice(cut + 1))}</span>` : esc(l.name);
    return `<span class="tag issue-label lc-${hex}"${title}>${text}</span>`;
  }

  /** The CSS for the label colours drawn so far. */
  styles(): string {
    return [...[...this.colours].map((h) => `.lc-${h}{background:#${h};color:${contrastColor(`#${h}`)}}`), ...this.rules].join('\n');
  }
}
