/** An access token; `sha1` holds the token only in the answer that created it. */
export interface AccessToken {
  id: number;
  name: string;
  sha1: string;
  token_last_eight: string;
  scopes: string[];
  created_at: string;
  last_used_at: string | null;
}

/** Options to create an access token. */
export interface CreateAccessTokenOption {
  /** @minLength 1 */
  name: string;
  /** e.g. ["all"], ["read:user", "write:repository"] */
  scopes?: string[];
}
