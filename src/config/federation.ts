/** [federation] (Gitea's federation.go): the ActivityPub actor, its inbox's signature checks, nodeinfo and webfinger. */
import { ConfigError } from './errors';
import { section } from './spec';

/**
 * [federation]: ENABLED serves /api/v1/activitypub, /api/v1/nodeinfo and /.well-known/{nodeinfo,
 * webfinger} (404 otherwise); SHARE_USER_STATISTICS puts user counts in nodeinfo; MAX_SIZE is the
 * MiB read of a remote actor; the first of ALGORITHMS checks inbox signatures; the header lists
 * and DIGEST_ALGORITHM are what signed requests from here would carry.
 */
export interface FederationSettings {
  enabled: boolean; shareUserStatistics: boolean; maxSize: number; algorithms: string[]; digestAlgorithm: string; getHeaders: string[]; postHeaders: string[];
}

/** [federation]. */
export const federationSection = section<FederationSettings>('federation', {
  ENABLED: { kind: 'bool', def: 'false' },
  SHARE_USER_STATISTICS: { kind: 'bool', def: 'true' },
  MAX_SIZE: { kind: 'int', def: '4', min: 1, max: 1024 },
  ALGORITHMS: { kind: 'list', def: 'rsa-sha256,rsa-sha512,ed25519' },
  DIGEST_ALGORITHM: { kind: 'string', def: 'SHA-256', oneOf: ['SHA-256', 'SHA-512'] },
  GET_HEADERS: { kind: 'list', def: '(request-target),Date' },
  POST_HEADERS: { kind: 'list', def: '(request-target),Date,Digest' },
});

/** The signature algorithms the forge can check. */
export const SIGNATURE_ALGORITHMS = ['rsa-sha256', 'rsa-sha512', 'hs2019'];

/** Refuse an inbox algorithm the forge cannot check. */
export function checkFederation(f: FederationSettings): void {
  if (!SIGNATURE_ALGORITHMS.includes(f.algorithms[0] ?? '')) {
    throw new ConfigError(`[federation] ALGORITHMS: the first algorithm checks inbox signatures and must be one of ${SIGNATURE_ALGORITHMS.join(', ')}`);
  }
}
