/**
 * The user's SSH and GPG keys (`/user/settings/keys`): list, add, remove. A kind of key the
 * instance disables (`[user] ENABLE_SSH_KEYS`, `ENABLE_GPG_KEYS`) is not shown, and its forms are
 * refused (403) as the API refuses them.
 */
import express, { type Router } from 'express';
import { settings } from '../../config';
import { ctxOf, doerOf } from '../../middleware/context';
import { formBody } from '../../middleware/input-guard';
import { addGpgKey, assertGpgKeysEnabled, listGpgKeys, removeGpgKey } from '../../services/keys/gpg-key.service';
import { addPublicKey, assertSshKeysEnabled, getOwnPublicKey, publicKeysOf, removePublicKey } from '../../services/keys/ssh-key.service';
import { flashOutcome, requireCsrf } from './context';
import { renderPage } from './render';
import { page, signedIn } from './route';

const PATH = 'user/settings/keys';

/** Key settings routes. */
export function keyPages(): Router {
  const r = express.Router();
  const csrf = requireCsrf();
  const back = () => `${settings().server.rootUrl}${PATH}`;

  r.get(`/${PATH}`, page(async (req, res) => {
    if (!signedIn(req, res)) return;
    const { enableSshKeys, enableGpgKeys } = settings().user;
    const ssh = enableSshKeys ? (await publicKeysOf(ctxOf(req), doerOf(req))).map((k) => ({ id: k.id, name: k.name, fingerprint: k.fingerprint })) : null;
    const gpg = enableGpgKeys ? (await listGpgKeys(ctxOf(req), doerOf(req), 1000, 0)).keys.map((k) => ({ id: k.key.id, keyId: k.key.keyId })) : null;
    await renderPage(req, res, 'user/settings/keys', 'SSH / GPG keys', { ssh, gpg });
  }));

  const action = (path: string, run: (req: express.Request) => Promise<unknown>, done: string) => {
    r.post(`/${PATH}/${path}`, ...formBody('256kb'), csrf, page(async (req, res) => {
      if (!signedIn(req, res)) return;
      await flashOutcome(req, () => run(req), () => done);
      res.redirect(303, back());
    }));
  };
  action('ssh', async (req) => {
    assertSshKeysEnabled();
    await addPublicKey(ctxOf(req), doerOf(req), String(req.body.title ?? ''), String(req.body.content ?? ''));
  }, 'The SSH key has been added.');
  action('ssh/delete', async (req) => {
    assertSshKeysEnabled();
    await removePublicKey(ctxOf(req), await getOwnPublicKey(ctxOf(req), doerOf(req), Number(req.body.id)));
  }, 'The SSH key has been removed.');
  action('gpg', async (req) => {
    assertGpgKeysEnabled();
    await addGpgKey(ctxOf(req), doerOf(req), String(req.body.content ?? ''));
  }, 'The GPG key has been added.');
  action('gpg/delete', async (req) => {
    assertGpgKeysEnabled();
    await removeGpgKey(ctxOf(req), doerOf(req), Number(req.body.id));
  }, 'The GPG key has been removed.');
  return r;
}
