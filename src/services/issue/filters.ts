/** Turning the `labels` and `milestones` query values of an issue list into ids, as Gitea does. */
import type { DbContext } from '../../db';
import { NotFound } from '../../errors';
import { findUserByName } from '../../models/user.model';
import { findLabelByName } from '../../models/label.model';
import { findMilestone, findMilestoneByName } from '../../models/milestone.model';
import type { RepoContext } from '../repo/context';

const parts = (v?: string) => (v ?? '').split(',').map((s) => s.trim()).filter(Boolean);

/**
 * Labels by name (the repository's own; unknown names are dropped; the issue must have all) and
 * milestones by name, then by id (the issue must have one of them). A filter none of whose
 * values resolve is no filter, as in Gitea.
 */
export async function resolveIssueFilters(
  ctx: DbContext, rc: RepoContext, q: { labels?: string; milestones?: string; createdBy?: string; assignedBy?: string; mentionedBy?: string },
): Promise<{ allLabelIds?: number[]; milestoneIds?: number[]; posterId?: number; assigneeId?: number; mentionedId?: number }> {
  const labelIds: number[] = [];
  for (const name of parts(q.labels)) {
    const l = await findLabelByName(ctx, { repoId: rc.repo.id }, name);
    if (l) labelIds.push(l.id);
  }
  const milestoneIds: number[] = [];
  for (const key of parts(q.milestones)) {
    const m = (await findMilestoneByName(ctx, rc.repo.id, key)) ?? (/^\d+$/.test(key) ? await findMilestone(ctx, rc.repo.id, Number(key)) : null);
    if (m) milestoneIds.push(m.id);
  }
  return {
    allLabelIds: labelIds.length ? labelIds : undefined, milestoneIds: milestoneIds.length ? milestoneIds : undefined,
    posterId: await userId(ctx, q.createdBy), assigneeId: await userId(ctx, q.assignedBy), mentionedId: await userId(ctx, q.mentionedBy),
  };
}

/** The id of a user named in a filter; 404 for an unknown name. */
async function userId(ctx: DbContext, name: string | undefined): Promise<number | undefined> {
  if (!name) return undefined;
  const u = await findUserByName(ctx, name);
  if (!u) throw new NotFound(`user does not exist [uid: 0, name: ${name}]`);
  return u.id;
}
