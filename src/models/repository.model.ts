/** A repository; git owns its refs, these columns are a cache and its settings. */
import { createHash } from 'node:crypto';
import { db, type DbContext } from '../db';
import { Op, QueryTypes, literal, type WhereOptions } from 'sequelize';
import { Table, Column, Model, DataType } from 'sequelize-typescript';
import { RepoUnitModel } from './repo-unit.model';
import { CollaborationModel } from './collaboration.model';
import { TeamRepoModel } from './team-repo.model';
import { deleteDeployKeysOfRepo } from './deploy-key.model';
import { deleteTrackerOfRepo } from './issue-links';
import { deleteProjectsOf } from './project.model';
import { UserModel } from './user.model';
import { deleteWebhooksOf } from './webhook.model';
import { deleteActionsSettingsOf } from './action-variable.model';
import { OrgUserModel } from './org-user.model';
import type { UnitType } from './perm';
import { readOnlyRow, TableCache } from './table-cache';

@Table({ tableName: 'repository', underscored: true, timestamps: true })
export class RepositoryModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare ownerId: number;
  @Column({ type: DataType.STRING(255), allowNull: false }) declare ownerName: string;
  @Column({ type: DataType.STRING(255), allowNull: false }) declare lowerName: string;
  @Column({ type: DataType.STRING(255), allowNull: false }) declare name: string;
  @Column({ type: DataType.TEXT, allowNull: false, defaultValue: '' }) declare description: string;
  @Column({ type: DataType.STRING(2048), allowNull: false, defaultValue: '' }) declare website: string;
  @Column({ type: DataType.STRING(255), allowNull: false, defaultValue: 'main' }) declare defaultBranch: string;
  /** The wiki's branch (Gitea's default_wiki_branch; new repositories get Gitea's default branch setting, main). */
  @Column({ type: DataType.STRING(255), allowNull: false, defaultValue: 'main' }) declare defaultWikiBranch: string;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare isPrivate: boolean;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: true }) declare isEmpty: boolean;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare isArchived: boolean;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare isMirror: boolean;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare isFork: boolean;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare forkId: number;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare isTemplate: boolean;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare templateId: number;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare size: number;
  @Column({ type: DataType.STRING(16), allowNull: false, defaultValue: 'sha1' }) declare objectFormatName: string;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare numStars: number;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare numWatches: number;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare numForks: number;
  @Column({ type: DataType.STRING(64), allowNull: false, defaultValue: '' }) declare mirrorInterval: string;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: true }) declare enablePrune: boolean;
  @Column({ type: DataType.DATE, allowNull: true }) declare archivedAt: Date | null;
  /** Where a migrated repository came from, as given (userinfo is removed when shown). */
  @Column({ type: DataType.STRING(2048), allowNull: false, defaultValue: '' }) declare originalUrl: string;
  /** Gitea's service type of the source: 1 plain git, 3 Gitea (0 when not migrated). */
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare originalServiceType: number;
  /** Gitea's repository status: 0 ready, 1 being migrated. */
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare status: number;
  /** When the pull mirror last tried to sync, unix seconds (0: never). */
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare mirrorUpdatedUnix: number;
  /** The uploaded avatar's file name under REPOSITORY_AVATAR_UPLOAD_PATH ('' for none). */
  @Column({ type: DataType.STRING(64), allowNull: false, defaultValue: '' }) declare avatar: string;
  declare createdAt: Date;
  declare updatedAt: Date;
}

// why: every repository route resolves owner/name first; the row is kept as a read-only snapshot
// (building a model instance per request cost a tenth of a branch listing). A writer reads the
// row again inside its transaction (findRepoById) and changes that one.
const byOwnerAndName = new TableCache<RepositoryModel | null>('repository', ['repository']);

/** A repository of an owner by name, case-insensitively (a read-only snapshot outside a transaction). */
export async function findRepoByOwnerAndName(ctx: DbContext, ownerId: number, name: string): Promise<RepositoryModel | null> {
  const lowerName = name.toLowerCase();
  return byOwnerAndName.get(ctx, `${ownerId}/${lowerName}`, async () => {
    const found = await RepositoryModel.findOne({ where: { ownerId, lowerName }, transaction: ctx.tx });
    return found && !ctx.tx ? readOnlyRow(found) : found;
  });
}

/** Number of repositories an owner (user or organization) has. */
export function countReposOfOwner(ctx: DbContext, ownerId: number): Promise<number> {
  return RepositoryModel.count({ where: { ownerId }, transaction: ctx.tx });
}

/** A repository by id. */
export function findRepoById(ctx: DbContext, id: number): Promise<RepositoryModel | null> {
  return RepositoryModel.findByPk(id, { transaction: ctx.tx });
}

/** Name a repository's uploaded avatar file ('' for none); updated_at is left alone, as Gitea's column update does. */
export async function updateRepoAvatar(ctx: DbContext, repoId: number, avatar: string): Promise<void> {
  await RepositoryModel.update({ avatar }, { where: { id: repoId }, transaction: ctx.tx, silent: true });
}

/** What push processing learns from git about a repository. */
export interface RepoGitState { isEmpty: boolean; defaultBranch: string; size: number }

/** Store the git-derived fields of a repository (a targeted UPDATE; other columns are left alone). */
export async function updateRepoGitState(ctx: DbContext, repoId: number, state: RepoGitState): Promise<void> {
  await RepositoryModel.update(state, { where: { id: repoId }, transaction: ctx.tx });
}

/** Up to `limit` repository ids greater than `afterId`, ascending (for walking every repository in batches). */
export async function listRepoIdsAfter(ctx: DbContext, afterId: number, limit: number): Promise<number[]> {
  const rows = await RepositoryModel.findAll({ where: { id: { [Op.gt]: afterId } }, attributes: ['id'], order: [['id', 'ASC']], limit, transaction: ctx.tx });
  return rows.map((r) => r.id);
}

/** Where a repository lives: its id, owner name and name (the directory `<owner>/<name>.git`). */
export interface RepoLocation { id: number; ownerName: string; name: string }

/** Repositories with ids above `afterId`, in id order, with their owners' names. */
export async function listRepoLocationsAfter(ctx: DbContext, afterId: number, limit: number): Promise<RepoLocation[]> {
  const rows = await db().query<{ id: number; owner_name: string; name: string }>(
    'SELECT r.id, u.name AS owner_name, r.name FROM repository r JOIN users u ON u.id = r.owner_id WHERE r.id > :afterId ORDER BY r.id LIMIT :limit',
    { replacements: { afterId, limit }, type: QueryTypes.SELECT, transaction: ctx.tx },
  );
  return rows.map((r) => ({ id: Number(r.id), ownerName: r.owner_name, name: r.name }));
}

/** Whether a repository row exists for this owner and name (case-insensitive, as names are unique). */
export async function repoRowExists(ctx: DbContext, ownerName: string, name: string): Promise<boolean> {
  const rows = await db().query<{ n: number }>(
    'SELECT 1 AS n FROM repository r JOIN users u ON u.id = r.owner_id WHERE u.lower_name = :owner AND r.lower_name = :name',
    { replacements: { owner: ownerName.toLowerCase(), name: name.toLowerCase() }, type: QueryTypes.SELECT, transaction: ctx.tx },
  );
  return rows.length > 0;
}

/** Fields of a new repository row. */
export interface NewRepoRow {
  ownerId: number; ownerName: string; name: string; description: string; defaultBranch: string;
  isPrivate: boolean; isTemplate: boolean; objectFormatName: string;
  /** A fork of repository forkId. */
  isFork?: boolean; forkId?: number;
  /** Generated from template repository templateId. */
  templateId?: number;
  /** Defaults to true; git content arrives after the row. */
  isEmpty?: boolean;
  /** A migration: where from, whether it is a pull mirror (with its interval in Go's form), and status 1 while it runs. */
  originalUrl?: string; originalServiceType?: number; isMirror?: boolean; mirrorInterval?: string; status?: number;
}

/** Insert a repository row with the given units enabled. */
export async function insertRepoWithUnits(ctx: DbContext, row: NewRepoRow, units: UnitType[]): Promise<RepositoryModel> {
  const repo = await RepositoryModel.create({ ...row, lowerName: row.name.toLowerCase(), isEmpty: row.isEmpty ?? true }, { transaction: ctx.tx });
  await RepoUnitModel.bulkCreate(units.map((type) => ({ repoId: repo.id, type })), { transaction: ctx.tx });
  return repo;
}

/** A migrated repository is ready (Gitea's status 0); its mirror, if any, synced at `mirrorUpdatedUnix`. */
export async function markRepoMigrated(ctx: DbContext, repoId: number, mirrorUpdatedUnix: number): Promise<void> {
  await RepositoryModel.update({ status: 0, mirrorUpdatedUnix }, { where: { id: repoId }, transaction: ctx.tx });
}

/** Record when a pull mirror last tried to sync. */
export async function touchRepoMirror(ctx: DbContext, repoId: number, unix: number): Promise<void> {
  await RepositoryModel.update({ mirrorUpdatedUnix: unix }, { where: { id: repoId }, transaction: ctx.tx });
}

/** Add `delta` to a repository's num_forks. */
export async function adjustNumForks(ctx: DbContext, repoId: number, delta: number): Promise<void> {
  await RepositoryModel.increment({ numForks: delta }, { where: { id: repoId }, transaction: ctx.tx });
}

/** The fork of `parentId` that `ownerId` owns, or null. */
export function findForkOf(ctx: DbContext, parentId: number, ownerId: number): Promise<RepositoryModel | null> {
  return RepositoryModel.findOne({ where: { forkId: parentId, ownerId, isFork: true }, transaction: ctx.tx });
}

/** Ids of every fork of `parentId`, oldest first. */
export async function forkIdsOf(ctx: DbContext, parentId: number): Promise<number[]> {
  const rows = await RepositoryModel.findAll({ where: { forkId: parentId, isFork: true }, attributes: ['id'], order: [['id', 'ASC']], transaction: ctx.tx });
  return rows.map((r) => r.id);
}

/** Give a repository row a new owner (id and cached name). */
export async function changeRepoOwner(ctx: DbContext, repo: RepositoryModel, owner: { id: number; name: string }): Promise<void> {
  repo.ownerId = owner.id;
  repo.ownerName = owner.name;
  await repo.save({ transaction: ctx.tx });
}

/** Save changed columns of a repository. */
export async function saveRepo(ctx: DbContext, repo: RepositoryModel): Promise<void> {
  await repo.save({ transaction: ctx.tx });
}

/** Replace the enabled units of a repository. */
export async function setRepoUnits(ctx: DbContext, repoId: number, units: UnitType[]): Promise<void> {
  await RepoUnitModel.destroy({ where: { repoId, type: { [Op.notIn]: units } }, transaction: ctx.tx });
  const have = (await RepoUnitModel.findAll({ where: { repoId }, transaction: ctx.tx })).map((u) => u.type);
  const add = units.filter((u) => !have.includes(u));
  if (add.length) await RepoUnitModel.bulkCreate(add.map((type) => ({ repoId, type })), { transaction: ctx.tx });
}

/** Delete a repository row with its units, collaborations, team links, deploy keys and hooks. */
export async function deleteRepoRows(ctx: DbContext, repoId: number): Promise<void> {
  // why: stars and topic links carry counters on other rows; lower them before the links go.
  const exec = (sql: string) => db().query(sql, { replacements: { repoId, no: false }, transaction: ctx.tx });
  await exec('UPDATE users SET num_stars = num_stars - 1 WHERE id IN (SELECT uid FROM star WHERE repo_id = :repoId)');
  // why: as Gitea, a deleted fork lowers its parent's fork count, and the forks of a deleted repository become ordinary repositories.
  await exec('UPDATE repository SET num_forks = num_forks - 1 WHERE id IN (SELECT fork_id FROM repository WHERE id = :repoId AND fork_id > 0)');
  await exec('UPDATE repository SET is_fork = :no, fork_id = 0 WHERE fork_id = :repoId');
  await exec('UPDATE topic SET repo_count = repo_count - 1 WHERE id IN (SELECT topic_id FROM repo_topic WHERE repo_id = :repoId)');
  for (const table of ['star', 'watch', 'repo_topic', 'branch', 'release', 'push_event', 'repo_transfer', 'commit_status', 'attachment', 'protected_tag', 'protected_branch', 'action', 'notification', 'mirror', 'push_mirror', 'repo_license']) await exec(`DELETE FROM ${table} WHERE repo_id = :repoId`);
  // why: LFS links and locks go with the repository; the content files stay on disk (other repositories may link
  // the same oid) until a later garbage collection removes unreferenced ones.
  await exec('DELETE FROM lfs_meta_object WHERE repository_id = :repoId');
  await exec('DELETE FROM lfs_lock WHERE repo_id = :repoId');
  await RepoUnitModel.destroy({ where: { repoId }, transaction: ctx.tx });
  await CollaborationModel.destroy({ where: { repoId }, transaction: ctx.tx });
  await TeamRepoModel.destroy({ where: { repoId }, transaction: ctx.tx });
  await deleteDeployKeysOfRepo(ctx, repoId);
  await deleteTrackerOfRepo(ctx, repoId);
  await deleteProjectsOf(ctx, { repoId });
  await deleteWebhooksOf(ctx, { repoId });
  await deleteActionsSettingsOf(ctx, { repoId });
  await RepositoryModel.destroy({ where: { id: repoId }, transaction: ctx.tx });
}

/** Add `delta` to an owner's num_repos. */
export async function adjustNumRepos(ctx: DbContext, ownerId: number, delta: number): Promise<void> {
  await UserModel.increment({ numRepos: delta }, { where: { id: ownerId }, transaction: ctx.tx });
}

/** Rename a repository row (owner name is kept). */
export async function renameRepoRow(ctx: DbContext, repo: RepositoryModel, name: string): Promise<void> {
  repo.name = name;
  repo.lowerName = name.toLowerCase();
  await repo.save({ transaction: ctx.tx });
}

/**
 * Which repositories a caller sees in lists: every one (site administrators), or the public
 * repositories of owners the caller may see (`publicOwners`, a users-table condition from
 * visibleUsersSql, or null for none) plus the ones the permission function granted (`grantedIds`).
 */
export type RepoVisibility = 'all' | { publicOwners: string | null; grantedIds: number[] };

/** What a repository search filters on. */
export interface RepoSearch {
  ownerId?: number; keyword?: string;
  /** With ownerId: also these repositories (a user's collaborations). */
  orIds?: number[]; isPrivate?: boolean; isTemplate?: boolean;
  visible: RepoVisibility; sort: 'alpha' | 'created' | 'updated' | 'size' | 'id'; order: 'asc' | 'desc';
  limit: number; offset: number;
}

// why: bots and CI systems repeat the same searches all day; a page is kept until a repository, a
// user (an owner's visibility) or a membership (the visible owners) is written.
const searchCache = new TableCache<{ rows: RepositoryModel[]; count: number }>('repo-search', ['repository', 'users', 'org_user']);

/** One page of repositories matching `q`, visible per `q.visible` (read-only rows outside a transaction). */
export function searchRepos(ctx: DbContext, q: RepoSearch): Promise<{ rows: RepositoryModel[]; count: number }> {
  const key = createHash('sha256').update(JSON.stringify(q)).digest('base64');
  return searchCache.get(ctx, key, async () => {
    const { rows, count } = await findRepoPage(ctx, q);
    return { rows: rows.map(readOnlyRow), count };
  });
}

function findRepoPage(ctx: DbContext, q: RepoSearch): Promise<{ rows: RepositoryModel[]; count: number }> {
  const and: WhereOptions[] = [];
  if (q.ownerId !== undefined) {
    and.push(q.orIds?.length ? { [Op.or]: [{ ownerId: q.ownerId }, { id: { [Op.in]: q.orIds } }] } : { ownerId: q.ownerId });
  }
  if (q.keyword) and.push({ lowerName: { [Op.like]: `%${q.keyword.toLowerCase().replace(/[\\%_]/g, '')}%` } });
  if (q.isPrivate !== undefined) and.push({ isPrivate: q.isPrivate });
  if (q.isTemplate !== undefined) and.push({ isTemplate: q.isTemplate });
  if (q.visible !== 'all') {
    const ors: WhereOptions[] = [{ id: { [Op.in]: q.visible.grantedIds.length ? q.visible.grantedIds : [0] } }];
    // why: a public repository is only as visible as its owner; a private or limited organization hides its public repositories too.
    if (q.visible.publicOwners) ors.push({ isPrivate: false, ownerId: { [Op.in]: literal(`(SELECT id FROM users WHERE ${q.visible.publicOwners})`) } });
    and.push({ [Op.or]: ors });
  }
  const col = { alpha: 'lowerName', created: 'createdAt', updated: 'updatedAt', size: 'size', id: 'id' }[q.sort];
  return RepositoryModel.findAndCountAll({
    where: { [Op.and]: and }, order: [[col, q.order.toUpperCase()], ['id', 'ASC']], limit: q.limit, offset: q.offset, transaction: ctx.tx,
  });
}

/**
 * Repositories a user may reach beyond public reading: owned, collaborating, or owned by an
 * organization it belongs to (candidates; the permission function decides about team access).
 * Private ones only, unless `withPublic` (restricted users read public repositories only by grant).
 */
export async function repoCandidatesOf(ctx: DbContext, userId: number, withPublic: boolean): Promise<RepositoryModel[]> {
  const orgIds = (await OrgUserModel.findAll({ where: { uid: userId }, transaction: ctx.tx })).map((o) => o.orgId);
  const collab = (await CollaborationModel.findAll({ where: { userId }, transaction: ctx.tx })).map((c) => c.repoId);
  const reach = { [Op.or]: [{ ownerId: [userId, ...orgIds] }, { id: { [Op.in]: collab.length ? collab : [0] } }] };
  return RepositoryModel.findAll({ transaction: ctx.tx, where: withPublic ? reach : { isPrivate: true, ...reach } });
}

/** Ids of repositories a user collaborates on. */
export async function collaborationRepoIdsOf(ctx: DbContext, userId: number): Promise<number[]> {
  return (await CollaborationModel.findAll({ where: { userId }, transaction: ctx.tx })).map((c) => c.repoId);
}

/** Repositories named `owner/name` (case-insensitive), with their owner's lower-case name, in one query. */
export async function findReposByFullNames(ctx: DbContext, names: { owner: string; name: string }[]): Promise<{ repo: RepositoryModel; ownerName: string }[]> {
  if (names.length === 0) return [];
  const keys = [...new Set(names.map((n) => `${n.owner.toLowerCase()}/${n.name.toLowerCase()}`))];
  const rows = await db().query<{ id: number; owner_name: string }>(
    'SELECT r.id, u.lower_name AS owner_name FROM repository r JOIN users u ON u.id = r.owner_id WHERE '
      + keys.map((_, k) => `(u.lower_name = :o${k} AND r.lower_name = :n${k})`).join(' OR '),
    { type: QueryTypes.SELECT, replacements: Object.fromEntries(keys.flatMap((key, k) => { const [o, n] = key.split('/'); return [[`o${k}`, o], [`n${k}`, n]]; })), transaction: ctx.tx },
  );
  const repos = new Map((await findReposByIds(ctx, rows.map((r) => Number(r.id)))).map((r) => [r.id, r]));
  return rows.flatMap((r) => { const repo = repos.get(Number(r.id)); return repo ? [{ repo, ownerName: r.owner_name }] : []; });
}

/** Repositories by id. */
export function findReposByIds(ctx: DbContext, ids: number[]): Promise<RepositoryModel[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return RepositoryModel.findAll({ where: { id: { [Op.in]: [...new Set(ids)] } }, transaction: ctx.tx });
}

/**
 * SQL selecting the ids of the repositories a caller sees (`visible`) that have `unit` enabled
 * (any, without one); numbers only are interpolated (publicOwners is built by visibleUsersSql).
 */
export function visibleRepoIdsSql(visible: RepoVisibility, unit?: UnitType): string {
  const withUnit = unit === undefined ? '1 = 1' : `EXISTS (SELECT 1 FROM repo_unit u WHERE u.repo_id = repository.id AND u.type = ${Number(unit)})`;
  if (visible === 'all') return `SELECT id FROM repository WHERE ${withUnit}`;
  const ors = [`id IN (${(visible.grantedIds.length ? visible.grantedIds : [0]).map(Number).join(',')})`];
  if (visible.publicOwners) ors.push(`(is_private = false AND owner_id IN (SELECT id FROM users WHERE ${visible.publicOwners}))`);
  return `SELECT id FROM repository WHERE ${withUnit} AND (${ors.join(' OR ')})`;
}

// why: a search across repositories asks which of them it may read on every request; the answer
// changes only when a repository, a user, a membership or a unit is written.
const visibleIdsCache = new TableCache<number[]>('repo-visible-ids', ['repository', 'users', 'org_user', 'repo_unit'], 30_000);

/** Ids of the repositories a caller sees (`visible`) that have `unit` enabled. */
export function visibleRepoIds(ctx: DbContext, visible: RepoVisibility, unit: UnitType): Promise<number[]> {
  const key = createHash('sha256').update(JSON.stringify([visible, unit])).digest('base64');
  return visibleIdsCache.get(ctx, key, async () => {
    const rows = await db().query<{ id: number }>(visibleRepoIdsSql(visible, unit), { type: QueryTypes.SELECT, transaction: ctx.tx });
    return rows.map((r) => Number(r.id));
  });
}

// why: lists across repositories leave archived ones out (Gitea's dashboard does); the few archived
// ids are kept until a repository is written.
const archivedCache = new TableCache<number[]>('repo-archived-ids', ['repository'], 30_000);

/** Ids of the archived repositories. */
export function archivedRepoIds(ctx: DbContext): Promise<number[]> {
  return archivedCache.get(ctx, 'all', async () => {
    const rows = await RepositoryModel.findAll({ where: { isArchived: true }, attributes: ['id'], transaction: ctx.tx });
    return rows.map((r) => r.id);
  });
}

/** The lower-cased names of the repositories of each of these owners (by owner id). */
export async function repoLowerNamesOfOwners(ctx: DbContext, ownerIds: number[]): Promise<Map<number, Set<string>>> {
  const out = new Map<number, Set<string>>(ownerIds.map((id) => [id, new Set<string>()]));
  if (ownerIds.length === 0) return out;
  const rows = await RepositoryModel.findAll({ attributes: ['ownerId', 'lowerName'], where: { ownerId: { [Op.in]: ownerIds } }, transaction: ctx.tx });
  for (const r of rows) out.get(r.ownerId)?.add(r.lowerName);
  return out;
}
