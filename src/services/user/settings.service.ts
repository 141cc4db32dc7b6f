/**
 * `/user/settings`: the profile and preference columns a user changes on their own account.
 * Validation follows Gitea's binding rules and messages (`[GoField]: Rule`).
 */
import type { DbContext } from '../../db';
import { Validation } from '../../errors';
import { EMAIL_PREFERENCES } from '../../config';
import { findUserById, updateUserSettings, type UserModel, type UserSettingsPatch } from '../../models/user.model';

/** The fields of a settings change, as the API names them; absent = unchanged. */
export interface SettingsChange {
  full_name?: string; website?: string; description?: string; location?: string;
  language?: string; theme?: string; diff_view_style?: string; hide_email?: boolean; hide_activity?: boolean;
}

const runes = (s: string) => [...s].length;

function maxSize(field: string, v: string | undefined, n: number): void {
  if (v !== undefined && runes(v) > n) throw new Validation(`[${field}]: MaxSize`);
}

function validUrl(v: string): boolean {
  try {
    const u = new URL(v);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
  } catch {
    return false;
  }
}

/** Throw 422 on the first field that breaks a rule. */
export function assertSettings(c: SettingsChange): void {
  maxSize('FullName', c.full_name, 100);
  if (c.website !== undefined && c.website !== '' && !validUrl(c.website)) throw new Validation('[Website]: Url');
  maxSize('Website', c.website, 255);
  maxSize('Description', c.description, 255);
  maxSize('Location', c.location, 50);
  // why: Gitea's API stores these unchecked; we keep them to shapes its UI understands so junk cannot be stored.
  if (c.language !== undefined && c.language !== '' && !/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(c.language)) throw new Validation('[Language]: invalid language');
  if (c.theme !== undefined && !/^[\w.-]{0,100}$/.test(c.theme)) throw new Validation('[Theme]: invalid theme');
  if (c.diff_view_style !== undefined && !['', 'unified', 'split'].includes(c.diff_view_style)) throw new Validation('[DiffViewStyle]: In');
}

/** Apply a settings change to `user` and return the updated row. */
export async function changeSettings(ctx: DbContext, user: UserModel, c: SettingsChange): Promise<UserModel> {
  assertSettings(c);
  const patch: UserSettingsPatch = {};
  if (c.full_name !== undefined) patch.fullName = c.full_name;
  if (c.website !== undefined) patch.website = c.website;
  if (c.description !== undefined) patch.description = c.description;
  if (c.location !== undefined) patch.location = c.location;
  if (c.language !== undefined) patch.language = c.language;
  if (c.theme !== undefined) patch.theme = c.theme;
  if (c.diff_view_style !== undefined) patch.diffViewStyle = c.diff_view_style;
  if (c.hide_email !== undefined) patch.keepEmailPrivate = c.hide_email;
  if (c.hide_activity !== undefined) patch.hideActivity = c.hide_activity;
  await updateUserSettings(ctx, user.id, patch);
  return (await findUserById(ctx, user.id)) ?? user;
}

/** Choose which notification mails the user gets (Gitea's values: enabled, onmention, disabled, andyourown). */
export async function setEmailPreference(ctx: DbContext, user: UserModel, preference: string): Promise<void> {
  if (!(EMAIL_PREFERENCES as readonly string[]).includes(preference)) throw new Validation(`the email notification preference must be one of ${EMAIL_PREFERENCES.join(', ')}`);
  await updateUserSettings(ctx, user.id, { emailNotificationsPreference: preference });
}
