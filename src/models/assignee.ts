/** Who may be assigned to a repository's issues: users with write access (Gitea's GetRepoAssignees). */
import { QueryTypes } from 'sequelize';
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
