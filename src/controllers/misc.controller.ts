/**
 * Miscellaneous endpoints: the server version.
 */
import { Controller, Get, Route, Security, Tags, Response } from '@tsoa/runtime';
import pkg from '../../package.json';
import { GITEA_API_LEVEL, type ServerVersion } from '../api/misc';

@Route('version')
@Tags('miscellaneous')
export class VersionController extends Controller {
  /** Returns the version of the running server. */
  @Get()
  @Security('public', ['misc'])
  @Response<ServerVersion>(200, 'ServerVersion')
  public async getVersion(): Promise<ServerVersion> {
    // why: Gitea clients gate features on the server version, so we report the Gitea API level we implement.
    return { version: `${GITEA_API_LEVEL}+forge-${pkg.version}` };
  }
}
