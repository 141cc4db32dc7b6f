/** users row -> API UserSettings. */
import type { UserSettings } from '../api/user-settings';
import type { UserModel } from '../models/user.model';

/** The settings of a user, as `/user/settings` shows them to that user. */
export function toUserSettings(u: UserModel): UserSettings {
  return {
    full_name: u.fullName,
    website: u.website,
    description: u.description,
    location: u.location,
    language: u.language,
    theme: u.theme,
    diff_view_style: u.diffViewStyle,
    hide_email: u.keepEmailPrivate,
    hide_activity: u.hideActivity,
  };
}
