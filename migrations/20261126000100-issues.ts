/**
 * The issue tracker, with Gitea's table and column names: `issue` (issues and, later, pull
 * requests), `comment` (comments and the timeline's history entries), labels, milestones,
 * assignees, mentions (`issue_user`), reactions, dependencies, pins, stopwatches, tracked time and
 * subscriptions (`issue_watch`). Times are Unix seconds, as Gitea stores them.
 *
 * Two tables are ours: `repo_issue_counter` (the per-repository index and the counters Gitea keeps
 * on `repository`) and the full-text tables `issue_fts`/`comment_fts` (FTS5 on SQLite, a tsvector
 * with a GIN index on PostgreSQL).
 */
import { DataTypes } from 'sequelize';
import type { MigrationParams } from './types';

const id = { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true, allowNull: false };
const int = (def = 0) => ({ type: DataTypes.INTEGER, allowNull: false, defaultValue: def });
const big = (def = 0) => ({ type: DataTypes.BIGINT, allowNull: false, defaultValue: def });
const bool = (def = false) => ({ type: DataTypes.BOOLEAN, allowNull: false, defaultValue: def });
const str = (n = 255) => ({ type: DataTypes.STRING(n), allowNull: false, defaultValue: '' });
const text = () => ({ type: DataTypes.TEXT, allowNull: false, defaultValue: '' });
const unix = { created_unix: big(), updated_unix: big() };

/** Create the tracker's tables and indexes. */
export async function up({ context: qi }: MigrationParams): Promise<void> {
  const dialect = qi.sequelize.getDialect();
  await qi.createTable('issue', {
    id, repo_id: int(), index: big(), poster_id: int(), name: str(255), content: text(), milestone_id: int(), priority: int(),
    is_closed: bool(), is_pull: bool(), num_comments: int(), ref: str(255), deadline_unix: big(), is_locked: bool(),
    content_version: int(), closed_unix: big(), ...unix,
  });
  // why: the per-repository number is allocated in the creating transaction; the index makes a duplicate impossible.
  await qi.addIndex('issue', ['repo_id', 'index'], { unique: true, name: 'UQE_issue_repo_index' });
  // why: the default listing (state, newest first) reads this index alone, so a deep page is a short index walk.
  await qi.addIndex('issue', ['repo_id', 'is_closed', 'created_unix', 'id', 'is_pull'], { name: 'IDX_issue_repo_state_created' });
  // why: a search across many repositories walks issues newest first and keeps those of the caller's repositories.
  await qi.addIndex('issue', ['is_closed', 'created_unix', 'id', 'repo_id', 'is_pull'], { name: 'IDX_issue_state_created' });
  await qi.addIndex('issue', ['poster_id'], { name: 'IDX_issue_poster_id' });
  await qi.addIndex('issue', ['milestone_id'], { name: 'IDX_issue_milestone_id' });
  await qi.addIndex('issue', ['closed_unix'], { name: 'IDX_issue_closed_unix' });
  await qi.addIndex('issue', ['updated_unix'], { name: 'IDX_issue_updated_unix' });

  await qi.createTable('repo_issue_counter', {
    repo_id: { type: DataTypes.INTEGER, primaryKey: true, allowNull: false }, max_index: big(),
    num_issues: int(), num_closed_issues: int(), num_pulls: int(), num_closed_pulls: int(), num_milestones: int(), num_closed_milestones: int(),
  });

  await qi.createTable('comment', {
    id, type: int(), poster_id: int(), issue_id: int(), label_id: int(), old_milestone_id: int(), milestone_id: int(),
    assignee_id: int(), removed_assignee: bool(), assignee_team_id: int(), old_title: str(255), new_title: str(255),
    old_ref: str(255), new_ref: str(255), dependent_issue_id: int(), time_id: int(), ref_repo_id: int(), ref_issue_id: int(),
    ref_comment_id: int(), ref_action: int(), ref_is_pull: bool(), commit_sha: str(64), content: text(), content_version: int(),
    review_id: int(), ...unix,
  });
  await qi.addIndex('comment', ['issue_id', 'created_unix', 'id'], { name: 'IDX_comment_issue_created' });
  await qi.addIndex('comment', ['poster_id'], { name: 'IDX_comment_poster_id' });
  await qi.addIndex('comment', ['ref_issue_id'], { name: 'IDX_comment_ref_issue_id' });
  await qi.addIndex('comment', ['dependent_issue_id'], { name: 'IDX_comment_dependent_issue_id' });
  await qi.addIndex('comment', ['label_id'], { name: 'IDX_comment_label_id' });
  await qi.addIndex('comment', ['updated_unix'], { name: 'IDX_comment_updated_unix' });

  await qi.createTable('label', {
    id, repo_id: int(), org_id: int(), name: str(255), exclusive: bool(), description: str(255), color: str(7),
    num_issues: int(), num_closed_issues: int(), archived_unix: big(), ...unix,
  });
  await qi.addIndex('label', ['repo_id'], { name: 'IDX_label_repo_id' });
  await qi.addIndex('label', ['org_id'], { name: 'IDX_label_org_id' });
  await qi.createTable('issue_label', { id, issue_id: int(), label_id: int() });
  await qi.addIndex('issue_label', ['issue_id', 'label_id'], { unique: true, name: 'UQE_issue_label_s' });
  await qi.addIndex('issue_label', ['label_id', 'issue_id'], { name: 'IDX_issue_label_label' });

  await qi.createTable('milestone', {
    id, repo_id: int(), name: str(255), content: text(), is_closed: bool(), num_issues: int(), num_closed_issues: int(),
    completeness: int(), deadline_unix: big(), closed_date_unix: big(), ...unix,
  });
  await qi.addIndex('milestone', ['repo_id'], { name: 'IDX_milestone_repo_id' });

  await qi.createTable('issue_assignees', { id, assignee_id: int(), issue_id: int() });
  await qi.addIndex('issue_assignees', ['issue_id', 'assignee_id'], { unique: true, name: 'UQE_issue_assignees_s' });
  await qi.addIndex('issue_assignees', ['assignee_id'], { name: 'IDX_issue_assignees_assignee_id' });
  await qi.createTable('issue_user', { id, uid: int(), issue_id: int(), is_read: bool(), is_mentioned: bool() });
  await qi.addIndex('issue_user', ['issue_id', 'uid'], { unique: true, name: 'UQE_issue_user_s' });
  await qi.addIndex('issue_user', ['uid'], { name: 'IDX_issue_user_uid' });

  await qi.createTable('reaction', { id, type: str(255), issue_id: int(), comment_id: int(), user_id: int(), created_unix: big() });
  await qi.addIndex('reaction', ['type', 'issue_id', 'comment_id', 'user_id'], { unique: true, name: 'UQE_reaction_s' });
  await qi.addIndex('reaction', ['issue_id', 'comment_id'], { name: 'IDX_reaction_issue_comment' });

  await qi.createTable('issue_dependency', { id, user_id: int(), issue_id: int(), dependency_id: int(), ...unix });
  await qi.addIndex('issue_dependency', ['issue_id', 'dependency_id'], { unique: true, name: 'UQE_issue_dependency_s' });
  await qi.addIndex('issue_dependency', ['dependency_id'], { name: 'IDX_issue_dependency_dependency_id' });

  await qi.createTable('issue_pin', { id, repo_id: int(), issue_id: int(), is_pull: bool(), pin_order: int() });
  await qi.addIndex('issue_pin', ['issue_id'], { unique: true, name: 'UQE_issue_pin_issue_id' });
  await qi.addIndex('issue_pin', ['repo_id', 'is_pull', 'pin_order'], { name: 'IDX_issue_pin_order' });

  await qi.createTable('stopwatch', { id, issue_id: int(), user_id: int(), created_unix: big() });
  await qi.addIndex('stopwatch', ['user_id', 'issue_id'], { unique: true, name: 'UQE_stopwatch_s' });
  await qi.addIndex('stopwatch', ['issue_id'], { name: 'IDX_stopwatch_issue_id' });
  await qi.createTable('tracked_time', { id, issue_id: int(), user_id: int(), created_unix: big(), time: big(), deleted: bool() });
  await qi.addIndex('tracked_time', ['issue_id'], { name: 'IDX_tracked_time_issue_id' });
  await qi.addIndex('tracked_time', ['user_id'], { name: 'IDX_tracked_time_user_id' });

  await qi.createTable('issue_watch', { id, user_id: int(), issue_id: int(), is_watching: bool(), ...unix });
  await qi.addIndex('issue_watch', ['issue_id', 'user_id'], { unique: true, name: 'UQE_issue_watch_s' });

  await attachmentIndexes(qi);
  await fullText(qi, dialect);
}

async function attachmentIndexes(qi: MigrationParams['context']): Promise<void> {
  await qi.addIndex('attachment', ['issue_id'], { name: 'IDX_attachment_issue_id' });
  await qi.addIndex('attachment', ['comment_id'], { name: 'IDX_attachment_comment_id' });
}

/**
 * The keyword index: one document per issue (title and body) and one per comment, each keyed by
 * its row id. why: the database's own index answers `q` without an external indexer; 'simple' and
 * unicode61 both fold case without stemming, so the two databases match the same words.
 */
async function fullText(qi: MigrationParams['context'], dialect: string): Promise<void> {
  if (dialect === 'sqlite') {
    for (const t of ['issue_fts', 'comment_fts']) {
      // why: a plain FTS5 table (it keeps a copy of the text): contentless variants need SQLite 3.43,
      // and the sqlite3 tool of Debian stable, which restores a dump, is older.
      await qi.sequelize.query(`CREATE VIRTUAL TABLE ${t} USING fts5(body, tokenize='unicode61 remove_diacritics 0')`);
    }
    return;
  }
  for (const t of ['issue_fts', 'comment_fts']) {
    await qi.sequelize.query(`CREATE TABLE ${t} (id INTEGER PRIMARY KEY, doc tsvector NOT NULL)`);
    await qi.sequelize.query(`CREATE INDEX "IDX_${t}_doc" ON ${t} USING GIN (doc)`);
  }
}

/** Drop the tracker's tables. */
export async function down({ context: qi }: MigrationParams): Promise<void> {
  await qi.removeIndex('attachment', 'IDX_attachment_issue_id');
  await qi.removeIndex('attachment', 'IDX_attachment_comment_id');
  for (const t of [
    'comment_fts', 'issue_fts', 'issue_watch', 'tracked_time', 'stopwatch', 'issue_pin', 'issue_dependency', 'reaction', 'issue_user',
    'issue_assignees', 'milestone', 'issue_label', 'label', 'comment', 'repo_issue_counter', 'issue',
  ]) {
    await qi.sequelize.query(`DROP TABLE IF EXISTS ${t}`);
  }
}
