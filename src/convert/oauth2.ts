/** oauth2_application row -> API OAuth2Application; a user -> the OpenID Connect profile claims. */
import type { OAuth2Application } from '../api/oauth2';
import type { OAuth2ApplicationModel } from '../models/oauth2-application.model';
import type { UserModel } from '../models/user.model';
import { avatarUrl } from './user';
import { isoTime } from './time';

function redirectUris(app: OAuth2ApplicationModel): string[] {
  try {
    const v = JSON.parse(app.redirectUris) as unknown;
    return Array.isArray(v) ? v.map(String) : [];
  } catch {
    return [];
  }
}

/** Convert an application; `secret` is given only right after it was made. */
export function toOAuth2Application(app: OAuth2ApplicationModel, secret = ''): OAuth2Application {
  return {
    id: app.id,
    name: app.name,
    client_id: app.clientId,
    client_secret: secret,
    confidential_client: app.confidentialClient,
    skip_secondary_authorization: app.skipSecondaryAuthorization,
    redirect_uris: redirectUris(app),
    created: isoTime(new Date(app.createdUnix * 1000)),
  };
}

/** Gitea's `profile` claims of an ID token (name is the full name, or the login without one). */
export function toProfileClaims(u: UserModel, rootUrl: string): Record<string, unknown> {
  return {
    name: u.fullName || u.name,
    preferred_username: u.name,
    profile: `${rootUrl}${encodeURIComponent(u.name)}`,
    picture: avatarUrl(u, rootUrl),
    ...(u.website ? { website: u.website } : {}),
    ...(u.language ? { locale: u.language } : {}),
    updated_at: Math.floor(new Date(u.updatedAt).getTime() / 1000),
  };
}

/** Gitea's userinfo answer (`groups` only when the grant has the groups scope). */
export function toUserInfo(u: UserModel, rootUrl: string, groups: string[] | null): Record<string, unknown> {
  return {
    sub: String(u.id),
    name: u.fullName || u.name,
    preferred_username: u.name,
    email: u.email,
    picture: avatarUrl(u, rootUrl),
    ...(groups ? { groups } : {}),
  };
}
