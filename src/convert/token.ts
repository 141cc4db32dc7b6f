/** access_token row -> API AccessToken. */
import type { AccessToken } from '../api/token';
import type { AccessTokenModel } from '../models/access-token.model';
import { isoTime } from './time';

/** Convert a token; `raw` is given only right after creation. */
export function toAccessToken(t: AccessTokenModel, raw = ''): AccessToken {
  return {
    id: t.id,
    name: t.name,
    sha1: raw,
    token_last_eight: t.tokenLastEight,
    scopes: t.scope ? t.scope.split(',') : [],
    created_at: isoTime(t.createdAt),
    last_used_at: t.lastUsedAt ? isoTime(t.lastUsedAt) : null,
  };
}
