/**
 * Inserting a migrated repository's issues, comments, reactions and label links in bulk, with the
 * numbers, times and authors of their source. Nothing here keeps counters or the keyword index in
 * step; the importer rebuilds those once for the repository (issue-rebuild.ts).
 */
import { db, type DbContext } from '../db';
import { IssueModel } from './issue.model';
import { CommentModel, type CommentType } from './comment.model';
import { ReactionModel } from './reaction.model';
import { ReviewModel, type ReviewType } from './review.model';

/** Who wrote a migrated row: a local user, or the doer with the source's name and id kept. */
export interface ImportedAuthor { posterId: number; originalAuthor: string; originalAuthorId: number }

/** A migrated issue or pull request row. */
export interface ImportedIssue extends ImportedAuthor {
  repoId: number; index: number; name: string; content: string; milestoneId: number; isPull: boolean; ref: string; isClosed: boolean; isLocked: boolean;
  createdUnix: number; updatedUnix: number; closedUnix: number;
}

/** Insert issues; answers their ids by number. */
export async function insertImportedIssues(ctx: DbContext, rows: ImportedIssue[]): Promise<Map<number, number>> {
  if (rows.length === 0) return new Map();
  await IssueModel.bulkCreate(rows.map((r) => ({ ...r })), { transaction: ctx.tx });
  const got = await IssueModel.findAll({ attributes: ['id', 'index'], where: { repoId: rows[0].repoId, index: rows.map((r) => r.index) }, transaction: ctx.tx });
  return new Map(got.map((r) => [Number(r.index), r.id]));
}

/** A migrated comment (a review's entry and line comments carry their review, file, line and diff). */
export interface ImportedComment extends ImportedAuthor {
  issueId: number; type: CommentType; content: string; createdUnix: number; updatedUnix: number;
  reviewId?: number; treePath?: string; line?: number; patch?: string; commitSha?: string;
}

/**
 * Insert comments in the order given; answers the id of each row `needsId` asks for (0 for the
 * others). Runs of rows whose ids are not needed go in by one statement each.
 */
export async function insertImportedComments(ctx: DbContext, rows: ImportedComment[], needsId: (i: number) => boolean = () => false): Promise<number[]> {
  const ids: number[] = new Array<number>(rows.length).fill(0);
  let run: ImportedComment[] = [];
  const flush = async () => {
    if (run.length) await CommentModel.bulkCreate(run.map((r) => ({ ...r })), { transaction: ctx.tx });
    run = [];
  };
  for (const [i, r] of rows.entries()) {
    if (!needsId(i)) {
      run.push(r);
      continue;
    }
    // why: a row others point at (its reactions) is inserted alone with RETURNING; Sequelize's bulk insert gives no ids on SQLite.
    await flush();
    ids[i] = (await CommentModel.create({ ...r }, { transaction: ctx.tx })).id;
  }
  await flush();
  return ids;
}

/** A migrated review. */
export interface ImportedReview {
  type: ReviewType; issueId: number; reviewerId: number; content: string; official: boolean; commitId: string; originalAuthor: string; originalAuthorId: number;
  createdUnix: number; updatedUnix: number;
}

/** Insert a review with its source's times. */
export function insertImportedReview(ctx: DbContext, r: ImportedReview): Promise<ReviewModel> {
  return ReviewModel.create({ ...r }, { transaction: ctx.tx });
}

/** A migrated reaction on an issue (commentId 0) or a comment. */
export interface ImportedReaction { issueId: number; commentId: number; userId: number; type: string; originalAuthor: string; originalAuthorId: number; createdUnix: number }

/** Insert reactions. */
export async function insertImportedReactions(ctx: DbContext, rows: ImportedReaction[]): Promise<void> {
  if (rows.length) await ReactionModel.bulkCreate(rows.map((r) => ({ ...r })), { transaction: ctx.tx });
}

/** Link labels to issues. */
export async function insertImportedLabelLinks(ctx: DbContext, links: { issueId: number; labelId: number }[]): Promise<void> {
  if (links.length === 0) return;
  const values = links.map((_, i) => `(:i${i}, :l${i})`).join(', ');
  const replacements = Object.fromEntries(links.flatMap((l, i) => [[`i${i}`, l.issueId], [`l${i}`, l.labelId]]));
  await db().query(`INSERT INTO issue_label (issue_id, label_id) VALUES ${values} ON CONFLICT DO NOTHING`, { replacements, transaction: ctx.tx });
}
