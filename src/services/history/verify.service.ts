/**
 * Commit signature verification with the trust model "committer": a signature counts as verified
 * when it checks out against a key of the user who owns the commit's committer email (GPG keys and
 * SSH keys of that user), or against an instance-wide trusted SSH key (`[repository.signing]
 * TRUSTED_SSH_KEYS`, trusted for every user). Extraction and the cryptography run in the pool.
 */
import type { DbContext } from '../../db';
import { settings } from '../../config';
import type { CommitRecord } from '../../git/log';
import type { UserModel } from '../../models/user.model';
import { listGpgKeysOfOwners, type GpgKeyModel } from '../../models/gpg-key.model';
import { findGpgKeyImports } from '../../models/gpg-key-import.model';
import { listUserKeysByFingerprints } from '../../models/public-key.model';
import { runTask } from '../../pool';
import type { CommitSignature } from '../../../workers/tasks/signatures';
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
  signer: { name: string; email: string } | null;
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

/** The instance's trusted SSH keys with their fingerprints. */
function trustedSshKeys(): { line: string; fingerprint: string }[] {
  const out: { line: string; fingerprint: string }[] = [];
  for (const line of settings().signing.trustedSshKeys) {
    try { out.push({ line, fingerprint: parseSshPublicKey(line, { ed25519: 0, ecdsa: 0, rsa: 0 }).fingerprint }); } catch { /* a bad entry trusts nothing */ }
  }
  return out;
}

/** The instance signer (for signatures by trusted keys). */
function instanceSigner(): { name: string; email: string } {
  const s = settings();
  return { name: s.signing.signingName || s.appName, email: s.signing.signingEmail || `noreply@${new URL(s.server.rootUrl).hostname}` };
}

/** Verify the signatures of `commits`; `committers` maps lower-cased emails to users (findUsersByEmails). */
export async function verifyCommits(ctx: DbContext, gitDir: string, commits: CommitRecord[], committers: Map<string, UserModel>): Promise<Map<string, Verification>> {
  const out = new Map<string, Verification>();
  if (commits.length === 0) return out;
  const sigs = await runTask('inspectSignatures', { gitDir, ids: commits.map((c) => c.id) });
  const signed = commits.map((c, i) => ({ c, sig: sigs[i], committer: committers.get(c.committer.email.toLowerCase()) ?? null }));
  const owners = [...new Set(signed.filter((s) => s.sig?.kind === 'gpg' && s.committer).map((s) => s.committer!.id))];
  const gpgKeys = await listGpgKeysOfOwners(ctx, owners);
  const armored = await findGpgKeyImports(ctx, gpgKeys.filter((k) => k.primaryKeyId === '').map((k) => k.keyId));
  const fingerprints = [...new Set(signed.filter((s) => s.sig?.kind === 'ssh').map((s) => s.sig!.fingerprint))];
  const sshKeys = await listUserKeysByFingerprints(ctx, fingerprints);
  const trusted = trustedSshKeys();

  for (const { c, sig, committer } of signed) {
    if (!sig) {
      out.set(c.id, unsigned());
      continue;
    }
    out.set(c.id, await verifyOne(sig, c, committer, { gpgKeys, armored, sshKeys, trusted }));
  }
  return out;
}

interface KeySets {
  gpgKeys: GpgKeyModel[];
  armored: Map<string, string>;
  sshKeys: Awaited<ReturnType<typeof listUserKeysByFingerprints>>;
  trusted: { line: string; fingerprint: string }[];
}

async function verifyOne(sig: CommitSignature, c: CommitRecord, committer: UserModel | null, keys: KeySets): Promise<Verification> {
  const base = { signature: sig.signature, payload: sig.payload };
  const fail = (reason: string): Verification => ({ verified: false, reason, signer: null, ...base });
  const ok = (signer: { name: string; email: string }, keyName: string): Verification => ({ verified: true, reason: `${signer.name} / ${keyName}`, signer, ...base });
  if (sig.kind === 'ssh') {
    if (!sig.fingerprint) return fail(EXTRACT_FAILED);
    const trusted = keys.trusted.filter((t) => t.fingerprint === sig.fingerprint);
    if (trusted.length && (await runTask('checkSignature', { kind: 'ssh', signature: sig.signature, payload: sig.payload, keys: trusted.map((t) => t.line) })) >= 0) {
      return ok(instanceSigner(), sig.fingerprint);
    }
    const own = committer ? keys.sshKeys.filter((k) => k.ownerId === committer.id && k.fingerprint === sig.fingerprint) : [];
    if (!own.length) return fail(NO_KEY_FOUND);
    const hit = await runTask('checkSignature', { kind: 'ssh', signature: sig.signature, payload: sig.payload, keys: own.map((k) => k.content) });
    return hit >= 0 ? ok({ name: committer!.name, email: c.committer.email }, sig.fingerprint) : fail(BAD_SIGNATURE);
  }
  if (!committer) return fail(NO_KEY_FOUND);
  const candidates = gpgCandidates(keys.gpgKeys, committer, c.committer.email)
    .filter((k) => keys.armored.has(k.primary.keyId) && (sig.keyIds.length === 0 || k.ids.some((id) => sig.keyIds.includes(id))));
  if (!candidates.length) return fail(NO_KEY_FOUND);
  const hit = await runTask('checkSignature', { kind: 'gpg', signature: sig.signature, payload: sig.payload, keys: candidates.map((k) => keys.armored.get(k.primary.keyId)!) });
  if (hit < 0) return fail(BAD_SIGNATURE);
  const keyId = sig.keyIds.find((id) => candidates[hit].ids.includes(id)) ?? candidates[hit].primary.keyId;
  return ok({ name: committer.name, email: c.committer.email }, keyId);
}
