/**
 * Gitea's pull_request table: the row beside a pull request's issue with its head and base, its
 * last mergeability check (status, merge base, conflicted files, commits ahead and behind) and,
 * once merged, the merge.
 */
import { Op } from 'sequelize';
import { Table, Column, Model, DataType } from 'sequelize-typescript';
import type { DbContext } from '../db';
import { settings } from '../config';
import { IssueModel } from './issue.model';
import { TableCache } from './table-cache';

/** Gitea's PullRequestStatus. */
export enum PullStatus { Conflict = 0, Checking = 1, Mergeable = 2, ManuallyMerged = 3, Error = 4, Empty = 5, Ancestor = 6 }

/** Gitea's PullRequestFlow: a head branch (0) or an AGit push to refs/for/<base> (1). */
export enum PullFlow { GitHub = 0, AGit = 1 }

@Table({ tableName: 'pull_request', underscored: true, timestamps: false })
export class PullRequestModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare issueId: number;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare index: number;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare flow: PullFlow;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare status: PullStatus;
  /** JSON array of up to 10 paths. */
  @Column({ type: DataType.TEXT, allowNull: false, defaultValue: '[]' }) declare conflictedFiles: string;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare commitsAhead: number;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare commitsBehind: number;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare headRepoId: number;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare baseRepoId: number;
  @Column({ type: DataType.TEXT, allowNull: false, defaultValue: '' }) declare headBranch: string;
  @Column({ type: DataType.TEXT, allowNull: false, defaultValue: '' }) declare baseBranch: string;
  @Column({ type: DataType.STRING(64), allowNull: false, defaultValue: '' }) declare mergeBase: string;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare allowMaintainerEdit: boolean;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare hasMerged: boolean;
  @Column({ type: DataType.STRING(64), allowNull: false, defaultValue: '' }) declare mergedCommitId: string;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare mergerId: number;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare mergedUnix: number;
}

/** Is the title a work-in-progress one ([repository.pull-request] WORK_IN_PROGRESS_PREFIXES, any case)? Drafts cannot be merged. */
export function isDraftTitle(title: string): boolean {
  const t = title.toLowerCase();
  return settings().repositoryPullRequest.workInProgressPrefixes.some((p) => p !== '' && t.startsWith(p.toLowerCase()));
}

/** The fields of a new pull request row. */
export type NewPull = Pick<PullRequestModel, 'issueId' | 'index' | 'flow' | 'status' | 'headRepoId' | 'baseRepoId' | 'headBranch' | 'baseBranch' | 'mergeBase'>
  & Partial<Pick<PullRequestModel, 'conflictedFiles' | 'commitsAhead' | 'commitsBehind' | 'allowMaintainerEdit' | 'hasMerged' | 'mergedCommitId' | 'mergerId' | 'mergedUnix'>>;

/** Insert a pull request row. */
export function insertPull(ctx: DbContext, fields: NewPull): Promise<PullRequestModel> {
  return PullRequestModel.create({ ...fields }, { transaction: ctx.tx });
}

/** The pull request rows of issues, by issue id. */
export async function pullsOfIssues(ctx: DbContext, issueIds: number[]): Promise<Map<number, PullRequestModel>> {
  if (issueIds.length === 0) return new Map();
  const rows = await PullRequestModel.findAll({ where: { issueId: { [Op.in]: issueIds } }, transaction: ctx.tx });
  return new Map(rows.map((r) => [r.issueId, r]));
}

/** One pull request row by id (locked for update inside a PostgreSQL transaction). */
export function findPullById(ctx: DbContext, id: number): Promise<PullRequestModel | null> {
  return PullRequestModel.findByPk(id, { transaction: ctx.tx, lock: ctx.tx ? true : undefined });
}

/** Save changed columns. */
export async function savePull(ctx: DbContext, row: PullRequestModel): Promise<void> {
  await row.save({ transaction: ctx.tx });
}

// why: every branch listing by a reader asks whether some base's maintainers may push to a branch; that is rare and changes with pull requests only.
const maintainerHeads = new TableCache<{ headBranch: string; baseRepoId: number }[]>('maintainer-heads', ['pull_request', 'issue']);

/** The head branches of `headRepoId` that an open pull request lets its base's maintainers push to, with the base. */
export function maintainerEditHeads(ctx: DbContext, headRepoId: number): Promise<{ headBranch: string; baseRepoId: number }[]> {
  return maintainerHeads.get(ctx, String(headRepoId), async () => (await openPullsOn(ctx, 'head', headRepoId, 'any', { allowMaintainerEdit: true }))
    .map((r) => ({ headBranch: r.headBranch, baseRepoId: r.baseRepoId })));
}

/** Open pull requests (not merged, issue not closed) of a base repository and branches, or of a head; `extra` narrows further. */
export async function openPullsOn(
  ctx: DbContext, side: 'base' | 'head', repoId: number, branches: string[] | 'any', extra: { allowMaintainerEdit?: boolean } = {},
): Promise<PullRequestModel[]> {
  if (branches.length === 0) return [];
  const names = branches === 'any' ? {} : { [side === 'base' ? 'baseBranch' : 'headBranch']: { [Op.in]: branches } };
  const where = side === 'base' ? { baseRepoId: repoId, ...names } : { headRepoId: repoId, ...names };
  const rows = await PullRequestModel.findAll({ where: { ...where, ...extra, hasMerged: false }, transaction: ctx.tx });
  if (rows.length === 0) return [];
  const open = await IssueModel.findAll({ attributes: ['id'], where: { id: { [Op.in]: rows.map((r) => r.issueId) }, isClosed: false }, transaction: ctx.tx });
  const ids = new Set(open.map((i) => i.id));
  return rows.filter((r) => ids.has(r.issueId));
}

/** The open, unmerged pull request of the GitHub flow from this head to this base, if any. */
export async function findOpenPullFor(ctx: DbContext, head: { repoId: number; branch: string }, base: { repoId: number; branch: string }, flow = PullFlow.GitHub): Promise<PullRequestModel | null> {
  const rows = await openPullsOn(ctx, 'head', head.repoId, [head.branch]);
  return rows.find((r) => r.baseRepoId === base.repoId && r.baseBranch === base.branch && r.flow === flow) ?? null;
}

/** A pull request of any state from this head to this base (Gitea's GetPullRequestByBaseHeadInfo: the first found). */
export function findPullByBaseHead(ctx: DbContext, baseRepoId: number, baseBranch: string, headRepoId: number, headBranch: string): Promise<PullRequestModel | null> {
  return PullRequestModel.findOne({ where: { baseRepoId, baseBranch, headRepoId, headBranch }, order: [['id', 'ASC']], transaction: ctx.tx });
}

/** The merged pull request of a repository whose merge commit is `sha`. */
export function findPullByMergedCommit(ctx: DbContext, baseRepoId: number, sha: string): Promise<PullRequestModel | null> {
  return PullRequestModel.findOne({ where: { baseRepoId, mergedCommitId: sha, hasMerged: true }, transaction: ctx.tx });
}

/** Pull requests of a base repository merged since `since` (unix seconds), newest first, at most `limit`. */
export function pullsMergedSince(ctx: DbContext, baseRepoId: number, since: number, limit: number): Promise<PullRequestModel[]> {
  return PullRequestModel.findAll({ where: { baseRepoId, hasMerged: true, mergedUnix: { [Op.gte]: since } }, order: [['mergedUnix', 'DESC'], ['id', 'DESC']], limit, transaction: ctx.tx });
}
