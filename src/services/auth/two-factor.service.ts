/**
 * Second factors: TOTP (enrol with a first code, a one-time scratch code, disable with the
 * password) and WebAuthn security keys (@simplewebauthn/server), and the rules that follow from
 * them: password Basic auth needs `X-Gitea-OTP`, git over HTTP refuses the password, and
 * `[security] TWO_FACTOR_AUTH = enforced` keeps users without a second factor out of repositories.
 */
import crypto from 'node:crypto';
import { promisify } from 'node:util';
import * as OTPAuth from 'otpauth';
import QRCode from 'qrcode';
import {
  generateAuthenticationOptions, generateRegistrationOptions, verifyAuthenticationResponse, verifyRegistrationResponse,
  type AuthenticationResponseJSON, type PublicKeyCredentialCreationOptionsJSON, type PublicKeyCredentialRequestOptionsJSON, type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { settings } from '../../config';
import { withTx, type DbContext } from '../../db';
import { Conflict, Forbidden, NotFound, Unauthorized, Validation } from '../../errors';
import { nowUnix } from '../../models/issue.model';
import { deleteTwoFactor, findTwoFactor, insertTwoFactor, updateTwoFactor } from '../../models/two-factor.model';
import type { UserModel } from '../../models/user.model';
import {
  credentialNameTaken, credentialsOf, deleteCredential, findCredential, insertCredential, updateCredentialCounter, type WebauthnCredentialModel,
} from '../../models/webauthn-credential.model';
import { open, seal } from './secret-box';
import { verifyPassword } from './password';
import { notify } from '../notify/notifier';
import type { Principal } from './principal';

const pbkdf2 = promisify(crypto.pbkdf2);

/** Which second factors a user has. */
export interface SecondFactors { totp: boolean; webauthn: boolean }

/** The user's second factors. */
export async function secondFactorsOf(ctx: DbContext, uid: number): Promise<SecondFactors> {
  const [totp, keys] = await Promise.all([findTwoFactor(ctx, uid), credentialsOf(ctx, uid)]);
  return { totp: !!totp, webauthn: keys.length > 0 };
}

function totpFor(user: UserModel, secretBase32: string): OTPAuth.TOTP {
  return new OTPAuth.TOTP({ issuer: settings().appName, label: user.name, algorithm: 'SHA1', digits: 6, period: 30, secret: OTPAuth.Secret.fromBase32(secretBase32) });
}

/** A passcode valid now for `secretBase32` (one period of clock skew either way, as Gitea). */
function passcodeValid(user: UserModel, secretBase32: string, passcode: string): boolean {
  return /^\d{6}$/.test(passcode) && totpFor(user, secretBase32).validate({ token: passcode, window: 1 }) !== null;
}

/** What enrolment shows of a TOTP secret: the secret, its otpauth:// URI and that URI as an SVG QR code. */
export async function totpEnrolment(user: UserModel, secret: string): Promise<{ secret: string; uri: string; qrSvg: string }> {
  const uri = totpFor(user, secret).toString();
  return { secret, uri, qrSvg: await QRCode.toString(uri, { type: 'svg', margin: 1 }) };
}

/** A fresh TOTP secret to enrol with, as totpEnrolment shows it. */
export function newTotpSecret(user: UserModel): Promise<{ secret: string; uri: string; qrSvg: string }> {
  return totpEnrolment(user, new OTPAuth.Secret({ size: 20 }).base32);
}

async function scratchHash(code: string, salt: string): Promise<string> {
  return (await pbkdf2(code, salt, 10000, 32, 'sha256')).toString('hex');
}

async function newScratch(): Promise<{ code: string; scratchSalt: string; scratchHash: string }> {
  const code = crypto.randomBytes(8).toString('base64url').slice(0, 10);
  const scratchSalt = crypto.randomBytes(16).toString('hex');
  return { code, scratchSalt, scratchHash: await scratchHash(code, scratchSalt) };
}

/** Enrol TOTP with the secret shown to the user and a first code from their app; returns the scratch code. */
export async function enrolTotp(ctx: DbContext, user: UserModel, secretBase32: string, passcode: string): Promise<string> {
  if (!/^[A-Z2-7]{16,}=*$/.test(secretBase32)) throw new Validation('the enrolment expired; start again');
  if (!passcodeValid(user, secretBase32, passcode.trim())) throw new Validation('Passcode incorrect. If you misplaced your device, use your scratch code to sign in.');
  const scratch = await newScratch();
  await withTx(ctx, async (tx) => {
    if (await findTwoFactor(tx, user.id)) throw new Conflict('two-factor authentication is already enrolled');
    const now = nowUnix();
    await insertTwoFactor(tx, { uid: user.id, secret: seal(secretBase32), scratchSalt: scratch.scratchSalt, scratchHash: scratch.scratchHash, createdUnix: now, updatedUnix: now });
  });
  return scratch.code;
}

/**
 * Check a TOTP passcode of an enrolled user. With `oncePerCode` (a sign-in), a code already used
 * is refused and this one is remembered, so a code seen over a shoulder cannot sign in again.
 */
export async function checkTotp(ctx: DbContext, user: UserModel, passcode: string, oncePerCode: boolean): Promise<boolean> {
  const row = await findTwoFactor(ctx, user.id);
  if (!row) return false;
  const code = passcode.trim();
  if (!passcodeValid(user, open(row.secret), code)) return false;
  if (!oncePerCode) return true;
  if (row.lastUsedPasscode === code) return false;
  await updateTwoFactor(ctx, user.id, { lastUsedPasscode: code, updatedUnix: nowUnix() });
  return true;
}

/** Sign in with the scratch code: it is used up (a new, unseen one replaces it). */
export async function useScratchCode(ctx: DbContext, user: UserModel, code: string): Promise<boolean> {
  const row = await findTwoFactor(ctx, user.id);
  if (!row || !row.scratchHash) return false;
  const got = Buffer.from(await scratchHash(code.trim(), row.scratchSalt), 'hex');
  if (!crypto.timingSafeEqual(got, Buffer.from(row.scratchHash, 'hex'))) return false;
  const next = await newScratch();
  await updateTwoFactor(ctx, user.id, { scratchSalt: next.scratchSalt, scratchHash: next.scratchHash, updatedUnix: nowUnix() });
  return true;
}

/** A new scratch code for an enrolled user (the old one stops working). */
export async function regenerateScratchCode(ctx: DbContext, user: UserModel): Promise<string> {
  if (!(await findTwoFactor(ctx, user.id))) throw new NotFound('two-factor authentication is not enrolled');
  const next = await newScratch();
  await updateTwoFactor(ctx, user.id, { scratchSalt: next.scratchSalt, scratchHash: next.scratchHash, updatedUnix: nowUnix() });
  return next.code;
}

/** Turn TOTP off; the account's password must be given again. */
export async function disableTotp(ctx: DbContext, user: UserModel, password: string): Promise<void> {
  if (!user.passwdHash || !(await verifyPassword(password, user.passwdHash))) throw new Validation('The password is not correct.');
  await withTx(ctx, async (tx) => {
    if (!(await deleteTwoFactor(tx, user.id))) throw new NotFound('two-factor authentication is not enrolled');
    await notify.accountSecurityChanged(tx, { user, change: 'totp-removed' });
  });
}

/**
 * Password Basic auth with a second factor (Gitea's rule): a user with a security key may not use
 * it at all; a user with TOTP must send a valid `X-Gitea-OTP`.
 */
export async function assertPasswordAuthAllowed(ctx: DbContext, user: UserModel, otpHeader: string | undefined): Promise<void> {
  const f = await secondFactorsOf(ctx, user.id);
  if (f.webauthn) throw new Unauthorized('basic authorization is not allowed while having security keys enrolled');
  if (f.totp && !(await checkTotp(ctx, user, otpHeader ?? '', false))) throw new Unauthorized('invalid provided OTP');
}

/** Git over HTTP with a password is refused once a second factor is on: a token works instead. */
export async function assertGitPasswordAllowed(ctx: DbContext, user: UserModel): Promise<void> {
  const f = await secondFactorsOf(ctx, user.id);
  if (f.totp || f.webauthn) {
    throw new Unauthorized('two-factor authentication is enabled for this account: use an access token instead of the password');
  }
}

/** The page where a user enrols a second factor. */
export function enrolmentUrl(): string {
  return `${settings().server.rootUrl}user/settings/security`;
}

/**
 * With `[security] TWO_FACTOR_AUTH = enforced`, a signed-in user without TOTP or a security key may
 * not read or write repositories, with any credential, until they enrol (403 naming the page).
 */
export async function assertTwoFactorSatisfied(ctx: DbContext, p: Principal): Promise<void> {
  if (settings().security.twoFactorAuth !== 'enforced' || !p.user || p.user.id <= 0 || p.deployKey || p.actionsTask) return;
  const f = await secondFactorsOf(ctx, p.user.id);
  if (!f.totp && !f.webauthn) {
    throw new Forbidden(`two-factor authentication is required on this instance: enrol at ${enrolmentUrl()} to use repositories`);
  }
}

function relyingParty(): { rpID: string; origin: string; rpName: string } {
  const u = new URL(settings().server.rootUrl);
  return { rpID: u.hostname, origin: u.origin, rpName: settings().appName };
}

/** Options for registering a security key; the challenge must be kept (in the session) for the answer. */
export async function securityKeyRegistrationOptions(ctx: DbContext, user: UserModel): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const rp = relyingParty();
  const existing = await credentialsOf(ctx, user.id);
  return generateRegistrationOptions({
    rpName: rp.rpName, rpID: rp.rpID, userName: user.name, userDisplayName: user.fullName || user.name,
    userID: new TextEncoder().encode(String(user.id)), attestationType: 'none',
    excludeCredentials: existing.map((c) => ({ id: c.credentialId })),
    authenticatorSelection: { residentKey: 'discouraged', userVerification: 'discouraged' },
  });
}

/** Verify a key's registration against the kept challenge and store it under `name`. */
export async function registerSecurityKey(ctx: DbContext, user: UserModel, name: string, challenge: string, response: RegistrationResponseJSON): Promise<void> {
  const label = name.trim();
  if (!label || label.length > 255) throw new Validation('a security key needs a name of 1 to 255 characters');
  if (await credentialNameTaken(ctx, user.id, label)) throw new Validation(`a security key named "${label}" already exists`);
  const rp = relyingParty();
  const v = await verifyRegistrationResponse({ response, expectedChallenge: challenge, expectedOrigin: rp.origin, expectedRPID: rp.rpID, requireUserVerification: false })
    .catch((e: unknown) => { throw new Validation(`the security key's answer was refused: ${(e as Error).message}`); });
  if (!v.verified || !v.registrationInfo) throw new Validation("the security key's answer was refused");
  const c = v.registrationInfo.credential;
  await insertCredential(ctx, {
    name: label, userId: user.id, credentialId: c.id, publicKey: Buffer.from(c.publicKey).toString('base64'),
    attestationType: v.registrationInfo.fmt, aaguid: v.registrationInfo.aaguid, signCount: c.counter, createdUnix: nowUnix(),
  });
}

/** Options for signing in with one of the user's keys; the challenge must be kept for the answer. */
export async function securityKeySignInOptions(ctx: DbContext, user: UserModel): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const keys = await credentialsOf(ctx, user.id);
  if (keys.length === 0) throw new NotFound('no security key is registered for this account');
  return generateAuthenticationOptions({ rpID: relyingParty().rpID, allowCredentials: keys.map((k) => ({ id: k.credentialId })), userVerification: 'discouraged' });
}

/** Verify a key's signature for `user` against the kept challenge; updates its counter. */
export async function verifySecurityKeySignIn(ctx: DbContext, user: UserModel, challenge: string, response: AuthenticationResponseJSON): Promise<boolean> {
  const key: WebauthnCredentialModel | null = typeof response?.id === 'string' ? await findCredential(ctx, response.id) : null;
  if (!key || key.userId !== user.id) return false;
  const rp = relyingParty();
  const v = await verifyAuthenticationResponse({
    response, expectedChallenge: challenge, expectedOrigin: rp.origin, expectedRPID: rp.rpID, requireUserVerification: false,
    credential: { id: key.credentialId, publicKey: new Uint8Array(Buffer.from(key.publicKey, 'base64')), counter: key.signCount },
  }).catch(() => null);
  if (!v?.verified) return false;
  const next = v.authenticationInfo.newCounter;
  // why: a counter that does not grow (when the key keeps one) hints at a cloned key, as Gitea records it.
  await updateCredentialCounter(ctx, key.id, next, key.signCount > 0 && next <= key.signCount, nowUnix());
  return true;
}

/** The user's security keys. */
export function securityKeysOf(ctx: DbContext, user: UserModel): Promise<WebauthnCredentialModel[]> {
  return credentialsOf(ctx, user.id);
}

/** Remove one of the user's security keys. */
export async function removeSecurityKey(ctx: DbContext, user: UserModel, id: number): Promise<void> {
  await withTx(ctx, async (tx) => {
    if (!(await deleteCredential(tx, user.id, id))) throw new NotFound('security key does not exist');
    await notify.accountSecurityChanged(tx, { user, change: 'security-key-removed' });
  });
}
