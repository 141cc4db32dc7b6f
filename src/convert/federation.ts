/** The ActivityPub Person, nodeinfo and webfinger documents of the forge, in Gitea's shapes and field order. */
import type { ActivityPubPerson, NodeInfo, WebfingerJrd } from '../api/federation';
import type { UserModel } from '../models/user.model';
import type { InstanceUsage } from '../models/instance-usage';
import { avatarUrl } from './user';

/** The IRI of a user's actor: built from the numeric id, so a rename keeps it. */
export function actorIri(rootUrl: string, userId: number): string {
  return `${rootUrl}api/v1/activitypub/user-id/${userId}`;
}

/** The Person of user `u` with its public key. */
export function toPerson(u: UserModel, publicKeyPem: string, rootUrl: string): ActivityPubPerson {
  const id = actorIri(rootUrl, u.id);
  return {
    '@context': ['https://www.w3.org/ns/activitystreams', 'https://w3id.org/security/v1'],
    id, type: 'Person', ...(u.fullName ? { name: u.fullName } : {}),
    icon: { type: 'Image', mediaType: 'image/png', url: avatarUrl(u, rootUrl) },
    url: `${rootUrl}${u.name}`, inbox: `${id}/inbox`, outbox: `${id}/outbox`, preferredUsername: u.name,
    publicKey: { id: `${id}#main-key`, owner: id, publicKeyPem },
  };
}

/** Nodeinfo 2.1 of this forge; zero counts are left out, as Gitea leaves them. */
export function toNodeInfo(version: string, openRegistrations: boolean, usage: InstanceUsage | null): NodeInfo {
  const some = (n: number) => (n > 0 ? n : undefined);
  return {
    version: '2.1',
    software: { name: 'forge', version, repository: '', homepage: '' },
    protocols: ['activitypub'],
    services: { inbound: [], outbound: ['rss2.0'] },
    openRegistrations,
    usage: usage
      ? { users: { total: some(usage.users), activeHalfyear: some(usage.activeHalfyear), activeMonth: some(usage.activeMonth) }, localPosts: some(usage.posts), localComments: some(usage.comments) }
      : { users: {} },
    metadata: {},
  };
}

/** The webfinger answer for user `u`; its email is an alias only when the user shows it. */
export function toWebfinger(u: UserModel, rootUrl: string): WebfingerJrd {
  const profile = `${rootUrl}${u.name}`;
  const actor = actorIri(rootUrl, u.id);
  return {
    subject: `acct:${encodeURIComponent(u.name)}@${new URL(rootUrl).host}`,
    aliases: [profile, actor, ...(!u.keepEmailPrivate && u.email ? [`mailto:${u.email}`] : [])],
    links: [
      { rel: 'http://webfinger.net/rel/profile-page', type: 'text/html', href: profile },
      { rel: 'http://webfinger.net/rel/avatar', href: avatarUrl(u, rootUrl) },
      { rel: 'self', type: 'application/activity+json', href: actor },
      { rel: 'http://openid.net/specs/connect/1.0/issuer', href: rootUrl },
    ],
  };
}
