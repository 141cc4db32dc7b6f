/**
 * users row -> API User, hiding what the viewer may not see, as Gitea does: the email of a user who
 * keeps it private (or of anyone, to anonymous callers) becomes the no-reply placeholder, and
 * admin-only fields stay empty unless the viewer is the user or a site administrator.
 */
import crypto from 'node:crypto';
import type { User } from '../api/user';
import { VISIBILITY_NAMES, type UserModel } from '../models/user.model';
import { isoTime } from './time';

/** Who is looking at the user. */
export interface Viewer { id: number; isAdmin: boolean }

/** The no-reply address shown instead of a hidden email. */
export function placeholderEmail(u: UserModel, rootUrl: string): string {
  return `${u.lowerName}@noreply.${new URL(rootUrl).hostname}`;
}

/** Convert a user (or organization) row for `viewer` (null = anonymous). */
export function toUser(u: UserModel, viewer: Viewer | null, rootUrl: string): User {
  const signed = viewer !== null;
  const authed = signed && (viewer.id === u.id || viewer.isAdmin);
  return {
    id: u.id,
    login: u.name,
    login_name: authed ? u.loginName : '',
    source_id: authed ? u.loginSource : 0,
    full_name: u.fullName,
    email: signed && (!u.keepEmailPrivate || authed) ? u.email : placeholderEmail(u, rootUrl),
    avatar_url: avatarUrl(u, rootUrl),
    html_url: `${rootUrl}${encodeURIComponent(u.name)}`,
    language: authed ? u.language : '',
    is_admin: authed ? u.isAdmin : false,
    // why: Gitea serializes the unset time of non-authed viewers as Go's zero time, not the Unix epoch.
    last_login: authed ? isoTime(u.lastLoginAt) : '0001-01-01T00:00:00Z',
    created: isoTime(u.createdAt),
    restricted: u.isRestricted,
    active: authed ? u.isActive : false,
    prohibit_login: authed ? u.prohibitLogin : false,
    location: u.location,
    website: u.website,
    description: u.description,
    visibility: VISIBILITY_NAMES[u.visibility] ?? 'public',
    followers_count: u.numFollowers,
    following_count: u.numFollowing,
    starred_repos_count: u.numStars,
    username: u.name,
  };
}

/** The avatar URL of a user or organization. */
export function avatarUrl(u: UserModel, rootUrl: string): string {
  if (u.avatar) return `${rootUrl}avatars/${encodeURIComponent(u.avatar)}`;
  // why: a user who uploaded no avatar gets an identicon of their own, as Gitea generates one,
  // named by a digest of their id so it never changes and needs no storage.
  if (u.id > 0) return `${rootUrl}avatars/identicon-${crypto.createHash('sha256').update(`identicon:${u.id}`).digest('hex').slice(0, 32)}`;
  return `${rootUrl}assets/img/avatar_default.png`;
}

/** The name of a generated avatar under `/avatars/`, with its 32 hex digits. */
export const IDENTICON = /^identicon-([0-9a-f]{32})$/;
