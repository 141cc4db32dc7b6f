/**
 * Rebuilding what the issue writers keep in step row by row, for a whole repository at once: after
 * a migration or a restore has inserted its issues, comments and labels in bulk. The numbering and
 * counts of repo_issue_counter, each issue's comment count, each label's and milestone's counts,
 * and the keyword index of the repository's issues and comments.
 */
import { db, type DbContext } from '../db';

const isSqlite = () => db().getDialect() === 'sqlite';

async function run(ctx: DbContext, sql: string, repoId: number): Promise<void> {
  await db().query(sql, { replacements: { repoId, yes: true, no: false }, transaction: ctx.tx });
}

/** Recount repository `repoId`'s issue numbering and counters, comment counts, and label and milestone tallies. */
export async function recountRepoIssues(ctx: DbContext, repoId: number): Promise<void> {
  await run(ctx, 'INSERT INTO repo_issue_counter (repo_id) VALUES (:repoId) ON CONFLICT (repo_id) DO NOTHING', repoId);
  await run(ctx, `UPDATE repo_issue_counter SET
      max_index = (SELECT COALESCE(MAX("index"), 0) FROM issue WHERE repo_id = :repoId),
      num_issues = (SELECT COUNT(*) FROM issue WHERE repo_id = :repoId AND is_pull = :no),
      num_closed_issues = (SELECT COUNT(*) FROM issue WHERE repo_id = :repoId AND is_pull = :no AND is_closed = :yes),
      num_pulls = (SELECT COUNT(*) FROM issue WHERE repo_id = :repoId AND is_pull = :yes),
      num_closed_pulls = (SELECT COUNT(*) FROM issue WHERE repo_id = :repoId AND is_pull = :yes AND is_closed = :yes),
      num_milestones = (SELECT COUNT(*) FROM milestone WHERE repo_id = :repoId),
      num_closed_milestones = (SELECT COUNT(*) FROM milestone WHERE repo_id = :repoId AND is_closed = :yes)
    WHERE repo_id = :repoId`, repoId);
  // why: the comment counts shown are of plain comments and reviews (COUNTED_TYPES: 0 and 22).
  await run(ctx, `UPDATE issue SET num_comments = (SELECT COUNT(*) FROM comment c WHERE c.issue_id = issue.id AND c.type IN (0, 22))
    WHERE repo_id = :repoId`, repoId);
  await run(ctx, `UPDATE label SET
      num_issues = (SELECT COUNT(*) FROM issue_label il JOIN issue i ON i.id = il.issue_id WHERE il.label_id = label.id),
      num_closed_issues = (SELECT COUNT(*) FROM issue_label il JOIN issue i ON i.id = il.issue_id WHERE il.label_id = label.id AND i.is_closed = :yes)
    WHERE repo_id = :repoId`, repoId);
  await run(ctx, `UPDATE milestone SET
      num_issues = (SELECT COUNT(*) FROM issue i WHERE i.milestone_id = milestone.id),
      num_closed_issues = (SELECT COUNT(*) FROM issue i WHERE i.milestone_id = milestone.id AND i.is_closed = :yes)
    WHERE repo_id = :repoId`, repoId);
  await run(ctx, `UPDATE milestone SET completeness = CASE WHEN num_issues = 0 THEN 0 ELSE (num_closed_issues * 100) / num_issues END
    WHERE repo_id = :repoId`, repoId);
}

/** Put repository `repoId`'s issues and plain comments into the keyword index (they have no documents yet). */
export async function indexRepoTexts(ctx: DbContext, repoId: number): Promise<void> {
  if (isSqlite()) {
    await run(ctx, "INSERT INTO issue_fts (rowid, body) SELECT id, name || char(10) || content FROM issue WHERE repo_id = :repoId", repoId);
    await run(ctx, `INSERT INTO comment_fts (rowid, body) SELECT c.id, c.content FROM comment c JOIN issue i ON i.id = c.issue_id
      WHERE i.repo_id = :repoId AND c.type = 0 AND c.content <> ''`, repoId);
    return;
  }
  await run(ctx, `INSERT INTO issue_fts (id, repo_id, is_pull, is_closed, created_unix, doc)
    SELECT id, repo_id, is_pull, is_closed, created_unix, to_tsvector('simple', name || E'\\n' || content) FROM issue WHERE repo_id = :repoId`, repoId);
  await run(ctx, `INSERT INTO comment_fts (id, issue_id, repo_id, is_pull, is_closed, created_unix, doc)
    SELECT c.id, i.id, i.repo_id, i.is_pull, i.is_closed, i.created_unix, to_tsvector('simple', c.content) FROM comment c JOIN issue i ON i.id = c.issue_id
    WHERE i.repo_id = :repoId AND c.type = 0 AND c.content <> ''`, repoId);
}
