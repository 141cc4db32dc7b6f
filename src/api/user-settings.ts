/** The signed-in user's settings (structs.UserSettings). */
export interface UserSettings {
  full_name: string;
  website: string;
  description: string;
  location: string;
  language: string;
  theme: string;
  diff_view_style: string;
  /** Privacy: keep the email address private */
  hide_email: boolean;
  /** Privacy: hide the activity from the profile */
  hide_activity: boolean;
}

/** Changes to the signed-in user's settings; only the fields present are changed (structs.UserSettingsOptions). */
export interface UserSettingsOptions {
  full_name?: string;
  website?: string;
  description?: string;
  location?: string;
  language?: string;
  theme?: string;
  diff_view_style?: string;
  hide_email?: boolean;
  hide_activity?: boolean;
}
