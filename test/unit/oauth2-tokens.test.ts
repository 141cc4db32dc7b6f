/**
 * The OAuth2 provider's pieces that need no server: JWTs signed and checked with an HS256
 * JWT_SECRET (the integration test runs RS256), ID tokens keyed by the client's secret as Gitea
 * does, refusals of tokens signed otherwise; the token scopes a grant's scope carries; the redirect
 * URI rule with its loopback exception for public clients; the [oauth2] settings' checks.
 */
import crypto from 'node:crypto';
import { expect } from 'chai';
import { jwtVerify, SignJWT, UnsecuredJWT } from 'jose';
import { loadSettings, useSettings, ConfigError } from '../../src/config';
import { parseGrantToken, signGrantToken, signIdToken, TokenKind } from '../../src/services/oauth2/jwt';
import { grantTokenScopes } from '../../src/services/oauth2/access';
import { acceptsRedirectUri } from '../../src/services/oauth2/authorize.service';
import type { OAuth2ApplicationModel } from '../../src/models/oauth2-application.model';

const SECRET = crypto.randomBytes(32).toString('base64url');

describe('OAuth2 tokens, scopes and redirect URIs', () => {
  before(() => {
    useSettings(loadSettings(null, { FORGE__SERVER__APP_DATA_PATH: '/tmp/forge-oauth2-unit', FORGE__OAUTH2__JWT_SIGNING_ALGORITHM: 'HS256', FORGE__OAUTH2__JWT_SECRET: SECRET }));
  });

  it('signs and checks grant tokens with JWT_SECRET, and refuses any other signature', async () => {
    const raw = await signGrantToken({ gnt: 7, tt: TokenKind.Refresh, cnt: 3 }, 60);
    expect(await parseGrantToken(raw)).to.include({ gnt: 7, tt: TokenKind.Refresh, cnt: 3 });
    const other = await new SignJWT({ gnt: 7, tt: 0 }).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().setExpirationTime('1h')
      .sign(crypto.randomBytes(32));
    const unsigned = new UnsecuredJWT({ gnt: 7, tt: 0 }).setIssuedAt().setExpirationTime('1h').encode();
    const expired = await signGrantToken({ gnt: 7, tt: TokenKind.Access }, -10);
    const [h, , s] = raw.split('.');
    const tampered = `${h}.${Buffer.from(JSON.stringify({ gnt: 8, tt: 1, cnt: 3, iat: 1, exp: 9e9 })).toString('base64url')}.${s}`;
    for (const bad of [other, unsigned, expired, tampered, 'not-a-jwt', '']) expect(await parseGrantToken(bad), bad).to.equal(null);
  });

  it('signs ID tokens with the client secret under HS256 (none for a public client)', async () => {
    const id = await signIdToken({ iss: 'https://forge.example/', sub: '1', aud: ['c'] }, 60, 'gto_secret');
    const { payload } = await jwtVerify(id!, new TextEncoder().encode('gto_secret'), { issuer: 'https://forge.example/', audience: 'c' });
    expect(payload.sub).to.equal('1');
    expect(await signIdToken({ sub: '1' }, 60, '')).to.equal(null);
  });

  it('takes a grant\'s token scopes: none named is everything, unknown words are ignored', () => {
    const all = grantTokenScopes('openid profile email groups');
    expect(all.all).to.equal(true);
    expect(grantTokenScopes('openid offline_access').all).to.equal(true);
    const narrow = grantTokenScopes('openid read:repository offline_access');
    expect(narrow).to.deep.include({ all: false, levels: { repository: 1 } });
    expect(grantTokenScopes('read:repository,write:issue').levels).to.deep.equal({ repository: 1, issue: 2 });
    expect(grantTokenScopes('openid public-only')).to.deep.include({ all: true, publicOnly: true });
  });

  it('matches redirect URIs exactly, and a public client\'s http loopback IP on any port', () => {
    const app = (confidentialClient: boolean) => ({ confidentialClient, redirectUris: JSON.stringify(['http://127.0.0.1/cb', 'https://app.example/cb']) }) as OAuth2ApplicationModel;
    for (const [uri, pub, conf] of [
      ['https://app.example/cb', true, true], ['https://app.example/cb/', false, false], ['https://app.example:8443/cb', false, false],
      ['http://127.0.0.1:5123/cb', true, false], ['http://127.0.0.1/cb', true, true], ['http://localhost:5123/cb', false, false],
      ['https://127.0.0.1:5123/cb', false, false], ['http://127.0.0.1:5123/other', false, false], ['http://[::1]:5123/cb', false, false],
    ] as const) {
      expect([acceptsRedirectUri(app(false), uri), acceptsRedirectUri(app(true), uri)], uri).to.deep.equal([pub, conf]);
    }
  });

  it('checks the [oauth2] settings at start', () => {
    expect(() => loadSettings(null, { FORGE__OAUTH2__JWT_SECRET: 'short' })).to.throw(ConfigError, 'JWT_SECRET');
    expect(() => loadSettings(null, { FORGE__OAUTH2__JWT_SIGNING_ALGORITHM: 'none' })).to.throw(ConfigError, 'JWT_SIGNING_ALGORITHM');
    const s = loadSettings(null, { FORGE__SERVER__APP_DATA_PATH: '/srv/forge' });
    expect(s.oauth2).to.include({ enabled: true, jwtSigningAlgorithm: 'RS256', jwtSigningPrivateKeyFile: '/srv/forge/jwt/private.pem', invalidateRefreshTokens: true, accessTokenExpirationTime: 3600, refreshTokenExpirationTime: 730 });
  });
});
