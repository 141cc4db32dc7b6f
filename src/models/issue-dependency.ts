/** Gitea's issue_dependency table: `issue_id` depends on (is blocked by) `dependency_id`. */
import { QueryTypes } from 'sequelize';
import { db, type DbContext } from '../db';
import { nowUnix } from './issue.model';

const select = <T extends object>(ctx: DbContext, sql: string, replacements: Record<string, unknown>) =>
  db().query<T>(sql, { replacements, type: QueryTypes.SELECT, transaction: ctx.tx });

/** Ids of the issues that block `issueId` (its dependencies), or that `issueId` blocks. */
export async function dependencyIds(ctx: DbContext, issueId: number, side: 'blockers' | 'blocked'): Promise<number[]> {
  const sql = side === 'blockers'
    ? 'SELECT dependency_id AS id FROM issue_dependency WHERE issue_id = :issueId'
    : 'SELECT issue_id AS id FROM issue_dependency WHERE dependency_id = :issueId';
  return (await select<{ id: number }>(ctx, sql, { issueId })).map((r) => Number(r.id));
}

/** Does `issueId` depend on `dependencyId`? */
export async function dependencyExists(ctx: DbContext, issueId: number, dependencyId: number): Promise<boolean> {
  const rows = await select(ctx, 'SELECT 1 AS x FROM issue_dependency WHERE issue_id = :issueId AND dependency_id = :dependencyId', { issueId, dependencyId });
  return rows.length > 0;
}

/** Record that `issueId` depends on `dependencyId`. */
export async function insertDependency(ctx: DbContext, userId: number, issueId: number, dependencyId: number): Promise<void> {
  const now = nowUnix();
  await db().query('INSERT INTO issue_dependency (user_id, issue_id, dependency_id, created_unix, updated_unix) VALUES (:userId, :issueId, :dependencyId, :now, :now)', {
    replacements: { userId, issueId, dependencyId, now }, transaction: ctx.tx,
  });
}

/** Remove the dependency of `issueId` on `dependencyId`. */
export async function deleteDependency(ctx: DbContext, issueId: number, dependencyId: number): Promise<void> {
  await db().query('DELETE FROM issue_dependency WHERE issue_id = :issueId AND dependency_id = :dependencyId', {
    replacements: { issueId, dependencyId }, transaction: ctx.tx,
  });
}

/** How many of an issue's blockers are still open. */
export async function openBlockerCount(ctx: DbContext, issueId: number): Promise<number> {
  const rows = await select<{ n: number | string }>(ctx,
    'SELECT COUNT(*) AS n FROM issue_dependency d JOIN issue i ON i.id = d.dependency_id WHERE d.issue_id = :issueId AND i.is_closed = :no',
    { issueId, no: false });
  return Number(rows[0]?.n ?? 0);
}
