/**
 * Project boards (Gitea's models/project): `project` (a repository's, or a user's or organization's
 * board), `project_board` (its columns: Gitea's table keeps the old name; sorting, colour, the
 * default column), `project_issue` (a card: an issue or pull request in a column, with its place in
 * it), and on `comment` the project a `project` timeline entry moved the issue to and from, and the
 * JSON a `project_board` entry keeps (Gitea's comment_meta_data: the project's and column's titles).
 */
import { DataTypes } from 'sequelize';
import type { MigrationParams } from './types';

/** Create the project tables and the comment columns. */
export async function up({ context: qi }: MigrationParams): Promise<void> {
  await qi.createTable('project', {
    id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true, allowNull: false },
    title: { type: DataTypes.STRING(255), allowNull: false },
    description: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
    owner_id: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
    repo_id: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
    creator_id: { type: DataTypes.INTEGER, allowNull: false },
    is_closed: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
    // why: Gitea's column name; it holds the template the project was made from (TemplateType).
    board_type: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
    card_type: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
    type: { type: DataTypes.INTEGER, allowNull: false },
    created_unix: { type: DataTypes.BIGINT, allowNull: false, defaultValue: 0 },
    updated_unix: { type: DataTypes.BIGINT, allowNull: false, defaultValue: 0 },
    closed_date_unix: { type: DataTypes.BIGINT, allowNull: false, defaultValue: 0 },
  });
  await qi.addIndex('project', ['repo_id', 'is_closed'], { name: 'IDX_project_repo_closed' });
  await qi.addIndex('project', ['owner_id', 'is_closed'], { name: 'IDX_project_owner_closed' });

  await qi.createTable('project_board', {
    id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true, allowNull: false },
    title: { type: DataTypes.STRING(255), allowNull: false, defaultValue: '' },
    default: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
    sorting: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
    color: { type: DataTypes.STRING(7), allowNull: false, defaultValue: '' },
    project_id: { type: DataTypes.INTEGER, allowNull: false },
    creator_id: { type: DataTypes.INTEGER, allowNull: false },
    created_unix: { type: DataTypes.BIGINT, allowNull: false, defaultValue: 0 },
    updated_unix: { type: DataTypes.BIGINT, allowNull: false, defaultValue: 0 },
  });
  await qi.addIndex('project_board', ['project_id'], { name: 'IDX_project_board_project_id' });

  await qi.createTable('project_issue', {
    id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true, allowNull: false },
    issue_id: { type: DataTypes.INTEGER, allowNull: false },
    project_id: { type: DataTypes.INTEGER, allowNull: false },
    project_board_id: { type: DataTypes.INTEGER, allowNull: false },
    sorting: { type: DataTypes.BIGINT, allowNull: false, defaultValue: 0 },
  });
  // why: an issue is on a project once; the board reads a project's cards by column in order.
  await qi.addIndex('project_issue', ['project_id', 'issue_id'], { name: 'UQE_project_issue_project_issue', unique: true });
  await qi.addIndex('project_issue', ['issue_id'], { name: 'IDX_project_issue_issue_id' });
  await qi.addIndex('project_issue', ['project_board_id', 'sorting'], { name: 'IDX_project_issue_board_sorting' });

  await qi.addColumn('comment', 'project_id', { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 });
  await qi.addColumn('comment', 'old_project_id', { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 });
  await qi.addColumn('comment', 'comment_meta_data', { type: DataTypes.TEXT, allowNull: false, defaultValue: '' });
}

/** Drop them again. */
export async function down({ context: qi }: MigrationParams): Promise<void> {
  await qi.removeColumn('comment', 'comment_meta_data');
  await qi.removeColumn('comment', 'old_project_id');
  await qi.removeColumn('comment', 'project_id');
  await qi.dropTable('project_issue');
  await qi.dropTable('project_board');
  await qi.dropTable('project');
}
