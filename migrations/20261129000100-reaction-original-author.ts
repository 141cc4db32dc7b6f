/**
 * A reaction's uniqueness includes original_author, as Gitea's: two people of a migration's source
 * who gave the same reaction are both kept on behalf of the user who migrated (their user_id is
 * the same), where the old index refused the second and stopped the migration.
 */
import type { MigrationParams } from './types';

/** Widen UQE_reaction_s with original_author. */
export async function up({ context: qi }: MigrationParams): Promise<void> {
  await qi.removeIndex('reaction', 'UQE_reaction_s');
  await qi.addIndex('reaction', ['type', 'issue_id', 'comment_id', 'user_id', 'original_author'], { unique: true, name: 'UQE_reaction_s' });
}

/** Narrow it again (fails if migrated reactions now collide). */
export async function down({ context: qi }: MigrationParams): Promise<void> {
  await qi.removeIndex('reaction', 'UQE_reaction_s');
  await qi.addIndex('reaction', ['type', 'issue_id', 'comment_id', 'user_id'], { unique: true, name: 'UQE_reaction_s' });
}
