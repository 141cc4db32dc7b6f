/**
 * LFS settings: [server] LFS_START_SERVER=false hides every LFS route (404), and LFS_MAX_FILE_SIZE
 * refuses larger new objects per object in the batch (422, as Gitea) and on PUT.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import { expect } from 'chai';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { LfsClient, oidOf, storedPath } from '../helpers/lfs';

describe('LFS settings', () => {
  describe('LFS_START_SERVER=false', () => {
    let w: World;
    let alice: TestUser;
    before(async () => {
      w = await startWorld({ env: { FORGE__SERVER__LFS_START_SERVER: 'false' } });
      alice = await w.user('alice');
      expect((await alice.api.user.createCurrentUserRepo({ name: 'r' })).status).to.equal(201);
    });
    after(async () => { await w?.stop(); });

    it('answers 404 on every LFS route and stores nothing', async () => {
      const lfs = new LfsClient(w.server);
      const auth = { basic: [alice.name, alice.token] as [string, string] };
      const data = Buffer.from('disabled');
      const oid = oidOf(data);
      expect((await lfs.batch('alice/r', 'upload', [{ oid, size: data.length }], auth)).status).to.equal(404);
      expect((await lfs.put('alice/r', oid, data.length, data, auth)).status).to.equal(404);
      expect((await lfs.get('alice/r', oid, auth)).status).to.equal(404);
      expect((await lfs.req('GET', lfs.url('alice/r', '/locks'), auth)).status).to.equal(404);
      expect((await lfs.req('POST', lfs.url('alice/r', '/locks'), auth, { path: 'a' })).status).to.equal(404);
      expect(fs.existsSync(storedPath(w.server, oid))).to.equal(false);
      // git over HTTP is unaffected
      const refs = await fetch(`${w.server.url}alice/r.git/info/refs?service=git-upload-pack`, { headers: { Authorization: `token ${alice.token}` } });
      expect(refs.status).to.equal(200);
    });
  });

  describe('LFS_MAX_FILE_SIZE', () => {
    let w: World;
    let alice: TestUser;
    before(async () => {
      w = await startWorld({ env: { FORGE__SERVER__LFS_MAX_FILE_SIZE: '10' } });
      alice = await w.user('alice');
      expect((await alice.api.user.createCurrentUserRepo({ name: 'r' })).status).to.equal(201);
    });
    after(async () => { await w?.stop(); });

    it('refuses larger objects per object with 422 and on PUT, and accepts the limit itself', async () => {
      const lfs = new LfsClient(w.server);
      const auth = { basic: [alice.name, alice.token] as [string, string] };
      const big = crypto.randomBytes(11);
      const fits = crypto.randomBytes(10);
      const res = await lfs.batch('alice/r', 'upload', [{ oid: oidOf(big), size: 11 }, { oid: oidOf(fits), size: 10 }], auth);
      expect(res.status).to.equal(200);
      expect(res.body.objects[0].error).to.deep.equal({ code: 422, message: 'Size must be less than or equal to 10' });
      expect(res.body.objects[1].actions.upload).to.be.an('object');
      const put = await lfs.put('alice/r', oidOf(big), 11, big, auth);
      expect(put.status).to.equal(422);
      expect(put.body.message).to.equal('Size must be less than or equal to 10');
      expect(fs.existsSync(storedPath(w.server, oidOf(big)))).to.equal(false);
      expect((await lfs.put('alice/r', oidOf(fits), 10, fits, auth)).status).to.equal(200);
    });
  });
});
