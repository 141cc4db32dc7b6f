/**
 * Browser sessions, and the two second factors (Gitea's `two_factor` for TOTP and
 * `webauthn_credential` for security keys). A session row is keyed by the SHA-256 of its cookie,
 * so a copy of the database opens no session. Times are unix seconds.
 */
import { DataTypes } from 'sequelize';
import type { MigrationParams } from './types';

const int = { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 };
const bigint = { type: DataTypes.BIGINT, allowNull: false, defaultValue: 0 };
const str = (n: number) => ({ type: DataTypes.STRING(n), allowNull: false, defaultValue: '' });
const text = { type: DataTypes.TEXT, allowNull: false, defaultValue: '' };

/** Create web_session, two_factor and webauthn_credential. */
export async function up({ context: qi }: MigrationParams): Promise<void> {
  await qi.createTable('web_session', {
    id: { type: DataTypes.STRING(64), primaryKey: true, allowNull: false },
    uid: int, data: text, created_unix: bigint, expiry: bigint,
  });
  await qi.addIndex('web_session', ['uid'], { name: 'IDX_web_session_uid' });
  await qi.addIndex('web_session', ['expiry'], { name: 'IDX_web_session_expiry' });
  await qi.createTable('two_factor', {
    id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true, allowNull: false },
    uid: int, secret: str(255), scratch_salt: str(255), scratch_hash: str(255), last_used_passcode: str(10),
    created_unix: bigint, updated_unix: bigint,
  });
  await qi.addIndex('two_factor', ['uid'], { unique: true, name: 'UQE_two_factor_uid' });
  await qi.createTable('webauthn_credential', {
    id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true, allowNull: false },
    name: str(255), lower_name: str(255), user_id: int, credential_id: str(1024), public_key: text,
    attestation_type: str(255), aaguid: str(64), sign_count: int, clone_warning: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
    created_unix: bigint, updated_unix: bigint,
  });
  await qi.addIndex('webauthn_credential', ['user_id', 'lower_name'], { unique: true, name: 'UQE_webauthn_credential_s' });
  await qi.addIndex('webauthn_credential', ['credential_id'], { unique: true, name: 'UQE_webauthn_credential_credential_id' });
}

/** Drop them. */
export async function down({ context: qi }: MigrationParams): Promise<void> {
  await qi.dropTable('webauthn_credential');
  await qi.dropTable('two_factor');
  await qi.dropTable('web_session');
}
