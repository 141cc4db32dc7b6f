/**
 * touchPublicKey against a real (SQLite) database: last_used_at is written at most once a minute.
 */
import { expect } from 'chai';
import path from 'node:path';
import { loadSettings } from '../../src/config';
import { openDatabase, closeDatabase, systemCtx } from '../../src/db';
import { migrate } from '../../src/db/migrate';
import { insertPublicKey, touchPublicKey, findPublicKeyById, PublicKeyType, PublicKeyMode } from '../../src/models/public-key.model';
import { tempDir } from '../helpers/keys';

describe('touchPublicKey', () => {
  before(async () => {
    const dir = tempDir('forge-touch-');
    const s = loadSettings(null, { FORGE__SERVER__APP_DATA_PATH: dir, FORGE__DATABASE__PATH: path.join(dir, 'forge.db') });
    await migrate(openDatabase(s), s);
  });
  after(async () => { await closeDatabase(); });

  it('sets last_used_at the first time, skips writes within a minute, writes again after it', async () => {
    const key = await insertPublicKey(systemCtx, {
      ownerId: 1, name: 'k', fingerprint: 'SHA256:touch', content: 'ssh-ed25519 AAAA', keyType: 'ssh-ed25519',
      mode: PublicKeyMode.Write, type: PublicKeyType.User,
    });
    const t0 = new Date('2030-01-01T10:00:00Z');
    await touchPublicKey(systemCtx, key.id, t0);
    expect((await findPublicKeyById(systemCtx, key.id))!.lastUsedAt!.getTime()).to.equal(t0.getTime());
    await touchPublicKey(systemCtx, key.id, new Date(t0.getTime() + 59_000));
    expect((await findPublicKeyById(systemCtx, key.id))!.lastUsedAt!.getTime()).to.equal(t0.getTime());
    const t2 = new Date(t0.getTime() + 61_000);
    await touchPublicKey(systemCtx, key.id, t2);
    const after = (await findPublicKeyById(systemCtx, key.id))!;
    expect(after.lastUsedAt!.getTime()).to.equal(t2.getTime());
  });
});
