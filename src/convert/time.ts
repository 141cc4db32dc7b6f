/** RFC 3339 time as Go's encoding/json writes it (seconds precision, `Z` for UTC). */
export function isoTime(d: Date | null | undefined): string {
  return (d ?? new Date(0)).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** A query's time as Unix seconds (undefined stays undefined). */
export function unixSeconds(d?: Date): number | undefined {
  return d ? Math.floor(d.getTime() / 1000) : undefined;
}

/** Go's zero time as Gitea prints it, for a time never set. */
export const ZERO_TIME = '0001-01-01T00:00:00Z';
