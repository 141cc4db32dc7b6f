/**
 * Go's duration text, as Gitea reads and writes it (`time.ParseDuration`, `Duration.String`):
 * `8h`, `1h30m`, `90s`, `1.5h`, `0`. The settings loader and the API's interval fields read it here.
 */

const UNIT_SECONDS: Record<string, number> = { ns: 1e-9, us: 1e-6, 'µs': 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600 };
const PART = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/y;

/**
 * Seconds of a Go duration (fractions kept), or null when the text is not one. As Go, `0` is the
 * only bare number, a sign may lead, and each part needs its unit.
 */
export function parseGoDuration(text: string): number | null {
  let s = text.trim();
  let sign = 1;
  if (s.startsWith('-') || s.startsWith('+')) {
    if (s[0] === '-') sign = -1;
    s = s.slice(1);
  }
  if (s === '0') return 0;
  if (s === '') return null;
  let total = 0;
  PART.lastIndex = 0;
  while (PART.lastIndex < s.length) {
    const at = PART.lastIndex;
    const m = PART.exec(s);
    if (!m || m.index !== at) return null;
    total += Number(m[1]) * UNIT_SECONDS[m[2]];
  }
  return sign * total;
}

/** Go's text for whole seconds: `0s`, `45s`, `1m5s`, `8h0m0s`. */
export function formatGoDuration(seconds: number): string {
  const secs = Math.round(seconds);
  const neg = secs < 0 ? '-' : '';
  const a = Math.abs(secs);
  const h = Math.floor(a / 3600);
  const m = Math.floor((a % 3600) / 60);
  const s = a % 60;
  return neg + (h ? `${h}h${m}m${s}s` : m ? `${m}m${s}s` : `${s}s`);
}
