/**
 * System notices for site administrators (Gitea's `/-/admin/notices`): written when something in
 * the background fails that an administrator should read (a periodic task), listed newest first,
 * deleted by selection or all at once.
 */
import { systemCtx, type DbContext } from '../../db';
import { Validation } from '../../errors';
import { nowUnix } from '../../models/issue.model';
import { deleteAllNotices, deleteNoticesByIds, insertNotice, listNotices, NoticeType, type NoticeModel } from '../../models/notice.model';

export { NoticeType };

const MAX_DESCRIPTION = 65536;

/** Record a notice; a failure to record it is logged, never thrown (the caller is already failing). */
export async function createNotice(type: NoticeType, description: string): Promise<void> {
  await insertNotice(systemCtx, type, [...description].slice(0, MAX_DESCRIPTION).join(''), nowUnix())
    .catch((err: unknown) => console.error('notice:', err));
}

/** One page of notices, newest first. */
export function noticePage(ctx: DbContext, limit: number, offset: number): Promise<{ rows: NoticeModel[]; count: number }> {
  return listNotices(ctx, { limit, offset });
}

/** Delete the selected notices (positive integer ids; 422 for none); how many went. */
export async function deleteNotices(ctx: DbContext, ids: unknown[]): Promise<number> {
  const valid = ids.map(Number).filter((n) => Number.isInteger(n) && n > 0);
  if (valid.length === 0) throw new Validation('Select the notices to delete.');
  return deleteNoticesByIds(ctx, valid);
}

/** Delete every notice; how many went. */
export function deleteEveryNotice(ctx: DbContext): Promise<number> {
  return deleteAllNotices(ctx);
}
