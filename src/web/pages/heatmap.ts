/**
 * The contribution calendar of a profile: the heatmap's 15-minute buckets summed into the
 * server's days, laid out as Gitea's is (a column per week, Sunday on top, the last 53 weeks up to
 * today), each day given one of five levels of its count against the busiest day.
 */
import type { HeatmapBucket } from '../../models/action.model';

/** One day of the calendar. */
export interface HeatmapDay { date: string; count: number; level: 0 | 1 | 2 | 3 | 4 }

/** The calendar: its days, oldest first (the first one a Sunday), and their total. */
export interface HeatmapCalendar { days: HeatmapDay[]; total: number }

function dayKey(d: Date): string {
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

/** Lay the buckets out as a calendar ending `now` (server-local days, as the feeds' date filter). */
export function heatmapCalendar(buckets: HeatmapBucket[], now = new Date()): HeatmapCalendar {
  const perDay = new Map<string, number>();
  for (const b of buckets) {
    const key = dayKey(new Date(b.timestamp * 1000));
    perDay.set(key, (perDay.get(key) ?? 0) + b.contributions);
  }
  const today = new Date(now.getFullYear(), now.getMonth(), now.getDate());
  const start = new Date(today.getFullYear(), today.getMonth(), today.getDate() - today.getDay() - 52 * 7);
  const days: HeatmapDay[] = [];
  for (let d = start; d <= today; d = new Date(d.getFullYear(), d.getMonth(), d.getDate() + 1)) {
    days.push({ date: dayKey(d), count: perDay.get(dayKey(d)) ?? 0, level: 0 });
  }
  const max = Math.max(0, ...days.map((d) => d.count));
  for (const d of days) d.level = d.count === 0 ? 0 : (Math.min(4, 1 + Math.floor((3 * d.count) / max)) as HeatmapDay['level']);
  return { days, total: days.reduce((n, d) => n + d.count, 0) };
}
