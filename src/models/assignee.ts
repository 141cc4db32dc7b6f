/**
 * Who may be assigned to a repository's issues: users with write access (Gitea's GetRepoAssignees);
 * and who may be asked to review its pull requests (Gitea's GetReviewers).
 */
import { literal, Op, QueryTypes } from 'sequelize';
import { db, type DbContext } from '../db';
import { UserModel } from './user.model';

/**
 * Active individual users with write access to `repoId`: collaborators with write or admin, the
 * owner when it is a user, and for organization repositories the members of teams that reach the
 * repository with write access (as the team's mode or on one of its units). Ordered by name.
 */
export async function listRepoAssignees(ctx: DbContext, repoId: number, ownerId: number, ownerIsOrg: boolean): Promise<UserModel[]> {
  const rows = await db().query<{ uid: number }>(
    `SELECT c.user_id AS uid FROM collaboration c WHERE c.repo_id = :repoId AND c.mode >= 2
     UNION
     SELECT tu.uid FROM team t
       JOIN team_user tu ON tu.team_id = t.id
      WHERE :isOrg = 1 AND t.org_id = :ownerId
        AND (t.includes_all_repositories = :yes OR EXISTS (SELECT 1 FROM team_repo tr WHERE tr.team_id = t.id AND tr.repo_id = :repoId))
        AND (t.authorize >= 2 OR EXISTS (SELECT 1 FROM team_unit u WHERE u.team_id = t.id AND u.access_mode >= 2))`,
    { replacements: { repoId, ownerId, isOrg: ownerIsOrg ? 1 : 0, yes: true }, type: QueryTypes.SELECT, transaction: ctx.tx },
  );
  const ids = new Set(rows.map((r) => Number(r.uid)));
  if (!ownerIsOrg) ids.add(ownerId);
  if (ids.size === 0) return [];
  return UserModel.findAll({ where: { id: [...ids], type: 0, isActive: true }, order: [['lowerName', 'ASC']], transaction: ctx.tx });
}

/**
 * Active individual users who may be asked to review a repository's pull requests, as Gitea's
 * GetReviewers: collaborators (any mode), for an organization's repository the members of teams
 * that reach it with at least read on pull requests, and a user owner; less `posterId`, and only
 * users `visibleUsers` (a users-table condition of numbers, from visibleUsersSql) lets the caller
 * see. Ordered by name, the owner last when it is not a collaborator, as Gitea appends it.
 */
export async function listRepoReviewerCandidates(
  ctx: DbContext, repo: { id: number; ownerId: number; ownerIsOrg: boolean }, posterId: number, visibleUsers: string,
): Promise<UserModel[]> {
  const rows = await db().query<{ uid: number }>(
    `SELECT c.user_id AS uid FROM collaboration c WHERE c.repo_id = :repoId AND c.mode >= 1
     UNION
     SELECT tu.uid FROM team t
       JOIN team_user tu ON tu.team_id = t.id
      WHERE :isOrg = 1 AND t.org_id = :ownerId
        AND (t.includes_all_repositories = :yes OR EXISTS (SELECT 1 FROM team_repo tr WHERE tr.team_id = t.id AND tr.repo_id = :repoId))
        AND (t.authorize >= 3 OR EXISTS (SELECT 1 FROM team_unit u WHERE u.team_id = t.id AND u.type = 3 AND u.access_mode >= 1))`,
    { replacements: { repoId: repo.id, ownerId: repo.ownerId, isOrg: repo.ownerIsOrg ? 1 : 0, yes: true }, type: QueryTypes.SELECT, transaction: ctx.tx },
  );
  const ids = new Set(rows.map((r) => Number(r.uid)));
  ids.delete(posterId);
  const owner = !repo.ownerIsOrg && repo.ownerId !== posterId && !ids.has(repo.ownerId) ? [repo.ownerId] : [];
  const find = (list: number[]) => (list.length === 0 ? Promise.resolve([]) : UserModel.findAll({
    where: { [Op.and]: [{ id: list, type: 0, isActive: true }, literal(visibleUsers)] }, order: [['lowerName', 'ASC']], transaction: ctx.tx,
  }));
  return [...(await find([...ids])), ...(await find(owner))];
}
