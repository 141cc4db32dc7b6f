/**
 * The wiki: Gitea's repository.default_wiki_branch, the branch a repository's wiki
 * (`<repo>.wiki.git`) serves its pages from. Gitea 1.24 gives new repositories its default branch
 * setting (main), which is what every existing row gets here (no wiki existed before).
 */
import { DataTypes } from 'sequelize';
import type { MigrationParams } from './types';

/** Add repository.default_wiki_branch. */
export async function up({ context: qi }: MigrationParams): Promise<void> {
  await qi.addColumn('repository', 'default_wiki_branch', { type: DataTypes.STRING(255), allowNull: false, defaultValue: 'main' });
}

/** Drop it again. */
export async function down({ context: qi }: MigrationParams): Promise<void> {
  await qi.removeColumn('repository', 'default_wiki_branch');
}
