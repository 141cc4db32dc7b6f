/**
 * Writing an issue's timeline: a history entry (or comment) in the caller's transaction, which also
 * bumps the issue's update time and keeps its comment count and the keyword index in step.
 * why: the timeline is read at once after the change, so it is written with the change itself.
 */
import type { DbContext } from '../../db';
import { Validation } from '../../errors';
import { CommentType, COUNTED_TYPES, insertComment, type CommentModel, type NewComment } from '../../models/comment.model';
import { addIssueComments, touchIssue } from '../../models/issue.model';
import { indexCommentText } from '../../models/issue-search';

/** Record a comment or history entry on an issue (inside a transaction). */
export async function record(tx: DbContext, c: NewComment): Promise<CommentModel> {
  const row = await insertComment(tx, c);
  if (COUNTED_TYPES.includes(c.type)) await addIssueComments(tx, c.issueId, 1);
  if (c.type === CommentType.Comment && row.content) await indexCommentText(tx, row, row.content);
  await touchIssue(tx, c.issueId);
  return row;
}

/** An RFC 3339 value from the API as Unix seconds; 422 naming the field when it is not one. */
export function parseApiTime(v: string, field: string): number {
  const ms = Date.parse(v);
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/i.test(v) || Number.isNaN(ms)) {
    throw new Validation(`[${field}]: parsing time ${JSON.stringify(v)} as "2006-01-02T15:04:05Z07:00": cannot parse`);
  }
  return Math.floor(ms / 1000);
}

/**
 * 23:59:59 of the date of an RFC 3339 value (Gitea's due dates: "only the date is taken into
 * account"), in the value's own offset, or in UTC (the server's zone) when `ownOffset` is false.
 */
export function endOfDay(v: string, field: string, ownOffset = true): number {
  const at = parseApiTime(v, field);
  const m = /(Z|([+-])(\d{2}):(\d{2}))$/i.exec(v)!;
  const offset = !ownOffset || m[1].toUpperCase() === 'Z' ? 0 : (m[2] === '-' ? -1 : 1) * (Number(m[3]) * 3600 + Number(m[4]) * 60);
  const local = at + offset;
  return local - (((local % 86400) + 86400) % 86400) + 86399 - offset;
}

/** The date part (YYYY-MM-DD, UTC) of Unix seconds, as deadline history entries carry it. */
export function dateOf(unix: number): string {
  return new Date(unix * 1000).toISOString().slice(0, 10);
}
