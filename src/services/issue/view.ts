/**
 * Loading what the Issue JSON shows for a page of issues: posters, labels, milestones, assignees,
 * attachments and pins, each in one query for the whole page.
 */
import type { DbContext } from '../../db';
import { settings } from '../../config';
import type { IssueView } from '../../models/issue-view';
import { issuesInOrder, type IssueModel } from '../../models/issue.model';
import { labelsByIds } from '../../models/label.model';
import { milestonesByIds } from '../../models/milestone.model';
import { issueLinksOf, type IssueLinks } from '../../models/issue-links';
import { listIssueAttachments } from '../../models/attachment.model';
import { findUsersByIds, standIn, type UserModel } from '../../models/user.model';
import { findReposByIds } from '../../models/repository.model';
import type { RepoContext } from '../repo/context';

export type { IssueView };

/** The names of a repository, for URLs. */
export type RepoNames = Map<number, { owner: string; repo: string }>;

/** The names of the repository of a RepoContext. */
export function namesOf(rc: RepoContext): RepoNames {
  return new Map([[rc.repo.id, { owner: rc.owner.name, repo: rc.repo.name }]]);
}

async function repoNames(ctx: DbContext, rows: IssueModel[], known?: RepoNames): Promise<RepoNames> {
  const missing = [...new Set(rows.map((r) => r.repoId))].filter((id) => !known?.has(id));
  const out: RepoNames = new Map(known ?? []);
  for (const r of await findReposByIds(ctx, missing)) out.set(r.id, { owner: r.ownerName, repo: r.name });
  return out;
}

/** Users by id, the Ghost user standing in for deleted ones (and the Actions user for a job's token). */
export async function usersById(ctx: DbContext, ids: number[]): Promise<(id: number) => UserModel> {
  const users = new Map((await findUsersByIds(ctx, [...new Set(ids)].filter((id) => id > 0))).map((u) => [u.id, u]));
  return (id) => users.get(id) ?? standIn(id);
}

/** Views of issues (in their order), loading everything shown in a fixed number of queries. */
export async function issueViews(ctx: DbContext, rows: IssueModel[], known?: RepoNames): Promise<IssueView[]> {
  if (rows.length === 0) return [];
  return viewsOf(ctx, rows, await issueLinksOf(ctx, rows.map((r) => r.id)), known);
}

/**
 * Views of the issues with these ids, in their order (ids without a row are skipped). why: the rows
 * and their links are read at the same time, one round trip less for every listing.
 */
export async function issueViewsByIds(ctx: DbContext, ids: number[], known?: RepoNames): Promise<IssueView[]> {
  if (ids.length === 0) return [];
  const [rows, links] = await Promise.all([issuesInOrder(ctx, ids), issueLinksOf(ctx, ids)]);
  return viewsOf(ctx, rows, links, known);
}

async function viewsOf(ctx: DbContext, rows: IssueModel[], links: IssueLinks, known?: RepoNames): Promise<IssueView[]> {
  const [names, labels, milestones, assets, user] = await Promise.all([
    repoNames(ctx, rows, known), labelsByIds(ctx, [...links.labelIds.values()].flat()), milestonesByIds(ctx, rows.map((r) => r.milestoneId)),
    listIssueAttachments(ctx, [...links.withAttachments]),
    usersById(ctx, [...rows.map((r) => r.posterId), ...[...links.assigneeIds.values()].flat()]),
  ]);
  const milestoneById = new Map(milestones.map((m) => [m.id, m]));
  const labelById = new Map(labels.map((l) => [l.id, l]));
  const rootUrl = settings().server.rootUrl;
  return rows.map((row) => {
    const n = names.get(row.repoId) ?? { owner: '', repo: '' };
    const own = (links.labelIds.get(row.id) ?? []).map((id) => labelById.get(id)).filter((l) => !!l)
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id - b.id));
    return {
      row,
      repo: { rootUrl, repoId: row.repoId, owner: n.owner, repo: n.repo },
      parts: {
        poster: user(row.posterId),
        labels: own.map((label) => ({ label, owner: n.owner, repo: label.orgId ? undefined : n.repo })),
        milestone: milestoneById.get(row.milestoneId) ?? null,
        assignees: (links.assigneeIds.get(row.id) ?? []).map(user),
        assets: assets.filter((a) => a.issueId === row.id),
        pinOrder: links.pinOrders.get(row.id) ?? 0,
      },
    };
  });
}
