/**
 * SSH and GPG keys: a fingerprint is registered once across the whole site, a GPG key id once,
 * and the armored text a GPG key was uploaded with is kept for signature verification.
 */
import { DataTypes } from 'sequelize';
import type { MigrationParams } from './types';

/** Add the unique indexes and the gpg_key_import table. */
export async function up({ context: qi }: MigrationParams): Promise<void> {
  // why: Gitea refuses a key whose fingerprint exists anywhere (deploy keys share one row per
  // content), so the database enforces it too and two racing uploads cannot both win.
  await qi.removeIndex('public_key', 'IDX_public_key_fingerprint');
  await qi.addIndex('public_key', ['fingerprint'], { unique: true, name: 'UQE_public_key_fingerprint' });
  await qi.removeIndex('gpg_key', 'IDX_gpg_key_key_id');
  await qi.addIndex('gpg_key', ['key_id'], { unique: true, name: 'UQE_gpg_key_key_id' });
  await qi.createTable('gpg_key_import', {
    key_id: { type: DataTypes.STRING(16), primaryKey: true, allowNull: false },
    content: { type: DataTypes.TEXT, allowNull: false },
    created_at: { type: DataTypes.DATE, allowNull: false },
    updated_at: { type: DataTypes.DATE, allowNull: false },
  });
}

/** Back to the foundation's plain indexes. */
export async function down({ context: qi }: MigrationParams): Promise<void> {
  await qi.dropTable('gpg_key_import');
  await qi.removeIndex('gpg_key', 'UQE_gpg_key_key_id');
  await qi.addIndex('gpg_key', ['key_id'], { name: 'IDX_gpg_key_key_id' });
  await qi.removeIndex('public_key', 'UQE_public_key_fingerprint');
  await qi.addIndex('public_key', ['fingerprint'], { name: 'IDX_public_key_fingerprint' });
}
