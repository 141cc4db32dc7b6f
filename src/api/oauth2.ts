/** An OAuth2 application; `client_secret` holds the secret only in the answer that made it (create, update). */
export interface OAuth2Application {
  id: number;
  name: string;
  client_id: string;
  client_secret: string;
  confidential_client: boolean;
  skip_secondary_authorization: boolean;
  redirect_uris: string[];
  created: string;
}

/** Options to create (or, all given, to update) an OAuth2 application. */
export interface CreateOAuth2ApplicationOptions {
  name?: string;
  confidential_client?: boolean;
  skip_secondary_authorization?: boolean;
  redirect_uris?: string[];
}
