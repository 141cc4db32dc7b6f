/** [security] (Gitea's security.go): secrets, sign-in limits, and which proxies are believed. */
import { section } from './spec';

/** [security]. */
export interface SecuritySettings {
  secretKey: string; internalToken: string; installLock: boolean; twoFactorAuth: string;
  minPasswordLength: number; loginMaxFailures: number; loginFailureWindow: number;
  /** Gitea's key: ignore `token`/`access_token` in the query string. */
  disableQueryAuthToken: boolean;
  /** No webhooks: their routes answer 403 (admin hooks excepted, as Gitea) and no event is delivered. */
  disableWebhooks: boolean;
  /** Proxies (CIDRs) whose X-Forwarded-For and X-WEBAUTH-USER are believed, and how many hops of them. */
  reverseProxyTrustedProxies: string[]; reverseProxyLimit: number; reverseProxyAuthenticationUser: string;
  /** Site administrators may migrate from a directory on the server. */
  importLocalPaths: boolean;
  /** "Remember me": how long the long-lived sign-in cookie lasts, and its name (Gitea's keys). */
  loginRememberDays: number; cookieRememberName: string;
}

/** [security]. */
export const securitySection = section<SecuritySettings>('security', {
  SECRET_KEY: { kind: 'string', def: '' },
  INTERNAL_TOKEN: { kind: 'string', def: '' },
  INSTALL_LOCK: { kind: 'bool', def: 'true' },
  TWO_FACTOR_AUTH: { kind: 'string', def: '', oneOf: ['', 'enforced'] },
  MIN_PASSWORD_LENGTH: { kind: 'int', def: '8', min: 1, max: 256 },
  LOGIN_MAX_FAILURES: { kind: 'int', def: '10', min: 1, max: 100000 },
  LOGIN_FAILURE_WINDOW: { kind: 'int', def: '300', min: 1, max: 86400 },
  DISABLE_QUERY_AUTH_TOKEN: { kind: 'bool', def: 'false' },
  DISABLE_WEBHOOKS: { kind: 'bool', def: 'false' },
  REVERSE_PROXY_TRUSTED_PROXIES: { kind: 'list', def: '127.0.0.0/8,::1/128' },
  REVERSE_PROXY_LIMIT: { kind: 'int', def: '1', min: 0, max: 100 },
  REVERSE_PROXY_AUTHENTICATION_USER: { kind: 'string', def: 'X-WEBAUTH-USER' },
  IMPORT_LOCAL_PATHS: { kind: 'bool', def: 'false' },
  LOGIN_REMEMBER_DAYS: { kind: 'int', def: '31', min: 1, max: 3650 },
  COOKIE_REMEMBER_NAME: { kind: 'string', def: 'gitea_incredible' },
});
