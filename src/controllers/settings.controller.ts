/**
 * The instance settings that clients read before they call the rest of the API: paging and size
 * limits, attachments, which repository features are on, and the UI's reactions and emojis.
 */
import { Controller, Get, Response, Route, Security, Tags } from '@tsoa/runtime';
import { settings } from '../config';
import type { GeneralAPISettings, GeneralAttachmentSettings, GeneralRepoSettings, GeneralUISettings } from '../api/settings';

@Route('settings')
@Tags('settings')
export class SettingsController extends Controller {
  /** Get instance's global settings for api. */
  @Get('api')
  @Security('public', [])
  @Response<GeneralAPISettings>(200, 'GeneralAPISettings')
  public async getGeneralAPISettings(): Promise<GeneralAPISettings> {
    const a = settings().api;
    return {
      default_paging_num: a.defaultPagingNum,
      max_response_items: a.maxResponseItems,
      default_git_trees_per_page: a.defaultGitTreesPerPage,
      default_max_blob_size: a.defaultMaxBlobSize,
      default_max_response_size: a.defaultMaxResponseSize,
    };
  }

  /** Get instance's global settings for Attachment. */
  @Get('attachment')
  @Security('public', [])
  @Response<GeneralAttachmentSettings>(200, 'GeneralAttachmentSettings')
  public async getGeneralAttachmentSettings(): Promise<GeneralAttachmentSettings> {
    const a = settings().attachment;
    return { enabled: a.enabled, allowed_types: a.allowedTypes, max_size: a.maxSize * 1024 * 1024, max_files: a.maxFiles };
  }

  /** Get instance's global settings for repositories. */
  @Get('repository')
  @Security('public', [])
  @Response<GeneralRepoSettings>(200, 'GeneralRepoSettings')
  public async getGeneralRepositorySettings(): Promise<GeneralRepoSettings> {
    const s = settings();
    return {
      http_git_disabled: false,
      lfs_disabled: !s.server.lfsStartServer,
      migrations_disabled: s.repository.disableMigrations,
      mirrors_disabled: !s.mirror.enabled,
      stars_disabled: false,
      time_tracking_disabled: !s.service.enableTimetracking,
    };
  }

  /** Get instance's global settings for ui. */
  @Get('ui')
  @Security('public', [])
  @Response<GeneralUISettings>(200, 'GeneralUISettings')
  public async getGeneralUISettings(): Promise<GeneralUISettings> {
    const ui = settings().ui;
    return { default_theme: ui.defaultTheme, allowed_reactions: ui.reactions, custom_emojis: ui.customEmojis };
  }
}
