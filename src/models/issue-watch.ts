/** Gitea's issue_watch table: explicit subscriptions (and unsubscriptions) of users to issues. */
import { QueryTypes } from 'sequelize';
import { db, type DbContext } from '../db';
import { nowUnix } from './issue.model';

const select = <T extends object>(ctx: DbContext, sql: string, replacements: Record<string, unknown>) =>
  db().query<T>(sql, { replacements, type: QueryTypes.SELECT, transaction: ctx.tx });

/** A user's explicit choice on an issue: true (subscribed), false (unsubscribed) or null (none). */
export async function explicitWatch(ctx: DbContext, userId: number, issueId: number): Promise<boolean | null> {
  const rows = await select<{ is_watching: boolean | number }>(ctx, 'SELECT is_watching FROM issue_watch WHERE user_id = :userId AND issue_id = :issueId', { userId, issueId });
  return rows.length ? Boolean(rows[0].is_watching) : null;
}

/** Store a user's explicit choice on an issue. */
export async function setWatch(ctx: DbContext, userId: number, issueId: number, watching: boolean): Promise<void> {
  const now = nowUnix();
  await db().query(
    `INSERT INTO issue_watch (user_id, issue_id, is_watching, created_unix, updated_unix) VALUES (:userId, :issueId, :watching, :now, :now)
     ON CONFLICT (issue_id, user_id) DO UPDATE SET is_watching = :watching, updated_unix = :now`,
    { replacements: { userId, issueId, watching, now }, transaction: ctx.tx },
  );
}

/** Ids of users explicitly subscribed to an issue (active, allowed to sign in), one page when `limit` is given. */
export async function watcherIds(ctx: DbContext, issueId: number, limit?: number, offset?: number): Promise<{ ids: number[]; count: number }> {
  const from = `FROM issue_watch w JOIN users u ON u.id = w.user_id
    WHERE w.issue_id = :issueId AND w.is_watching = :yes AND u.is_active = :yes AND u.prohibit_login = :no`;
  const page = limit === undefined ? '' : ` LIMIT ${Math.trunc(limit)} OFFSET ${Math.trunc(offset ?? 0)}`;
  const rows = await select<{ id: number }>(ctx, `SELECT w.user_id AS id ${from} ORDER BY w.id${page}`, { issueId, yes: true, no: false });
  const n = limit === undefined ? rows.length : Number((await select<{ n: number | string }>(ctx, `SELECT COUNT(*) AS n ${from}`, { issueId, yes: true, no: false }))[0].n);
  return { ids: rows.map((r) => Number(r.id)), count: n };
}

/** Is the user a participant of the issue: its poster, the author of a comment or review on it, or mentioned in it? */
export async function isParticipant(ctx: DbContext, userId: number, issueId: number): Promise<boolean> {
  const rows = await select(ctx, `SELECT 1 AS x FROM issue WHERE id = :issueId AND poster_id = :userId
    UNION SELECT 1 AS x FROM comment WHERE issue_id = :issueId AND poster_id = :userId AND type IN (0, 21, 22)
    UNION SELECT 1 AS x FROM issue_user WHERE issue_id = :issueId AND uid = :userId AND is_mentioned = :yes`, { issueId, userId, yes: true });
  return rows.length > 0;
}

/**
 * Who follows an issue for its notifications (Gitea's broadcast receivers): its explicit
 * subscribers, its participants (the poster, and active authors of comments and reviews) and, with
 * `repoWatchers`, the repository's watchers; less users who unsubscribed from it.
 */
export async function followerIds(ctx: DbContext, issueId: number, repoWatchers: boolean): Promise<number[]> {
  const watchers = repoWatchers ? 'UNION SELECT w.user_id AS id FROM watch w JOIN issue i ON i.repo_id = w.repo_id WHERE i.id = :issueId AND w.mode <> 2' : '';
  const rows = await select<{ id: number }>(ctx, `SELECT id FROM (
      SELECT user_id AS id FROM issue_watch WHERE issue_id = :issueId AND is_watching = :yes
      UNION SELECT poster_id AS id FROM issue WHERE id = :issueId
      UNION SELECT c.poster_id AS id FROM comment c JOIN users u ON u.id = c.poster_id
        WHERE c.issue_id = :issueId AND c.type IN (0, 21, 22) AND u.is_active = :yes AND u.prohibit_login = :no
      ${watchers}) AS f
    WHERE id NOT IN (SELECT user_id FROM issue_watch WHERE issue_id = :issueId AND is_watching = :no)`, { issueId, yes: true, no: false });
  return rows.map((r) => Number(r.id));
}

/** Users who unsubscribed from an issue (an explicit `is_watching = false`). */
export async function unwatcherIds(ctx: DbContext, issueId: number): Promise<number[]> {
  const rows = await select<{ id: number }>(ctx, 'SELECT user_id AS id FROM issue_watch WHERE issue_id = :issueId AND is_watching = :no', { issueId, no: false });
  return rows.map((r) => Number(r.id));
}
