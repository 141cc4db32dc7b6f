/**
 * writeRunnerPresence against a real (SQLite) database: many runners in one call, each time only
 * moving forward (another node may have written a later one).
 */
import { expect } from 'chai';
import path from 'node:path';
import { loadSettings } from '../../src/config';
import { openDatabase, closeDatabase, systemCtx } from '../../src/db';
import { migrate } from '../../src/db/migrate';
import { findRunnerById, insertRunner, writeRunnerPresence } from '../../src/models/action-runner.model';
import { tempDir } from '../helpers/keys';

describe('writeRunnerPresence', () => {
  before(async () => {
    const dir = tempDir('forge-presence-');
    const s = loadSettings(null, { FORGE__SERVER__APP_DATA_PATH: dir, FORGE__DATABASE__PATH: path.join(dir, 'forge.db') });
    await migrate(openDatabase(s), s);
  });
  after(async () => { await closeDatabase(); });

  it('writes the times of 1,200 runners (three statements), never moving a time back', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 1200; i++) {
      const r = await insertRunner(systemCtx, {
        uuid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, name: `r${i}`, version: 'v1', ownerId: 0, repoId: 0,
        tokenHash: String(i).padStart(64, '0'), tokenLastEight: '00000000', labels: ['x'], ephemeral: false, now: 1000,
      });
      ids.push(r.id);
    }
    await writeRunnerPresence(systemCtx, ids.map((id, i) => ({ id, lastOnline: 2000 + i, lastActive: i % 2 ? 1500 : 0 })));
    for (const i of [0, 1, 499, 500, 1199]) {
      const r = (await findRunnerById(systemCtx, ids[i]))!;
      expect([r.lastOnline, r.lastActive], `runner ${i}`).to.deep.equal([2000 + i, i % 2 ? 1500 : 0]);
    }
    // an older report (from a node that heard the runner earlier) changes nothing; a newer one moves it on
    await writeRunnerPresence(systemCtx, [{ id: ids[0], lastOnline: 1500, lastActive: 1400 }, { id: ids[1], lastOnline: 3000, lastActive: 2900 }]);
    const [a, b] = [(await findRunnerById(systemCtx, ids[0]))!, (await findRunnerById(systemCtx, ids[1]))!];
    expect([a.lastOnline, a.lastActive]).to.deep.equal([2000, 1400]);
    expect([b.lastOnline, b.lastActive]).to.deep.equal([3000, 2900]);
  });
});
