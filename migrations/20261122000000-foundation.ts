/**
 * Foundation schema: users and organizations, emails, follows, tokens, keys, blocks, badges,
 * organizations' members and teams, repositories with their units and collaborators.
 */
import { DataTypes, type ModelAttributes } from 'sequelize';
import type { MigrationParams } from './types';

const id = { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true, allowNull: false };
const int = (def?: number) => ({ type: DataTypes.INTEGER, allowNull: false, ...(def === undefined ? {} : { defaultValue: def }) });
const str = (len = 255, def: string | undefined = '') => ({ type: DataTypes.STRING(len), allowNull: false, ...(def === undefined ? {} : { defaultValue: def }) });
const text = (def = '') => ({ type: DataTypes.TEXT, allowNull: false, defaultValue: def });
const bool = (def: boolean) => ({ type: DataTypes.BOOLEAN, allowNull: false, defaultValue: def });
const date = () => ({ type: DataTypes.DATE, allowNull: true });
const stamps = { created_at: { type: DataTypes.DATE, allowNull: false }, updated_at: { type: DataTypes.DATE, allowNull: false } };

const tables: Record<string, { cols: ModelAttributes; unique?: string[][]; index?: string[][] }> = {
  users: {
    cols: {
      id, lower_name: str(40, undefined), name: str(40, undefined), full_name: str(), email: str(), keep_email_private: bool(false),
      passwd_hash: str(), must_change_password: bool(false), login_source: int(0), login_name: str(), type: int(0),
      location: str(), website: str(), description: text(), visibility: int(0), is_active: bool(true), is_admin: bool(false),
      is_restricted: bool(false), prohibit_login: bool(false), allow_git_hook: bool(false), allow_import_local: bool(false),
      allow_create_organization: bool(true), max_repo_creation: int(-1), repo_admin_change_team_access: bool(true),
      avatar: str(2048), avatar_email: str(), num_followers: int(0), num_following: int(0), num_stars: int(0), num_repos: int(0),
      language: str(), theme: str(), diff_view_style: str(), hide_activity: bool(false), enable_repo_unit_hints: bool(false),
      last_login_at: date(), ...stamps,
    },
    unique: [['lower_name']],
    index: [['type'], ['email']],
  },
  email_address: {
    cols: { id, uid: int(), email: str(255, undefined), lower_email: str(255, undefined), is_activated: bool(false), is_primary: bool(false), ...stamps },
    unique: [['lower_email']],
    index: [['uid']],
  },
  follow: { cols: { id, user_id: int(), follow_id: int(), ...stamps }, unique: [['user_id', 'follow_id']], index: [['follow_id']] },
  access_token: {
    cols: { id, uid: int(), name: str(255, undefined), token_hash: str(64, undefined), token_last_eight: str(8, undefined), scope: str(1024), last_used_at: date(), ...stamps },
    unique: [['token_hash'], ['uid', 'name']],
  },
  public_key: {
    cols: {
      id, owner_id: int(), name: str(255, undefined), fingerprint: str(255, undefined), content: text(), key_type: str(32, undefined),
      mode: int(2), type: int(1), verified: bool(false), last_used_at: date(), ...stamps,
    },
    index: [['owner_id'], ['fingerprint']],
  },
  gpg_key: {
    cols: {
      id, owner_id: int(), key_id: str(16, undefined), primary_key_id: str(16), content: text(), emails: text('[]'), verified: bool(false),
      can_sign: bool(false), can_encrypt_comms: bool(false), can_encrypt_storage: bool(false), can_certify: bool(false),
      key_created_at: date(), expires_at: date(), ...stamps,
    },
    index: [['owner_id'], ['key_id']],
  },
  user_blocking: { cols: { id, blocker_id: int(), blockee_id: int(), note: str(), ...stamps }, unique: [['blocker_id', 'blockee_id']], index: [['blockee_id']] },
  badge: { cols: { id, slug: str(255, undefined), description: str(), image_url: str(2048), ...stamps }, unique: [['slug']] },
  user_badge: { cols: { id, badge_id: int(), user_id: int(), ...stamps }, unique: [['user_id', 'badge_id']] },
  org_user: { cols: { id, uid: int(), org_id: int(), is_public: bool(false), ...stamps }, unique: [['uid', 'org_id']], index: [['org_id']] },
  team: {
    cols: {
      id, org_id: int(), lower_name: str(255, undefined), name: str(255, undefined), description: str(), authorize: int(1),
      includes_all_repositories: bool(false), can_create_org_repo: bool(false), ...stamps,
    },
    unique: [['org_id', 'lower_name']],
  },
  team_user: { cols: { id, org_id: int(), team_id: int(), uid: int(), ...stamps }, unique: [['team_id', 'uid']], index: [['uid'], ['org_id']] },
  team_unit: { cols: { id, org_id: int(), team_id: int(), type: int(), access_mode: int(0), ...stamps }, unique: [['team_id', 'type']] },
  team_repo: { cols: { id, org_id: int(), team_id: int(), repo_id: int(), ...stamps }, unique: [['team_id', 'repo_id']], index: [['repo_id']] },
  repository: {
    cols: {
      id, owner_id: int(), owner_name: str(255, undefined), lower_name: str(255, undefined), name: str(255, undefined), description: text(),
      website: str(2048), default_branch: str(255, 'main'), is_private: bool(false), is_empty: bool(true), is_archived: bool(false),
      is_mirror: bool(false), is_fork: bool(false), fork_id: int(0), is_template: bool(false), template_id: int(0),
      size: { type: DataTypes.BIGINT, allowNull: false, defaultValue: 0 }, object_format_name: str(16, 'sha1'),
      num_stars: int(0), num_watches: int(0), num_forks: int(0), ...stamps,
    },
    unique: [['owner_id', 'lower_name']],
  },
  repo_unit: {
    cols: { id, repo_id: int(), type: int(), config: text('{}'), anonymous_access_mode: int(0), everyone_access_mode: int(0), ...stamps },
    unique: [['repo_id', 'type']],
  },
  collaboration: { cols: { id, repo_id: int(), user_id: int(), mode: int(2), ...stamps }, unique: [['repo_id', 'user_id']], index: [['user_id']] },
};

/** Create the foundation tables. */
export async function up({ context: qi }: MigrationParams): Promise<void> {
  for (const [name, t] of Object.entries(tables)) {
    await qi.createTable(name, t.cols);
    for (const cols of t.unique ?? []) await qi.addIndex(name, cols, { unique: true, name: `UQE_${name}_${cols.join('_')}` });
    for (const cols of t.index ?? []) await qi.addIndex(name, cols, { name: `IDX_${name}_${cols.join('_')}` });
  }
}

/** Drop them again. */
export async function down({ context: qi }: MigrationParams): Promise<void> {
  for (const name of Object.keys(tables).reverse()) await qi.dropTable(name);
}
