/**
 * Who wrote a migrated issue, comment, reaction, review or release on its source, when no local
 * user is that person (Gitea's original_author and original_author_id): the rows then belong to
 * the user who migrated, and these columns keep the source's name and id.
 */
import { DataTypes } from 'sequelize';
import type { MigrationParams } from './types';

const TABLES = ['issue', 'comment', 'reaction', 'review', 'release'];

/** Add original_author and original_author_id. */
export async function up({ context: qi }: MigrationParams): Promise<void> {
  for (const t of TABLES) {
    await qi.addColumn(t, 'original_author', { type: DataTypes.STRING(255), allowNull: false, defaultValue: '' });
    await qi.addColumn(t, 'original_author_id', { type: DataTypes.BIGINT, allowNull: false, defaultValue: 0 });
  }
}

/** Drop them. */
export async function down({ context: qi }: MigrationParams): Promise<void> {
  for (const t of TABLES) {
    await qi.removeColumn(t, 'original_author_id');
    await qi.removeColumn(t, 'original_author');
  }
}
