/**
 * Gitea's issue table: issues and pull requests of a repository, numbered per repository by
 * `index`. Times are Unix seconds.
 */
import type { DbContext } from '../db';
import { Op, QueryTypes, type WhereOptions } from 'sequelize';
import { db, sqliteScript } from '../db';
import { allocateIssueIndex, countSet, ensureCounterRow, type CountDelta } from './repo-issue-counter.model';
import { indexIssueText } from './issue-search';
import { Table, Column, Model, DataType } from 'sequelize-typescript';

@Table({ tableName: 'issue', underscored: true, timestamps: false })
export class IssueModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare repoId: number;
  @Column({ type: DataType.BIGINT, allowNull: false }) declare index: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare posterId: number;
  /** The title. */
  @Column({ type: DataType.STRING(255), allowNull: false, defaultValue: '' }) declare name: string;
  @Column({ type: DataType.TEXT, allowNull: false, defaultValue: '' }) declare content: string;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare milestoneId: number;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare priority: number;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare isClosed: boolean;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare isPull: boolean;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare numComments: number;
  @Column({ type: DataType.STRING(255), allowNull: false, defaultValue: '' }) declare ref: string;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare deadlineUnix: number;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare isLocked: boolean;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare contentVersion: number;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare closedUnix: number;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare createdUnix: number;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare updatedUnix: number;
  /** A migrated row's author on its source, when no local user is that person (Gitea's original_author). */
  @Column({ type: DataType.STRING(255), allowNull: false, defaultValue: '' }) declare originalAuthor: string;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare originalAuthorId: number;
}

/** Now, in Unix seconds (the tracker's clock). */
export function nowUnix(): number {
  return Math.floor(Date.now() / 1000);
}

/** The fields of a new issue row (index and times are set by insertIssue). */
export interface NewIssue {
  repoId: number; index: number; posterId: number; name: string; content: string; milestoneId: number; isPull: boolean; ref: string;
  deadlineUnix: number;
}

/** Who opened the issue, for the feed's event, and whether its repository is private. */
export interface OpenedEvent { actUserId: number; isPrivate: boolean }

const ACTION_COLUMNS = 'op_type, act_user_id, repo_id, is_private, content, created_unix';

/** The feed's op type of an opening (Gitea's create_issue and create_pull_request). */
const openedOp = (isPull: boolean) => (isPull ? 7 : 6);

/**
 * The last `n` issues inserted on the connection, oldest first: the highest ids up to its last
 * insert (a script's last insert is the keyword document, whose row id is the issue's).
 */
const lastNewIssues = (n: number) => `SELECT id, "index" FROM (SELECT id, "index" FROM issue WHERE id <= last_insert_rowid() ORDER BY id DESC LIMIT ${Math.trunc(n)}) AS t ORDER BY id`;

/** The issues a new issue references: by id, and by number in its own repository (found by the statement itself). */
export interface NewIssueRefs { ids: number[]; indexes: number[] }

/**
 * The statements that write a new issue's reference entries (type issue_ref, no action) on the
 * issues `refs` names and bump their update times; `newId`/`newIndex` are SQL for the new issue's
 * id and number (it never references itself; PostgreSQL's statement does not see its own new row,
 * so it needs no number). Ids and numbers are integers, written as numbers.
 */
function refStatements(refs: NewIssueRefs, dialect: 'sqlite' | 'postgres', newId: string, newIndex: string): string[] {
  const ints = (xs: number[]) => [...new Set(xs.filter((t) => Number.isSafeInteger(t)))];
  const ids = ints(refs.ids);
  const indexes = ints(refs.indexes);
  if (ids.length === 0 && indexes.length === 0) return [];
  const parts: string[] = [];
  if (ids.length) parts.push(dialect === 'postgres' ? `SELECT x AS id FROM (VALUES ${ids.map((t) => `(${t})`).join(', ')}) AS v(x)` : ids.map((t) => `SELECT ${t} AS id`).join(' UNION '));
  if (indexes.length) parts.push(`SELECT id FROM issue WHERE repo_id = :repoId AND "index" IN (${indexes.join(', ')})${newIndex ? ` AND "index" <> ${newIndex}` : ''}`);
  const targets = `(${parts.join(' UNION ')}) AS t`;
  return [
    `INSERT INTO comment (type, poster_id, issue_id, ref_repo_id, ref_issue_id, ref_is_pull, created_unix, updated_unix) SELECT 3, :posterId, t.id, :repoId, ${newId}, false, :now, :now FROM ${dialect === 'postgres' ? 'i, ' : ''}${targets}`,
    `UPDATE issue SET updated_unix = :now WHERE id IN (SELECT id FROM ${targets})`,
  ];
}

/**
 * Insert an issue with the repository's next number, count it (`delta`) and index its `text`:
 * within the caller's transaction when there is one, and atomic on its own otherwise.
 * why: a plain new issue needs no transaction around it. On PostgreSQL the three writes are one
 * statement, so the counter row, which serializes a repository's creators until commit, is held
 * for one round trip. On SQLite they are one script, run together with those of other issues created
 * at the same time, so the single writer is held for one call to the driver and the read of the
 * new ids, not for five calls per issue. The feed's event of the opening (`index|title`) is written
 * in the same statement or script, and so are the reference entries (`refTargets`: the issues its
 * text references, entries without action) with their issues' update times.
 */
export async function insertNextIssue(
  ctx: DbContext, i: Omit<NewIssue, 'index'>, delta: CountDelta, text: string, opened: OpenedEvent, refTargets: NewIssueRefs = { ids: [], indexes: [] },
): Promise<IssueModel> {
  const now = nowUnix();
  const columns = 'repo_id, "index", poster_id, name, content, milestone_id, is_pull, ref, deadline_unix, created_unix, updated_unix';
  const values = ':repoId, :index, :posterId, :name, :content, :milestoneId, :isPull, :ref, :deadlineUnix, :now, :now';
  const mapped = { type: QueryTypes.SELECT, model: IssueModel, mapToModel: true, transaction: ctx.tx } as const;
  const event = { opType: openedOp(i.isPull), actUserId: opened.actUserId, isPrivate: opened.isPrivate };
  if (db().getDialect() === 'sqlite' && !ctx.tx) {
    const maxIndex = '(SELECT max_index FROM repo_issue_counter WHERE repo_id = :repoId)';
    const newId = `(SELECT id FROM issue WHERE repo_id = :repoId AND "index" = ${maxIndex})`;
    const refs = refStatements(refTargets, 'sqlite', newId, maxIndex);
    // why: the event goes before the issue, and the keyword document is the script's last insert, so
    // last_insert_rowid() is the issue's id for lastNewIssues.
    const got = await sqliteScript<{ id: number; index: number }>(refs.length ? 'new-issue-refs' : 'new-issue', [
      'INSERT INTO repo_issue_counter (repo_id) VALUES (:repoId) ON CONFLICT (repo_id) DO NOTHING',
      `UPDATE repo_issue_counter SET max_index = max_index + 1${countSet(delta)} WHERE repo_id = :repoId`,
      `INSERT INTO action (${ACTION_COLUMNS}) VALUES (:opType, :actUserId, :repoId, :isPrivate, ${maxIndex} || '|' || :name, :now)`,
      `INSERT INTO issue (${columns}) VALUES (${values.replace(':index', maxIndex)})`,
      ...refs,
      `INSERT INTO issue_fts (rowid, body) VALUES (${refs.length ? newId : 'last_insert_rowid()'}, :text)`,
    ], { ...i, now, text, ...event }, lastNewIssues, ['repo_issue_counter', 'action', 'issue', 'issue_fts', ...(refs.length ? ['comment'] : [])]);
    // why: build fills the columns' defaults only for a new record; the row exists, so it is not one.
    const row = IssueModel.build({ ...i, id: got.id, index: got.index, createdUnix: now, updatedUnix: now });
    row.isNewRecord = false;
    return row;
  }
  if (db().getDialect() === 'sqlite') {
    const index = await allocateIssueIndex(ctx, i.repoId, delta);
    // why: Sequelize's SQLite dialect runs a statement that starts with "INSERT INTO" without reading
    // its rows; the leading comment lets it read what RETURNING gives.
    const [row] = await db().query<IssueModel>(`/* new issue */ INSERT INTO issue (${columns}) VALUES (${values}) RETURNING *`, { ...mapped, replacements: { ...i, index, now } });
    await indexIssueText(ctx, row, text, true);
    await db().query(`INSERT INTO action (${ACTION_COLUMNS}) VALUES (:opType, :actUserId, :repoId, :isPrivate, :content, :now)`, {
      replacements: { ...event, repoId: i.repoId, content: `${index}|${i.name}`, now }, transaction: ctx.tx,
    });
    return row;
  }
  const insert = () => db().query<IssueModel>(
    `WITH c AS (UPDATE repo_issue_counter SET max_index = max_index + 1${countSet(delta)} WHERE repo_id = :repoId RETURNING max_index),
     i AS (INSERT INTO issue (${columns}) SELECT ${values.replace(':index', 'c.max_index')} FROM c RETURNING *),
     f AS (INSERT INTO issue_fts (id, repo_id, is_pull, is_closed, created_unix, doc)
       SELECT id, repo_id, is_pull, is_closed, created_unix, to_tsvector('simple', :text) FROM i),
     a AS (INSERT INTO action (${ACTION_COLUMNS}) SELECT :opType, :actUserId, repo_id, :isPrivate, "index" || '|' || name, :now FROM i)
     ${refStatements(refTargets, 'postgres', 'i.id', '').map((q, k) => `, r${k} AS (${q})`).join('')}
     SELECT * FROM i`,
    { ...mapped, replacements: { ...i, now, text, ...event } },
  );
  let rows = await insert();
  if (rows.length === 0) {
    await ensureCounterRow(ctx, i.repoId);
    rows = await insert();
  }
  return rows[0];
}

/** An issue (or pull request) of a repository by its number, or null. */
export function findIssueByIndex(ctx: DbContext, repoId: number, index: number): Promise<IssueModel | null> {
  if (!Number.isSafeInteger(index)) return Promise.resolve(null);
  return IssueModel.findOne({ where: { repoId, index }, transaction: ctx.tx });
}

/** An issue by id, or null. */
export function findIssueById(ctx: DbContext, id: number): Promise<IssueModel | null> {
  return IssueModel.findByPk(id, { transaction: ctx.tx });
}

/** Issues by id, in no particular order. */
export function findIssuesByIds(ctx: DbContext, ids: number[]): Promise<IssueModel[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return IssueModel.findAll({ where: { id: { [Op.in]: [...new Set(ids)] } }, transaction: ctx.tx });
}

/**
 * Issues by id, in the order of `ids` (ids without a row are skipped), as plain read-only values.
 * why: a listing page converts them and writes nothing; building model instances was a good part of its time.
 */
export async function issuesInOrder(ctx: DbContext, ids: number[]): Promise<IssueModel[]> {
  if (ids.length === 0) return [];
  const rows = await IssueModel.findAll({ where: { id: { [Op.in]: [...new Set(ids)] } }, raw: true, transaction: ctx.tx });
  const byId = new Map(rows.map((i) => [i.id, i]));
  return ids.map((id) => byId.get(id)).filter((i): i is IssueModel => !!i);
}

/** Save changed columns of an issue and bump its update time. */
export async function saveIssue(ctx: DbContext, row: IssueModel): Promise<void> {
  row.updatedUnix = nowUnix();
  await row.save({ transaction: ctx.tx });
}

/** Bump an issue's update time (a comment or history entry was added). */
export async function touchIssue(ctx: DbContext, id: number): Promise<void> {
  await IssueModel.update({ updatedUnix: nowUnix() }, { where: { id }, transaction: ctx.tx });
}

/** Add `delta` to an issue's comment count. */
export async function addIssueComments(ctx: DbContext, id: number, delta: number): Promise<void> {
  await IssueModel.increment({ numComments: delta }, { where: { id }, transaction: ctx.tx });
}

/** Delete an issue row. */
export async function deleteIssueRow(ctx: DbContext, id: number): Promise<void> {
  await IssueModel.destroy({ where: { id }, transaction: ctx.tx });
}

/** Clear a milestone from every issue that has it. */
export async function clearMilestoneOfIssues(ctx: DbContext, milestoneId: number): Promise<void> {
  await IssueModel.update({ milestoneId: 0 }, { where: { milestoneId }, transaction: ctx.tx });
}

/** Ids of every issue of the given repositories. */
export async function issueIdsOfRepos(ctx: DbContext, repoIds: number[]): Promise<number[]> {
  if (repoIds.length === 0) return [];
  const rows = await IssueModel.findAll({ where: { repoId: { [Op.in]: repoIds } } as WhereOptions, attributes: ['id'], transaction: ctx.tx });
  return rows.map((r) => r.id);
}

/** What a reference needs of the issue it names. */
export type IssueKey = Pick<IssueModel, 'id' | 'repoId' | 'index' | 'posterId' | 'isPull' | 'ref'>;

/** Issues by (repository, number) pairs, in one query, as read-only plain values. */
export async function findIssuesByRepoIndexes(ctx: DbContext, pairs: { repoId: number; index: number }[]): Promise<IssueKey[]> {
  const wanted = pairs.filter((p) => Number.isSafeInteger(p.index));
  if (wanted.length === 0) return [];
  const byRepo = new Map<number, Set<number>>();
  for (const p of wanted) byRepo.set(p.repoId, (byRepo.get(p.repoId) ?? new Set()).add(p.index));
  const or = [...byRepo].map(([repoId, idx]) => ({ repoId, index: { [Op.in]: [...idx] } }));
  const rows = await IssueModel.findAll({
    attributes: ['id', 'repoId', 'index', 'posterId', 'isPull', 'ref'], where: { [Op.or]: or } as WhereOptions, raw: true, transaction: ctx.tx,
  });
  // why: SQLite gives booleans of raw rows as 0/1.
  return rows.map((r) => ({ ...r, index: Number(r.index), isPull: Boolean(r.isPull) }));
}

/** Lock issue rows in id order until the transaction ends (PostgreSQL), reading nothing else. */
export async function lockIssueIds(ctx: DbContext, ids: number[]): Promise<void> {
  if (ids.length === 0 || !ctx.tx) return;
  await IssueModel.findAll({ attributes: ['id'], where: { id: { [Op.in]: [...new Set(ids)] } }, order: [['id', 'ASC']], raw: true, transaction: ctx.tx, lock: true });
}

/** Bump the update time of many issues at once. */
export async function touchIssues(ctx: DbContext, ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  await IssueModel.update({ updatedUnix: nowUnix() }, { where: { id: { [Op.in]: [...new Set(ids)] } }, transaction: ctx.tx });
}

/** Re-read issues inside a transaction, locking their rows in id order (PostgreSQL), as lockIssue does for one. */
export function lockIssues(ctx: DbContext, ids: number[]): Promise<IssueModel[]> {
  if (ids.length === 0) return Promise.resolve([]);
  // why: in id order, so two transactions locking overlapping sets never wait on each other in a circle.
  return IssueModel.findAll({ where: { id: { [Op.in]: [...new Set(ids)] } }, order: [['id', 'ASC']], transaction: ctx.tx, lock: ctx.tx ? true : undefined });
}

/** Re-read an issue inside a transaction, locking its row until the transaction ends (PostgreSQL). */
export function lockIssue(ctx: DbContext, id: number): Promise<IssueModel | null> {
  // why: every change to an issue re-reads it under this lock first, so two writers of one issue
  // (close and label, say) run one after the other and its counters stay exact. SQLite has one writer anyway.
  return IssueModel.findByPk(id, { transaction: ctx.tx, lock: ctx.tx ? true : undefined });
}

/**
 * A repository's issues or pull requests that moved in a period (Gitea's activity page): opened
 * since `since`, closed since `since` (and still closed), each newest first, at most `limit`.
 */
export async function issuesMovedSince(ctx: DbContext, repoId: number, isPull: boolean, since: number, limit: number): Promise<{ opened: IssueModel[]; closed: IssueModel[] }> {
  const [opened, closed] = await Promise.all([
    IssueModel.findAll({ where: { repoId, isPull, createdUnix: { [Op.gte]: since } }, order: [['createdUnix', 'DESC'], ['id', 'DESC']], limit, transaction: ctx.tx }),
    IssueModel.findAll({ where: { repoId, isPull, isClosed: true, closedUnix: { [Op.gte]: since } }, order: [['closedUnix', 'DESC'], ['id', 'DESC']], limit, transaction: ctx.tx }),
  ]);
  return { opened, closed };
}
