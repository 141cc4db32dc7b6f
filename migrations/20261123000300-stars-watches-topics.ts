/**
 * Stars, watches and topics: who starred or watches which repository, and the topics attached to
 * repositories (with a per-topic repository count for /topics/search).
 */
import { DataTypes } from 'sequelize';
import type { MigrationParams } from './types';

const id = { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true, allowNull: false };
const int = (def?: number) => ({ type: DataTypes.INTEGER, allowNull: false, ...(def === undefined ? {} : { defaultValue: def }) });
const stamps = { created_at: { type: DataTypes.DATE, allowNull: false }, updated_at: { type: DataTypes.DATE, allowNull: false } };

/** Create star, watch, topic and repo_topic. */
export async function up({ context: qi }: MigrationParams): Promise<void> {
  await qi.createTable('star', { id, uid: int(), repo_id: int(), ...stamps });
  // why: the unique pairs make a racing double star/watch fail instead of counting twice.
  await qi.addIndex('star', ['uid', 'repo_id'], { unique: true, name: 'UQE_star_s' });
  await qi.addIndex('star', ['repo_id'], { name: 'IDX_star_repo_id' });
  await qi.createTable('watch', { id, user_id: int(), repo_id: int(), mode: int(1), ...stamps });
  await qi.addIndex('watch', ['user_id', 'repo_id'], { unique: true, name: 'UQE_watch_watch' });
  await qi.addIndex('watch', ['repo_id'], { name: 'IDX_watch_repo_id' });
  await qi.createTable('topic', { id, name: { type: DataTypes.STRING(50), allowNull: false }, repo_count: int(0), ...stamps });
  await qi.addIndex('topic', ['name'], { unique: true, name: 'UQE_topic_name' });
  await qi.createTable('repo_topic', { id, repo_id: int(), topic_id: int(), ...stamps });
  await qi.addIndex('repo_topic', ['repo_id', 'topic_id'], { unique: true, name: 'UQE_repo_topic_s' });
  await qi.addIndex('repo_topic', ['topic_id'], { name: 'IDX_repo_topic_topic_id' });
}

/** Drop the four tables. */
export async function down({ context: qi }: MigrationParams): Promise<void> {
  for (const t of ['repo_topic', 'topic', 'watch', 'star']) await qi.dropTable(t);
}
