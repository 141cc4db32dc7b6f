/** [api] (Gitea's api.go): swagger, page sizes and the largest answers. */
import { ConfigError } from './errors';
import { section } from './spec';

/** [api]. */
export interface ApiSettings {
  enableSwagger: boolean; defaultPagingNum: number; maxResponseItems: number; defaultGitTreesPerPage: number;
  /** Bytes (Gitea's [api] DEFAULT_MAX_BLOB_SIZE and DEFAULT_MAX_RESPONSE_SIZE). */
  defaultMaxBlobSize: number; defaultMaxResponseSize: number;
}

/** [api]. */
export const apiSection = section<ApiSettings>('api', {
  ENABLE_SWAGGER: { kind: 'bool', def: 'true' },
  DEFAULT_PAGING_NUM: { kind: 'int', def: '30', min: 1, max: 10000 },
  MAX_RESPONSE_ITEMS: { kind: 'int', def: '50', min: 1, max: 10000 },
  DEFAULT_GIT_TREES_PER_PAGE: { kind: 'int', def: '1000', min: 1, max: 100000 },
  DEFAULT_MAX_BLOB_SIZE: { kind: 'int', def: '10485760', min: 0, max: 1e12 },
  DEFAULT_MAX_RESPONSE_SIZE: { kind: 'int', def: '104857600', min: 0, max: 1e12 },
});

/** A default page larger than the largest page would answer more than the bound. */
export function checkApi(api: ApiSettings): void {
  if (api.defaultPagingNum > api.maxResponseItems) {
    throw new ConfigError(`[api] DEFAULT_PAGING_NUM: ${api.defaultPagingNum} is larger than MAX_RESPONSE_ITEMS`);
  }
}
