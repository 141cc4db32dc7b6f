/**
 * The forge as an OAuth2 / OpenID Connect provider (Gitea's `oauth2_application`,
 * `oauth2_authorization_code` and `oauth2_grant`). An application's client secret and an
 * authorization code are stored as their SHA-256 only (both are 256 random bits); redirect URIs
 * are a JSON array. A grant is one user's consent to one application (unique pair); its counter
 * numbers the refresh tokens issued, so a refresh token used twice is recognised. Times are unix
 * seconds.
 */
import { DataTypes } from 'sequelize';
import type { MigrationParams } from './types';

/** Create the three tables. */
export async function up({ context: qi }: MigrationParams): Promise<void> {
  await qi.createTable('oauth2_application', {
    id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true, allowNull: false },
    uid: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
    name: { type: DataTypes.STRING(255), allowNull: false, defaultValue: '' },
    client_id: { type: DataTypes.STRING(64), allowNull: false },
    client_secret: { type: DataTypes.STRING(255), allowNull: false, defaultValue: '' },
    confidential_client: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: true },
    skip_secondary_authorization: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
    redirect_uris: { type: DataTypes.TEXT, allowNull: false, defaultValue: '[]' },
    created_unix: { type: DataTypes.BIGINT, allowNull: false, defaultValue: 0 },
    updated_unix: { type: DataTypes.BIGINT, allowNull: false, defaultValue: 0 },
  });
  await qi.addIndex('oauth2_application', ['client_id'], { unique: true, name: 'UQE_oauth2_application_client_id' });
  await qi.addIndex('oauth2_application', ['uid'], { name: 'IDX_oauth2_application_uid' });

  await qi.createTable('oauth2_grant', {
    id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true, allowNull: false },
    user_id: { type: DataTypes.INTEGER, allowNull: false },
    application_id: { type: DataTypes.INTEGER, allowNull: false },
    counter: { type: DataTypes.BIGINT, allowNull: false, defaultValue: 1 },
    scope: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
    nonce: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
    created_unix: { type: DataTypes.BIGINT, allowNull: false, defaultValue: 0 },
    updated_unix: { type: DataTypes.BIGINT, allowNull: false, defaultValue: 0 },
  });
  await qi.addIndex('oauth2_grant', ['user_id', 'application_id'], { unique: true, name: 'UQE_oauth2_grant_user_application' });
  await qi.addIndex('oauth2_grant', ['application_id'], { name: 'IDX_oauth2_grant_application_id' });

  await qi.createTable('oauth2_authorization_code', {
    id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true, allowNull: false },
    grant_id: { type: DataTypes.INTEGER, allowNull: false },
    code: { type: DataTypes.STRING(64), allowNull: false },
    code_challenge: { type: DataTypes.STRING(255), allowNull: false, defaultValue: '' },
    code_challenge_method: { type: DataTypes.STRING(16), allowNull: false, defaultValue: '' },
    redirect_uri: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
    valid_until: { type: DataTypes.BIGINT, allowNull: false, defaultValue: 0 },
  });
  await qi.addIndex('oauth2_authorization_code', ['code'], { unique: true, name: 'UQE_oauth2_authorization_code_code' });
  await qi.addIndex('oauth2_authorization_code', ['grant_id'], { name: 'IDX_oauth2_authorization_code_grant_id' });
  await qi.addIndex('oauth2_authorization_code', ['valid_until'], { name: 'IDX_oauth2_authorization_code_valid_until' });
}

/** Drop them. */
export async function down({ context: qi }: MigrationParams): Promise<void> {
  await qi.dropTable('oauth2_authorization_code');
  await qi.dropTable('oauth2_grant');
  await qi.dropTable('oauth2_application');
}
