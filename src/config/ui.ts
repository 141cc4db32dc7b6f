/** [ui] (Gitea's ui.go): what /settings/ui reports. */
import { section } from './spec';

/** [ui]: what /settings/ui reports. */
export interface UiSettings { defaultTheme: string; themes: string[]; reactions: string[]; customEmojis: string[] }

/** [ui]. */
export const uiSection = section<UiSettings>('ui', {
  DEFAULT_THEME: { kind: 'string', def: 'gitea-auto' },
  // why: the themes the stylesheet has; a user picks among these on the appearance page.
  THEMES: { kind: 'list', def: 'gitea-auto, gitea-light, gitea-dark' },
  REACTIONS: { kind: 'list', def: '+1, -1, laugh, hooray, confused, heart, rocket, eyes', keepCase: true },
  CUSTOM_EMOJIS: { kind: 'list', def: 'gitea, codeberg, gitlab, git, github, gogs', keepCase: true },
});
