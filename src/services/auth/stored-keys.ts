/**
 * Key pairs kept in a user's settings (Gitea's user_setting): the public half as it is served, the
 * private half sealed with the instance secret. A pair is made on first use; two requests that race
 * to make one both end with the one that was stored first.
 */
import { isUniqueViolation, withTx, type DbContext } from '../../db';
import { insertUserSettings, userSettings } from '../../models/user-setting.model';
import { open, seal } from './secret-box';

/** A key pair as text (PEM or armored). */
export interface KeyPair { publicKey: string; privateKey: string }

/** The setting names of a pair. */
export interface KeyNames { pub: string; priv: string }

/** The key pair `names` of user `userId`, made with `make` (off the event loop, in the caller's hands) when the user has none. */
export async function storedKeyPair(ctx: DbContext, userId: number, names: KeyNames, make: () => Promise<KeyPair>): Promise<KeyPair> {
  const read = async () => {
    const have = await userSettings(ctx, userId, [names.pub, names.priv]);
    return have.get(names.pub) && have.get(names.priv) ? { publicKey: have.get(names.pub)!, privateKey: open(have.get(names.priv)!) } : null;
  };
  const stored = await read();
  if (stored) return stored;
  const made = await make();
  try {
    // why: both halves in one transaction, so a pair is never half stored.
    await withTx(ctx, (tx) => insertUserSettings(tx, userId, { [names.pub]: made.publicKey, [names.priv]: seal(made.privateKey) }));
    return made;
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    return (await read())!;
  }
}
