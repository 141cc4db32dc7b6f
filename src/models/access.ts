/**
 * The queries behind permission decisions: enabled units, collaborator modes, team grants and
 * organization membership. Each answers in one query, kept briefly per process (./table-cache:
 * a write to the tables it reads clears it everywhere).
 */
import { QueryTypes } from 'sequelize';
import { db, type DbContext } from '../db';
import type { AccessMode, UnitType } from './perm';
import { TableCache } from './table-cache';

const unitsCache = new TableCache<UnitType[]>('repo-units', ['repo_unit']);
// why: every request on a repository asks these; like the units, they are read far more often than written.
const collaborationCache = new TableCache<AccessMode | null>('collaboration', ['collaboration']);
const teamGrantsCache = new TableCache<TeamGrant[]>('team-grants', ['team', 'team_user', 'team_unit', 'team_repo']);
const membershipCache = new TableCache<'none' | 'member' | 'owner'>('org-membership', ['org_user', 'team_user', 'team']);

/** Enabled unit types of a repository. */
export function enabledUnits(ctx: DbContext, repoId: number): Promise<UnitType[]> {
  return unitsCache.get(ctx, String(repoId), async () => {
    const rows = await db().query<{ type: number }>('SELECT type FROM repo_unit WHERE repo_id = :repoId', {
      replacements: { repoId }, type: QueryTypes.SELECT, transaction: ctx.tx,
    });
    return rows.map((r) => r.type as UnitType);
  });
}

/** The collaborator mode of a user on a repository, or null. */
export function collaboratorMode(ctx: DbContext, repoId: number, userId: number): Promise<AccessMode | null> {
  return collaborationCache.get(ctx, `${repoId}/${userId}`, async () => {
    const rows = await db().query<{ mode: number }>('SELECT mode FROM collaboration WHERE repo_id = :repoId AND user_id = :userId', {
      replacements: { repoId, userId }, type: QueryTypes.SELECT, transaction: ctx.tx,
    });
    return rows.length ? (rows[0].mode as AccessMode) : null;
  });
}

/** One team grant that reaches a repository: the team's mode and its per-unit modes. */
export interface TeamGrant { teamId: number; authorize: AccessMode; units: Map<UnitType, AccessMode> }

/**
 * The grants of every team of `userId` in `orgId` that covers `repoId` (explicitly or through
 * includes_all_repositories). The answer is shared between callers: do not change it.
 */
export function teamGrants(ctx: DbContext, orgId: number, userId: number, repoId: number): Promise<TeamGrant[]> {
  return teamGrantsCache.get(ctx, `${orgId}/${userId}/${repoId}`, () => loadTeamGrants(ctx, orgId, userId, repoId));
}

async function loadTeamGrants(ctx: DbContext, orgId: number, userId: number, repoId: number): Promise<TeamGrant[]> {
  const rows = await db().query<{ team_id: number; authorize: number; unit_type: number | null; access_mode: number | null }>(
    `SELECT t.id AS team_id, t.authorize, u.type AS unit_type, u.access_mode
       FROM team t
       JOIN team_user tu ON tu.team_id = t.id AND tu.uid = :userId
       LEFT JOIN team_unit u ON u.team_id = t.id
      WHERE t.org_id = :orgId
        AND (t.includes_all_repositories = :yes OR EXISTS (SELECT 1 FROM team_repo tr WHERE tr.team_id = t.id AND tr.repo_id = :repoId))`,
    { replacements: { orgId, userId, repoId, yes: true }, type: QueryTypes.SELECT, transaction: ctx.tx },
  );
  const byTeam = new Map<number, TeamGrant>();
  for (const r of rows) {
    let g = byTeam.get(r.team_id);
    if (!g) byTeam.set(r.team_id, (g = { teamId: r.team_id, authorize: r.authorize as AccessMode, units: new Map() }));
    if (r.unit_type !== null) g.units.set(r.unit_type as UnitType, (r.access_mode ?? 0) as AccessMode);
  }
  return [...byTeam.values()];
}

/** Membership of a user in an organization: none, member, or owner (in a team with owner mode). */
export function orgMembership(ctx: DbContext, orgId: number, userId: number): Promise<'none' | 'member' | 'owner'> {
  return membershipCache.get(ctx, `${orgId}/${userId}`, () => loadOrgMembership(ctx, orgId, userId));
}

async function loadOrgMembership(ctx: DbContext, orgId: number, userId: number): Promise<'none' | 'member' | 'owner'> {
  const rows = await db().query<{ owner: number }>(
    `SELECT MAX(CASE WHEN t.authorize >= 4 THEN 1 ELSE 0 END) AS owner
       FROM org_user ou
       LEFT JOIN team_user tu ON tu.org_id = ou.org_id AND tu.uid = ou.uid
       LEFT JOIN team t ON t.id = tu.team_id
      WHERE ou.org_id = :orgId AND ou.uid = :userId
      GROUP BY ou.uid`,
    { replacements: { orgId, userId }, type: QueryTypes.SELECT, transaction: ctx.tx },
  );
  if (rows.length === 0) return 'none';
  return Number(rows[0].owner) === 1 ? 'owner' : 'member';
}

/**
 * What a user's teams in an organization give on its packages (Gitea's determineAccessMode): the
 * highest team mode, and the highest mode of the teams' Packages unit (`packagesUnit`).
 */
export async function orgPackageModes(ctx: DbContext, orgId: number, userId: number, packagesUnit: UnitType): Promise<{ team: AccessMode; unit: AccessMode }> {
  const [row] = await db().query<{ team: number | null; unit: number | null }>(
    `SELECT MAX(t.authorize) AS team, MAX(CASE WHEN u.type = :unit THEN u.access_mode END) AS unit
       FROM team t
       JOIN team_user tu ON tu.team_id = t.id AND tu.uid = :userId
       LEFT JOIN team_unit u ON u.team_id = t.id
      WHERE t.org_id = :orgId`,
    { replacements: { orgId, userId, unit: packagesUnit }, type: QueryTypes.SELECT, transaction: ctx.tx },
  );
  return { team: Number(row?.team ?? 0) as AccessMode, unit: Number(row?.unit ?? 0) as AccessMode };
}
