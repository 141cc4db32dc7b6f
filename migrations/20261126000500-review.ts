/**
 * Pull request reviews (Gitea's `review`): approvals, change requests, comments, pending drafts and
 * review requests (of a user or a team), one row each; and the columns of a comment on a line of
 * a pull request's diff (Gitea's code comments).
 */
import { DataTypes } from 'sequelize';
import type { MigrationParams } from './types';

const int = { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 };
const flag = { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false };

/** Create review. */
export async function up({ context: qi }: MigrationParams): Promise<void> {
  await qi.createTable('review', {
    id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true, allowNull: false },
    type: int,
    reviewer_id: int,
    reviewer_team_id: int,
    issue_id: { type: DataTypes.INTEGER, allowNull: false },
    content: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
    official: flag,
    commit_id: { type: DataTypes.STRING(64), allowNull: false, defaultValue: '' },
    stale: flag,
    dismissed: flag,
    created_unix: { type: DataTypes.BIGINT, allowNull: false, defaultValue: 0 },
    updated_unix: { type: DataTypes.BIGINT, allowNull: false, defaultValue: 0 },
  });
  // why: a pull request's reviews are listed in creation order, and a reviewer's latest one is looked up per merge.
  await qi.addIndex('review', ['issue_id', 'created_unix', 'id'], { name: 'IDX_review_issue' });
  await qi.addIndex('review', ['issue_id', 'reviewer_id', 'type'], { name: 'IDX_review_reviewer' });
  await qi.addColumn('comment', 'tree_path', { type: DataTypes.STRING(4000), allowNull: false, defaultValue: '' });
  await qi.addColumn('comment', 'line', { type: DataTypes.BIGINT, allowNull: false, defaultValue: 0 });
  await qi.addColumn('comment', 'patch', { type: DataTypes.TEXT, allowNull: false, defaultValue: '' });
  await qi.addColumn('comment', 'invalidated', flag);
  await qi.addColumn('comment', 'resolve_doer_id', int);
  // why: a review's line comments are listed and counted by review.
  await qi.addIndex('comment', ['review_id'], { name: 'IDX_comment_review_id' });
}

/** Drop it. */
export async function down({ context: qi }: MigrationParams): Promise<void> {
  await qi.removeIndex('comment', 'IDX_comment_review_id');
  for (const c of ['resolve_doer_id', 'invalidated', 'patch', 'line', 'tree_path']) await qi.removeColumn('comment', c);
  await qi.dropTable('review');
}
