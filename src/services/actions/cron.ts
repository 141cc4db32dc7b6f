/**
 * Cron schedules as workflows write them: five fields (minute, hour, day of month, month, day of
 * week) with `*`, lists, ranges and steps, month and day names, and the `@hourly`-style
 * shorthands; times in UTC, as GitHub and Gitea run them.
 */

const FIELDS: [number, number][] = [[0, 59], [0, 23], [1, 31], [1, 12], [0, 6]];
const NAMES = [
  {}, {},
  {},
  Object.fromEntries(['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'].map((m, i) => [m, i + 1])),
  Object.fromEntries(['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'].map((d, i) => [d, i])),
] as Record<string, number>[];
const SHORTHANDS: Record<string, string> = {
  '@yearly': '0 0 1 1 *', '@annually': '0 0 1 1 *', '@monthly': '0 0 1 * *', '@weekly': '0 0 * * 0', '@daily': '0 0 * * *', '@midnight': '0 0 * * *', '@hourly': '0 * * * *',
};

/** A parsed schedule: the allowed values of each field, and whether the day fields were restricted. */
export interface Cron { sets: Set<number>[]; anyDom: boolean; anyDow: boolean }

/** Parse a schedule; throws naming the bad field. */
export function parseCron(spec: string): Cron {
  const parts = (SHORTHANDS[spec.trim().toLowerCase()] ?? spec).trim().split(/\s+/);
  if (parts.length !== 5) throw new Error(`cron "${spec}" does not have five fields`);
  const sets = parts.map((part, f) => {
    const [lo, hi] = FIELDS[f];
    const set = new Set<number>();
    const value = (t: string) => {
      const n = NAMES[f][t.toLowerCase()] ?? (/^\d+$/.test(t) ? Number(t) : NaN);
      const v = f === 4 && n === 7 ? 0 : n;
      if (!(v >= lo && v <= hi)) throw new Error(`cron "${spec}": "${t}" is out of range`);
      return v;
    };
    for (const item of part.split(',')) {
      const [range, stepText] = item.split('/');
      const step = stepText === undefined ? 1 : Number(stepText);
      if (!Number.isInteger(step) || step < 1) throw new Error(`cron "${spec}": bad step "${stepText}"`);
      const [a, b] = range === '*' ? [lo, hi] : range.includes('-') ? range.split('-').map(value) : [value(range), stepText === undefined ? value(range) : hi];
      for (let v = a; v <= b; v += step) set.add(v);
    }
    return set;
  });
  return { sets, anyDom: parts[2] === '*', anyDow: parts[4] === '*' };
}

/** The first minute after `after` (UTC) that the schedule matches. */
export function nextCron(c: Cron, after: Date): Date {
  const t = new Date(Math.floor(after.getTime() / 60_000) * 60_000 + 60_000);
  const [min, hour, dom, month, dow] = c.sets;
  // why: cron's rule: when both day fields are restricted, either one matching is enough.
  const dayOk = (d: Date) => (c.anyDom || c.anyDow ? dom.has(d.getUTCDate()) && dow.has(d.getUTCDay()) : dom.has(d.getUTCDate()) || dow.has(d.getUTCDay()));
  for (let i = 0; i < 366 * 24 * 60 * 5; i++) {
    if (!month.has(t.getUTCMonth() + 1)) {
      t.setUTCMonth(t.getUTCMonth() + 1, 1);
      t.setUTCHours(0, 0, 0, 0);
    } else if (!dayOk(t)) {
      t.setUTCDate(t.getUTCDate() + 1);
      t.setUTCHours(0, 0, 0, 0);
    } else if (!hour.has(t.getUTCHours())) {
      t.setUTCHours(t.getUTCHours() + 1, 0, 0, 0);
    } else if (!min.has(t.getUTCMinutes())) {
      t.setUTCMinutes(t.getUTCMinutes() + 1, 0, 0);
    } else {
      return t;
    }
  }
  throw new Error('the schedule never fires');
}
