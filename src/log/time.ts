/**
 * Times as log lines print them, in the layouts ACCESS_LOG_TEMPLATE may name (Go layouts, local
 * time). why: formatting a date costs more than the rest of a line, and a busy second has thousands
 * of lines; each layout keeps the text of the last second it formatted.
 */
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

const two = (n: number): string => (n < 10 ? `0${n}` : `${n}`);

/** The zone offset as Go prints it: `-0700` (colon false) or `-07:00`, `Z` for UTC when zulu. */
function zone(d: Date, colon: boolean, zulu: boolean): string {
  const off = -d.getTimezoneOffset();
  if (off === 0 && zulu) return 'Z';
  const a = Math.abs(off);
  return `${off < 0 ? '-' : '+'}${two(Math.floor(a / 60))}${colon ? ':' : ''}${two(a % 60)}`;
}

/** The text of one second in a layout, split where milliseconds go (layouts with `.000`). */
type SecondText = (d: Date) => [string, string];

const LAYOUTS: Record<string, { second: SecondText; ms: boolean }> = {
  '[02/Jan/2006:15:04:05 -0700]': {
    ms: false,
    second: (d) => [`[${two(d.getDate())}/${MONTHS[d.getMonth()]}/${d.getFullYear()}:${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())} ${zone(d, false, false)}]`, ''],
  },
  '02/Jan/2006:15:04:05 -0700': {
    ms: false,
    second: (d) => [`${two(d.getDate())}/${MONTHS[d.getMonth()]}/${d.getFullYear()}:${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())} ${zone(d, false, false)}`, ''],
  },
  '2006-01-02T15:04:05Z07:00': {
    ms: false,
    second: (d) => [`${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}T${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}${zone(d, true, true)}`, ''],
  },
  '2006-01-02T15:04:05.000Z07:00': {
    ms: true,
    second: (d) => [`${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}T${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`, zone(d, true, true)],
  },
  '2006/01/02 15:04:05': {
    ms: false,
    second: (d) => [`${d.getFullYear()}/${two(d.getMonth() + 1)}/${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`, ''],
  },
};

/** A formatter of epoch milliseconds in one layout, remembering the last second it formatted. */
export function timeFormatter(layout: string): (ms: number) => string {
  const spec = LAYOUTS[layout];
  if (!spec) throw new Error(`no time layout ${layout}`);
  let second = NaN;
  let before = '';
  let after = '';
  return (ms: number): string => {
    const s = Math.floor(ms / 1000);
    if (s !== second) {
      [before, after] = spec.second(new Date(ms));
      second = s;
    }
    if (!spec.ms) return before;
    const m = ms - s * 1000;
    return `${before}.${m < 10 ? '00' : m < 100 ? '0' : ''}${m}${after}`;
  };
}

/** The layouts timeFormatter knows (each of config's ACCESS_TIME_LAYOUTS must be one). */
export const KNOWN_LAYOUTS: readonly string[] = Object.keys(LAYOUTS);
