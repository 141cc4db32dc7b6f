/**
 * Commit signature verification with the trust model "committer": a signature counts as verified
 * when it checks out against a key of the user who owns the commit's committer email (GPG keys and
 * SSH keys of that user), or against an instance-wide trusted SSH key (`[repository.signing]
 * TRUSTED_SSH_KEYS`, trusted for every user). The cryptography runs in the pool.
 */
import fs from 'node:fs';
import type { DbContext } from '../../db';
import { settings } from '../../config';
import type { CommitRecord } from '../../git/history';
import type { UserModel } from '../../models/user.model';
import { listGpgKeysOfOwners, type GpgKeyModel } from '../../models/gpg-key.model';
import { findGpgKeyImports } from '../../models/gpg-key-import.model';
import { listUserKeysByFingerprints } from '../../models/public-key.model';
import { findUsersByEmails } from '../../models/email-address.model';
import { runTask } from '../../pool';
import { parseSshSig, sshFingerprint } from '../../../workers/sshsig';
import { parseSshPublicKey } from '../keys/ssh-parse';

/** Gitea's verification reasons. */
export const NOT_SIGNED = 'gpg.error.not_signed_commit';
export const NO_KEY_FOUND = 'gpg.error.no_gpg_keys_found';
export const BAD_SIGNATURE = 'gpg.error.probable_bad_signature';
export const EXTRACT_FAILED = 'gpg.error.extract_sign';

/** The outcome for one commit (the API's PayloadCommitVerification without the conversion). */
export interface Verification {
  verified: boolean;
  reason: string;
  signature: string;
  payload: string;
  /** Gitea names the signer by login and email; `username` stays empty as in Gitea's API. */
  signer: { name: string; email: string; username: string } | null;
}

const unsigned = (): Verification => ({ verified: false, reason: NOT_SIGNED, signature: '', payload: '', signer: null });

/** The committer's GPG keys (primary keys with their subkey ids) that may vouch for `email`. */
function gpgCandidates(keys: GpgKeyModel[], committer: UserModel, email: string): { primary: GpgKeyModel; ids: string[] }[] {
  const mine = keys.filter((k) => k.ownerId === committer.id);
  const lower = email.toLowerCase();
  // why: findUsersByEmails matched the committer through an activated address, so a verified key of
  // theirs may vouch for it; an unverified key only for the addresses it lists itself.
  return mine.filter((k) => k.primaryKeyId === '' && (k.verified || (JSON.parse(k.emails) as string[]).some((e) => e.toLowerCase() === lower)))
    .map((primary) => ({ primary, ids: [primary.keyId, ...mine.filter((s) => s.primaryKeyId === primary.keyId).map((s) => s.keyId)] }));
}

/** The public half of the instance's SSH signing key (`<SIGNING_KEY>.pub`), when it signs with one. */
function instanceSshKey(): string[] {
  const s = settings().signing;
  if (s.signingFormat !== 'ssh' || !s.signingKey || s.signingKey === 'none' || s.signingKey === 'default') return [];
  try { return [fs.readFileSync(`${s.signingKey}.pub`, 'utf8').trim()]; } catch { return []; }
}

/** The SSH keys trusted for every committer: TRUSTED_SSH_KEYS and the instance's own signing key, with their fingerprints. */
function trustedSshKeys(): { line: string; fingerprint: string }[] {
  const out: { line: string; fingerprint: string }[] = [];
  for (const line of [...settings().signing.trustedSshKeys, ...instanceSshKey()]) {
    try { out.push({ line, fingerprint: parseSshPublicKey(line, { ed25519: 0, ecdsa: 0, rsa: 0 }).fingerprint }); } catch { /* a bad entry trusts nothing */ }
  }
  return out;
}

/** The instance signer (for signatures by trusted keys). */
function instanceSigner(): { name: string; email: string } {
  const s = settings();
  return { name: s.signing.signingName || s.appName, email: s.signing.signingEmail || `noreply@${new URL(s.server.rootUrl).hostname}` };
}

/** The fingerprint of the key an SSH signature names, or '' when the signature is malformed. */
function sshSigner(signature: string): string {
  try { return sshFingerprint(parseSshSig(signature).publicKey); } catch { return ''; }
}

/** Verify the signatures of `commits`; `committers` maps lower-cased emails to users (findUsersByEmails). */
export async function verifyCommits(ctx: DbContext, commits: CommitRecord[], committers: Map<string, UserModel>): Promise<Map<string, Verification>> {
  const out = new Map<string, Verification>();
  const signed = commits.filter((c) => c.signature).map((c) => {
    const ssh = c.signature!.signature.startsWith('-----BEGIN SSH SIGNATURE-----');
    return { c, ssh, fingerprint: ssh ? sshSigner(c.signature!.signature) : '', committer: committers.get(c.committer.email.toLowerCase()) ?? null };
  });
  for (const c of commits) if (!c.signature) out.set(c.id, unsigned());
  if (signed.length === 0) return out;
  const owners = [...new Set(signed.filter((s) => !s.ssh && s.committer).map((s) => s.committer!.id))];
  const gpgKeys = await listGpgKeysOfOwners(ctx, owners);
  const keys: KeySets = {
    gpgKeys,
    armored: await findGpgKeyImports(ctx, gpgKeys.filter((k) => k.primaryKeyId === '').map((k) => k.keyId)),
    sshKeys: await listUserKeysByFingerprints(ctx, [...new Set(signed.filter((s) => s.ssh && s.fingerprint).map((s) => s.fingerprint))]),
    trusted: trustedSshKeys(),
  };
  for (const s of signed) out.set(s.c.id, await verifyOne(s.c, s.ssh, s.fingerprint, s.committer, keys));
  return out;
}

/** Verify one commit (looking up its committer). */
export async function verifyCommit(ctx: DbContext, commit: CommitRecord): Promise<Verification> {
  const committers = commit.signature ? await findUsersByEmails(ctx, [commit.committer.email]) : new Map<string, UserModel>();
  return (await verifyCommits(ctx, [commit], committers)).get(commit.id)!;
}

interface KeySets {
  gpgKeys: GpgKeyModel[];
  armored: Map<string, string>;
  sshKeys: Awaited<ReturnType<typeof listUserKeysByFingerprints>>;
  trusted: { line: string; fingerprint: string }[];
}

async function verifyOne(c: CommitRecord, ssh: boolean, fingerprint: string, committer: UserModel | null, keys: KeySets): Promise<Verification> {
  const { signature, payload } = c.signature!;
  const base = { signature, payload };
  const fail = (reason: string): Verification => ({ verified: false, reason, signer: null, ...base });
  const ok = (signer: { name: string; email: string }, keyName: string): Verification => ({ verified: true, reason: `${signer.name} / ${keyName}`, signer: { ...signer, username: '' }, ...base });
  const check = (kind: 'gpg' | 'ssh', candidates: string[]) => runTask('checkSignature', { kind, signature, payload, keys: candidates });
  if (ssh) {
    if (!fingerprint) return fail(EXTRACT_FAILED);
    const trusted = keys.trusted.filter((t) => t.fingerprint === fingerprint);
    if (trusted.length && (await check('ssh', trusted.map((t) => t.line))).index >= 0) return ok(instanceSigner(), fingerprint);
    const own = committer ? keys.sshKeys.filter((k) => k.ownerId === committer.id) : [];
    if (!own.length) return fail(NO_KEY_FOUND);
    return (await check('ssh', own.map((k) => k.content))).index >= 0 ? ok({ name: committer!.name, email: c.committer.email }, fingerprint) : fail(BAD_SIGNATURE);
  }
  if (!committer) return fail(NO_KEY_FOUND);
  const candidates = gpgCandidates(keys.gpgKeys, committer, c.committer.email).filter((k) => keys.armored.has(k.primary.keyId));
  if (!candidates.length) return fail(NO_KEY_FOUND);
  const hit = await check('gpg', candidates.map((k) => keys.armored.get(k.primary.keyId)!));
  // why: a signature that names none of the committer's keys was made by someone else's key.
  if (hit.index < 0) return fail(candidates.some((k) => k.ids.some((id) => hit.issuers.includes(id))) ? BAD_SIGNATURE : NO_KEY_FOUND);
  return ok({ name: committer.name, email: c.committer.email }, hit.keyId);
}
