/** Finishing a running stopwatch: its time becomes a tracked time, with a history entry. */
import type { DbContext } from '../../db';
import { CommentType } from '../../models/comment.model';
import { nowUnix } from '../../models/issue.model';
import { deleteStopwatch, type StopwatchModel } from '../../models/stopwatch.model';
import { insertTrackedTime } from '../../models/tracked-time.model';
import { record } from './history';

/** Turn a running stopwatch into a tracked time on its issue (inside a transaction). */
export async function finishStopwatch(tx: DbContext, sw: StopwatchModel): Promise<void> {
  const seconds = Math.max(0, nowUnix() - Number(sw.createdUnix));
  const t = await insertTrackedTime(tx, { issueId: sw.issueId, userId: sw.userId, createdUnix: nowUnix(), time: seconds });
  await deleteStopwatch(tx, sw.id);
  await record(tx, { type: CommentType.StopTracking, issueId: sw.issueId, posterId: sw.userId, timeId: t.id, content: `|${seconds}` });
}
