/** Gitea's issue_pin table: the pinned issues (and, apart, pull requests) of a repository, by position. */
import { QueryTypes } from 'sequelize';
import { db, type DbContext } from '../db';

const select = <T extends object>(ctx: DbContext, sql: string, replacements: Record<string, unknown>) =>
  db().query<T>(sql, { replacements, type: QueryTypes.SELECT, transaction: ctx.tx });
const run = (ctx: DbContext, sql: string, replacements: Record<string, unknown>) => db().query(sql, { replacements, transaction: ctx.tx });

/** Ids of a repository's pinned issues (or pull requests), first pinned position first. */
export async function pinnedIssueIds(ctx: DbContext, repoId: number, isPull: boolean): Promise<number[]> {
  const rows = await select<{ issue_id: number }>(ctx, 'SELECT issue_id FROM issue_pin WHERE repo_id = :repoId AND is_pull = :isPull ORDER BY pin_order, id', { repoId, isPull });
  return rows.map((r) => Number(r.issue_id));
}

/** The pin position of an issue, or 0 when it is not pinned. */
export async function pinOrderOf(ctx: DbContext, issueId: number): Promise<number> {
  const rows = await select<{ pin_order: number }>(ctx, 'SELECT pin_order FROM issue_pin WHERE issue_id = :issueId', { issueId });
  return rows.length ? Number(rows[0].pin_order) : 0;
}

/** Pin an issue after the last pinned one of its kind; returns its position. */
export async function insertPin(ctx: DbContext, repoId: number, issueId: number, isPull: boolean): Promise<number> {
  const rows = await select<{ m: number | null }>(ctx, 'SELECT MAX(pin_order) AS m FROM issue_pin WHERE repo_id = :repoId AND is_pull = :isPull', { repoId, isPull });
  const order = Number(rows[0]?.m ?? 0) + 1;
  await run(ctx, 'INSERT INTO issue_pin (repo_id, issue_id, is_pull, pin_order) VALUES (:repoId, :issueId, :isPull, :order)', { repoId, issueId, isPull, order });
  return order;
}

/** Unpin an issue (the others keep their positions, as Gitea). */
export async function deletePin(ctx: DbContext, issueId: number): Promise<void> {
  await run(ctx, 'DELETE FROM issue_pin WHERE issue_id = :issueId', { issueId });
}

/** Move a pinned issue to `position`, shifting the ones between by one. */
export async function movePin(ctx: DbContext, repoId: number, issueId: number, isPull: boolean, from: number, position: number): Promise<void> {
  if (position === from) return;
  const [lo, hi, step] = position < from ? [position, from - 1, 1] : [from + 1, position, -1];
  await run(ctx, `UPDATE issue_pin SET pin_order = pin_order + ${step} WHERE repo_id = :repoId AND is_pull = :isPull AND pin_order BETWEEN :lo AND :hi`, {
    repoId, isPull, lo, hi,
  });
  await run(ctx, 'UPDATE issue_pin SET pin_order = :position WHERE issue_id = :issueId', { position, issueId });
}
