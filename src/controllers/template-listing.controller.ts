/**
 * The instance's templates for new repositories: `.gitignore` files, licenses and label sets.
 */
import { Controller, Get, Path, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { GitignoreTemplateInfo, LabelTemplate, LicenseTemplateInfo, LicensesTemplateListEntry } from '../api/misc';
import type { ApiErrorBody } from '../errors';
import { settings } from '../config';
import { labelTemplateNames, labelTemplateOrNull } from '../services/issue/label.service';
import { gitignoreTemplate, gitignoreTemplateNames, licenseTemplate, licenseTemplateNames, templateFound } from '../services/repo/templates';

const licenseUrl = (key: string) => `${settings().server.rootUrl}api/v1/licenses/${encodeURIComponent(key)}`;

@Route('gitignore/templates')
@Tags('miscellaneous')
export class GitignoreTemplateController extends Controller {
  /** Returns a list of all gitignore templates. */
  @Get()
  @Security('public')
  public async listGitignoresTemplates(): Promise<string[]> {
    return gitignoreTemplateNames();
  }

  /** Returns information about a gitignore template. */
  @Get('{name}')
  @Security('public')
  @Response<ApiErrorBody>(404, 'not found')
  public async getGitignoreTemplateInfo(@Path() name: string): Promise<GitignoreTemplateInfo> {
    return { name, source: templateFound(gitignoreTemplate(name), 'gitignore', name) };
  }
}

@Route('licenses')
@Tags('miscellaneous')
export class LicenseTemplateController extends Controller {
  /** Returns a list of all license templates. */
  @Get()
  @Security('public')
  public async listLicenseTemplates(): Promise<LicensesTemplateListEntry[]> {
    return licenseTemplateNames().map((key) => ({ key, name: key, url: licenseUrl(key) }));
  }

  /** Returns information about a license template. */
  @Get('{name}')
  @Security('public')
  @Response<ApiErrorBody>(404, 'not found')
  public async getLicenseTemplateInfo(@Path() name: string): Promise<LicenseTemplateInfo> {
    const l = templateFound(licenseTemplate(name), 'license', name);
    return {
      key: l.id, name: l.id, url: licenseUrl(l.id), body: l.text,
      // why: Gitea adds GitHub's sentence to every license, for clients written against GitHub's API.
      implementation: 'Create a text file (typically named LICENSE or LICENSE.txt) in the root of your source code and copy the text of the license into the file',
    };
  }
}

@Route('label/templates')
@Tags('miscellaneous')
export class LabelTemplateController extends Controller {
  /** Returns a list of all label templates. */
  @Get()
  @Security('public')
  public async listLabelTemplates(): Promise<string[]> {
    return labelTemplateNames();
  }

  /** Returns all labels in a template. */
  @Get('{name}')
  @Security('public')
  @Response<ApiErrorBody>(404, 'not found')
  public async getLabelTemplateInfo(@Path() name: string): Promise<LabelTemplate[]> {
    return templateFound(labelTemplateOrNull(name), 'label', name).map((l) => ({
      name: l.name, exclusive: !!l.exclusive, color: l.color.replace(/^#/, ''), description: l.description ?? '',
    }));
  }
}
