/** The ActivityPub actor, nodeinfo and webfinger documents as the forge serves them (Gitea's shapes). */

/** A public key of an actor. */
export interface ActivityPubKey { id: string; owner: string; publicKeyPem: string }

/** An image of an actor. */
export interface ActivityPubImage { type: 'Image'; mediaType: string; url: string }

/** The ActivityPub Person of a user. */
export interface ActivityPubPerson {
  '@context': string[];
  id: string;
  type: 'Person';
  /** The full name, absent when empty. */
  name?: string;
  icon: ActivityPubImage;
  url: string;
  inbox: string;
  outbox: string;
  preferredUsername: string;
  publicKey: ActivityPubKey;
}

/** Nodeinfo 2.1's usage counts (each absent when zero). */
export interface NodeInfoUsage {
  users: { total?: number; activeHalfyear?: number; activeMonth?: number };
  localPosts?: number;
  localComments?: number;
}

/** Nodeinfo 2.1. */
export interface NodeInfo {
  version: string;
  software: { name: string; version: string; repository: string; homepage: string };
  protocols: string[];
  services: { inbound: string[]; outbound: string[] };
  openRegistrations: boolean;
  usage: NodeInfoUsage;
  metadata: Record<string, never>;
}

/** A webfinger answer (JRD). */
export interface WebfingerJrd {
  subject: string;
  aliases: string[];
  links: { rel: string; type?: string; href: string }[];
}
