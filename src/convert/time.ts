/** RFC 3339 time as Go's encoding/json writes it (seconds precision, `Z` for UTC). */
export function isoTime(d: Date | null | undefined): string {
  return (d ?? new Date(0)).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
