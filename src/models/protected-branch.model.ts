/**
 * Gitea's protected_branch: a rule (a branch name, or a glob over branch names) with who may push,
 * force-push and merge, and what a merge needs (approvals, status checks, reviews). Lists of user
 * and team ids are JSON arrays in TEXT columns, as in protected_tag.
 */
import type { DbContext } from '../db';
import { Op } from 'sequelize';
import { Table, Column, Model, DataType } from 'sequelize-typescript';
import { readOnlyRow, TableCache } from './table-cache';

const flag = { type: DataType.BOOLEAN, allowNull: false, defaultValue: false };
const ids = { type: DataType.TEXT, allowNull: false, defaultValue: '[]' };

@Table({ tableName: 'protected_branch', underscored: true, timestamps: true })
export class ProtectedBranchModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare repoId: number;
  @Column({ type: DataType.STRING(255), allowNull: false }) declare ruleName: string;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare priority: number;
  @Column(flag) declare canPush: boolean;
  @Column(flag) declare enablePushAllowlist: boolean;
  @Column(ids) declare pushAllowlistUserIds: string;
  @Column(ids) declare pushAllowlistTeamIds: string;
  @Column(flag) declare pushAllowlistDeployKeys: boolean;
  @Column(flag) declare canForcePush: boolean;
  @Column(flag) declare enableForcePushAllowlist: boolean;
  @Column(ids) declare forcePushAllowlistUserIds: string;
  @Column(ids) declare forcePushAllowlistTeamIds: string;
  @Column(flag) declare forcePushAllowlistDeployKeys: boolean;
  @Column(flag) declare enableMergeAllowlist: boolean;
  @Column(ids) declare mergeAllowlistUserIds: string;
  @Column(ids) declare mergeAllowlistTeamIds: string;
  @Column(flag) declare enableStatusCheck: boolean;
  @Column(ids) declare statusCheckContexts: string;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare requiredApprovals: number;
  @Column(flag) declare enableApprovalsAllowlist: boolean;
  @Column(ids) declare approvalsAllowlistUserIds: string;
  @Column(ids) declare approvalsAllowlistTeamIds: string;
  @Column(flag) declare blockOnRejectedReviews: boolean;
  @Column(flag) declare blockOnOfficialReviewRequests: boolean;
  @Column(flag) declare blockOnOutdatedBranch: boolean;
  @Column(flag) declare dismissStaleApprovals: boolean;
  @Column(flag) declare ignoreStaleApprovals: boolean;
  @Column(flag) declare requireSignedCommits: boolean;
  @Column({ type: DataType.TEXT, allowNull: false, defaultValue: '' }) declare protectedFilePatterns: string;
  @Column({ type: DataType.TEXT, allowNull: false, defaultValue: '' }) declare unprotectedFilePatterns: string;
  @Column(flag) declare blockAdminMergeOverride: boolean;
  declare createdAt: Date;
  declare updatedAt: Date;
}

/** Gitea's IsRuleNameSpecial: a rule name with a regular-expression metacharacter is a glob. */
export function isGlobRule(ruleName: string): boolean {
  return /[\\.+*?()|[\]{}^$]/.test(ruleName);
}

// why: every branch listing and push asks for a repository's rules, which change only from settings.
const rulesCache = new TableCache<ProtectedBranchModel[]>('protected-branch', ['protected_branch']);

/** Every rule of a repository, oldest first (read-only rows outside a transaction). */
export function listProtectedBranches(ctx: DbContext, repoId: number): Promise<ProtectedBranchModel[]> {
  return rulesCache.get(ctx, String(repoId), async () => {
    const rows = await ProtectedBranchModel.findAll({ where: { repoId }, order: [['id', 'ASC']], transaction: ctx.tx });
    return ctx.tx ? rows : rows.map(readOnlyRow);
  });
}

/** The rule with exactly this name, or null. */
export function findProtectedBranch(ctx: DbContext, repoId: number, ruleName: string): Promise<ProtectedBranchModel | null> {
  return ProtectedBranchModel.findOne({ where: { repoId, ruleName }, transaction: ctx.tx });
}

/** The highest priority given in the repository (0 without rules). */
export async function maxProtectedBranchPriority(ctx: DbContext, repoId: number): Promise<number> {
  return Number((await ProtectedBranchModel.max('priority', { where: { repoId }, transaction: ctx.tx })) ?? 0);
}

/** Insert a rule (a duplicate name violates the unique index). */
export function insertProtectedBranch(ctx: DbContext, repoId: number, fields: Record<string, unknown>): Promise<ProtectedBranchModel> {
  return ProtectedBranchModel.create({ ...fields, repoId }, { transaction: ctx.tx });
}

/** Save changed columns of a rule. */
export async function saveProtectedBranch(ctx: DbContext, row: ProtectedBranchModel): Promise<void> {
  row.changed('updatedAt', true);
  await row.save({ transaction: ctx.tx });
}

/** Give a rule a new name (its branch was renamed). */
export async function renameProtectedBranch(ctx: DbContext, row: ProtectedBranchModel, ruleName: string): Promise<void> {
  row.ruleName = ruleName;
  await saveProtectedBranch(ctx, row);
}

/** Delete a rule by name; false when there was none. */
export async function deleteProtectedBranch(ctx: DbContext, repoId: number, ruleName: string): Promise<boolean> {
  return (await ProtectedBranchModel.destroy({ where: { repoId, ruleName }, transaction: ctx.tx })) > 0;
}

/** Give the rules `ids` (of this repository; others are ignored) the priorities 1, 2, ... in that order. */
export async function setProtectedBranchPriorities(ctx: DbContext, repoId: number, ruleIds: number[]): Promise<void> {
  const rows = await ProtectedBranchModel.findAll({ where: { repoId, id: { [Op.in]: ruleIds } }, transaction: ctx.tx });
  const byId = new Map(rows.map((r) => [r.id, r]));
  for (const [k, id] of ruleIds.entries()) {
    const row = byId.get(id);
    if (!row) continue;
    row.priority = k + 1;
    await row.save({ transaction: ctx.tx });
  }
}
