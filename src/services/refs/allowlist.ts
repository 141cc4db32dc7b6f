/**
 * The user and team names of a protection rule's allow-lists, as ids (tag and branch rules share
 * Gitea's messages for names that do not exist).
 */
import type { DbContext } from '../../db';
import { Validation } from '../../errors';
import { UserType, findUserByName } from '../../models/user.model';
import { findTeamByName } from '../../models/team.model';
import type { RepoContext } from '../repo/context';

/** The ids of users by name; 422 for a name that is no user. */
export async function allowlistUserIds(ctx: DbContext, names: string[]): Promise<number[]> {
  const ids: number[] = [];
  for (const name of names) {
    const u = await findUserByName(ctx, name);
    if (!u) throw new Validation(`user does not exist [uid: 0, name: ${name}]`);
    ids.push(u.id);
  }
  return [...new Set(ids)];
}

/** The ids of the owner's teams by name; 422 for an unknown team. */
export async function allowlistTeamIds(ctx: DbContext, rc: RepoContext, names: string[]): Promise<number[]> {
  // why: as in Gitea, teams only mean something for an organization's repository; elsewhere they are ignored.
  if (rc.owner.type !== UserType.Organization) return [];
  const ids: number[] = [];
  for (const name of names) {
    const t = await findTeamByName(ctx, rc.owner.id, name);
    if (!t) throw new Validation(`team does not exist [org_id ${rc.owner.id}, team_id 0, name: ${name}]`);
    ids.push(t.id);
  }
  return [...new Set(ids)];
}
