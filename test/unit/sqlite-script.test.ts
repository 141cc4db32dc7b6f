/**
 * sqliteScript against a fresh SQLite database: scripts that wait for the same turn run together
 * in one transaction, each caller gets its own row, and a failing script fails alone.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import { loadSettings, useSettings } from '../../src/config';
import { openDatabase, closeDatabase, db, sqliteScript } from '../../src/db';

interface Row { id: number; v: string }

const lastRows = (n: number) => `SELECT id, v FROM (SELECT id, v FROM scratch WHERE id <= last_insert_rowid() ORDER BY id DESC LIMIT ${n}) AS t ORDER BY id`;
const insert = (v: string) => sqliteScript<Row>('scratch', ['INSERT INTO scratch (v) VALUES (:v)'], { v }, lastRows, ['scratch']);
const stored = async () => (await db().query<Row>('SELECT id, v FROM scratch ORDER BY id', { type: QueryTypes.SELECT })).map((r) => r.v);

describe('sqliteScript', () => {
  let dir: string;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'forge-sqlite-script-'));
    const s = loadSettings(null, { FORGE__SERVER__APP_DATA_PATH: dir, FORGE__LOG__LEVEL: 'none' });
    useSettings(s);
    openDatabase(s);
    await db().query('CREATE TABLE scratch (id INTEGER PRIMARY KEY AUTOINCREMENT, v TEXT NOT NULL UNIQUE)');
  });
  after(async () => {
    await closeDatabase();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => db().query('DELETE FROM scratch'));

  it('answers every caller of a group that ran together with its own row', async () => {
    const values = Array.from({ length: 20 }, (_, i) => `value ${i}`);
    const rows = await Promise.all(values.map(insert));
    expect(rows.map((r) => r.v)).to.deep.equal(values);
    expect(new Set(rows.map((r) => r.id)).size).to.equal(20);
    expect(await stored()).to.have.members(values);
  });

  it('stores quotes, colons and newlines verbatim', async () => {
    const odd = "it's a \"name\" :v; DROP TABLE scratch; --\nnext line";
    expect((await insert(odd)).v).to.equal(odd);
    expect(await stored()).to.deep.equal([odd]);
  });

  it('fails a failing script alone: the others of its group are written, it is not', async () => {
    await insert('taken');
    const results = await Promise.allSettled(['a', 'b', 'taken', 'c'].map(insert));
    expect(results.map((r) => r.status)).to.deep.equal(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect(String((results[2] as PromiseRejectedResult).reason)).to.match(/UNIQUE constraint failed/);
    expect(results.filter((r) => r.status === 'fulfilled').map((r) => (r as PromiseFulfilledResult<Row>).value.v)).to.deep.equal(['a', 'b', 'c']);
    expect(await stored()).to.have.members(['taken', 'a', 'b', 'c']);
    expect(await stored()).to.have.length(4);
  });

  it('refuses a value with a NUL before anything runs', async () => {
    expect(() => insert('a\0b')).to.throw(/NUL/);
    expect(await stored()).to.deep.equal([]);
  });
});
