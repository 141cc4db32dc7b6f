/**
 * Site administration, the system's side (Gitea's `/-/admin/config`, `/monitor`, `/cron`,
 * `/emails`, `/packages`): a read-only configuration summary (never a password, key or token) with
 * the test mail form, the system status, the periodic tasks with "Run now", every user's email
 * addresses, and every owner's packages with their deletion. Site administrators only; anyone else
 * gets a 404 in the site frame, a visitor is sent to sign in.
 */
import express, { type Router } from 'express';
import { PACKAGE_TYPES, settings } from '../../config';
import { Conflict, HttpError, NotFound } from '../../errors';
import { ctxOf, doerOf } from '../../middleware/context';
import { formBody } from '../../middleware/input-guard';
import { deleteEveryNotice, deleteNotices, noticePage } from '../../services/admin/notice.service';
import { listCronTasks, runCronTask } from '../../services/cron/cron.service';
import { systemStatus } from '../../services/health/monitor.service';
import { mailStatus } from '../../services/mail/status';
import { listAllPackageVersions, removeAnyPackageVersion } from '../../services/packages/admin.service';
import { searchAllEmails, setEmailActivationByAdmin } from '../../services/user/email-admin.service';
import { PAGE_SIZE, keyword, paging, siteAdmin } from './admin';
import { humanSize } from './package-types';
import { flashOutcome, requireCsrf } from './context';
import { renderPage } from './render';
import { page, pageNumber } from './route';

type Row = [string, string | number | boolean];

/** The configuration as groups of (name, value) rows, as Gitea's configuration page groups it; no secret is ever among them. */
function configGroups(): { id: string; title: string; rows: Row[] }[] {
  const s = settings();
  const on = (b: boolean) => (b ? 'Enabled' : 'Disabled');
  const m = s.mailer;
  return [
    { id: 'server', title: 'Server', rows: [
      ['Site name', s.appName], ['Root URL', s.server.rootUrl], ['App data path', s.server.appDataPath], ['Repository root', s.repository.root],
      ['Run mode', s.runMode], ['HTTP address', `${s.server.httpAddr}:${s.server.httpPort}`], ['LFS server', on(s.server.lfsStartServer)],
      ['Configuration file', s.configPath ?? '(none: defaults and environment)'],
    ] },
    { id: 'ssh', title: 'SSH', rows: s.server.disableSsh ? [['SSH', 'Disabled']] : [
      ['Built-in SSH server', on(s.server.startSshServer)], ['SSH domain', s.server.sshDomain], ['SSH port', s.server.sshPort],
      ['Listen', `${s.server.sshListenHost}:${s.server.sshListenPort}`], ['SSH user', s.server.sshUser],
    ] },
    { id: 'database', title: 'Database', rows: s.database.dbType === 'sqlite3'
      ? [['Type', 'SQLite'], ['Path', s.database.path]]
      // why: the user and host are shown as Gitea shows them; the password never is.
      : [['Type', 'PostgreSQL'], ['Host', s.database.host], ['Name', s.database.name], ['User', s.database.user], ['SSL mode', s.database.sslMode]] },
    { id: 'service', title: 'Service', rows: [
      ['Registration', s.service.disableRegistration ? 'Disabled' : 'Open'], ['Email confirmation for registration', on(s.service.registerEmailConfirm)],
      ['Sign-in required to view', on(s.service.requireSigninView)], ['Notification mail', on(s.service.enableNotifyMail)],
      ['Keep email private by default', on(s.service.defaultKeepEmailPrivate)], ['May create organizations by default', on(s.service.defaultAllowCreateOrganization)],
      ['Default user visibility', s.service.defaultUserVisibility], ['Default organization visibility', s.service.defaultOrgVisibility],
      ['Time tracking', on(s.service.enableTimetracking)], ['Reverse proxy authentication', on(s.service.enableReverseProxyAuthentication)],
      ['Activation link lifetime', `${s.service.activeCodeLiveMinutes} minutes`],
    ] },
    { id: 'mailer', title: 'Mailer', rows: m.enabled ? [
      ['Mailer', 'Enabled'], ['Protocol', m.protocol || '(from the address)'],
      ['Server', m.protocol === 'sendmail' ? m.sendmailPath : `${m.smtpAddr}${m.smtpPort ? `:${m.smtpPort}` : ''}`],
      ['User', m.user || '(none)'], ['From', m.from || m.fromAddress], ['Subject prefix', m.subjectPrefix || '(none)'],
    ] : [['Mailer', 'Disabled']] },
    { id: 'cache', title: 'Cache, sessions and queues', rows: [
      ['Redis', s.redis.connStr ? 'Configured (locks, cache, events across nodes)' : 'Not configured (one node: memory)'],
      ['Sessions', 'Database (cookie i_like_gitea)'], ['Queue', 'Database outbox'],
    ] },
    { id: 'packages', title: 'Packages', rows: [['Packages', on(s.packages.enabled)], ['Storage', s.packages.path], ['Cleanup', on(s.cleanupPackages.enabled)]] },
    { id: 'actions', title: 'Actions', rows: [['Actions', on(s.actions.enabled)], ['Default actions URL', s.actions.defaultActionsUrl], ['Log path', s.actions.logPath]] },
    { id: 'federation', title: 'Federation', rows: [['Federation', on(s.federation.enabled)]] },
    { id: 'oauth2', title: 'OAuth2 provider', rows: s.oauth2.enabled ? [
      ['OAuth2 provider', 'Enabled'], ['Signing algorithm', s.oauth2.jwtSigningAlgorithm], ['Access lifetime', duration(s.oauth2.accessTokenExpirationTime)],
      ['Refresh lifetime', duration(s.oauth2.refreshTokenExpirationTime * 3600)], ['Each refresh used once', on(s.oauth2.invalidateRefreshTokens)],
    ] : [['OAuth2 provider', 'Disabled']] },
    { id: 'webhook', title: 'Webhooks and mirrors', rows: [['Webhooks', on(!s.security.disableWebhooks)], ['Mirrors', on(s.mirror.enabled)]] },
    { id: 'log', title: 'Log', rows: [['Level', s.log.level], ['Mode', s.log.mode.join(', ')], ['Format', s.log.format], ['Root path', s.log.rootPath], ['Access log', on(s.log.enableAccessLog)]] },
  ];
}

/** Seconds as "3 days 4 hours 5 minutes". */
function duration(secs: number): string {
  const parts: string[] = [];
  for (const [n, name] of [[86400, 'day'], [3600, 'hour'], [60, 'minute']] as const) {
    const k = Math.floor(secs / n);
    if (k) parts.push(`${k} ${name}${k > 1 ? 's' : ''}`);
    secs -= k * n;
  }
  return parts.length ? parts.join(' ') : `${secs} seconds`;
}

/** The system side of the site administration. */
export function adminSystemPages(): Router {
  const r = express.Router();
  const csrf = requireCsrf();
  const to = (path: string) => `${settings().server.rootUrl}admin${path}`;

  r.get('/admin/config', page(async (req, res) => {
    if (!siteAdmin(req, res)) return;
    await renderPage(req, res, 'admin/config', 'Configuration', { section: 'config', groups: configGroups(), mail: await mailStatus(), adminEmail: doerOf(req).email });
  }));

  r.get('/admin/monitor', page(async (req, res) => {
    if (!siteAdmin(req, res)) return;
    const st = await systemStatus();
    await renderPage(req, res, 'admin/monitor', 'System status', { section: 'monitor', st, uptime: duration(st.process.uptimeSeconds), size: humanSize });
  }));

  r.get('/admin/cron', page(async (req, res) => {
    if (!siteAdmin(req, res)) return;
    const tasks = listCronTasks().map((t) => ({ name: t.name, schedule: t.schedule, next: new Date(t.next), prev: t.prev ? new Date(t.prev) : null, runs: t.execTimes }));
    await renderPage(req, res, 'admin/cron', 'Cron tasks', { section: 'cron', tasks });
  }));
  // why: the task runs before the answer, as the API's POST /admin/cron/{task}, so the page shows its new count.
  r.post('/admin/cron/:task/run', ...formBody(), csrf, page(async (req, res) => {
    if (!siteAdmin(req, res)) return;
    const task = String(req.params.task);
    await flashOutcome(req, () => runCronTask(task).catch((err: unknown) => {
      if (err instanceof HttpError) throw err;
      // why: the task's own failure is the administrator's to read (its notice says why), not a server error page.
      console.error(`cron ${task}:`, err);
      throw new Conflict(`The task "${task}" failed; the system notices say why.`);
    }), () => `The task "${task}" has run.`);
    res.redirect(303, to('/cron'));
  }));

  r.get('/admin/notices', page(async (req, res) => {
    if (!siteAdmin(req, res)) return;
    const pageNo = pageNumber(req);
    const { rows, count } = await noticePage(ctxOf(req), PAGE_SIZE, (pageNo - 1) * PAGE_SIZE);
    const notices = rows.map((n) => ({ id: n.id, type: n.type === 2 ? 'Task' : 'Repository', description: n.description, created: new Date(n.createdUnix * 1000) }));
    await renderPage(req, res, 'admin/notices', 'System notices', { section: 'notices', notices, ...paging('', pageNo, count) });
  }));
  r.post('/admin/notices/delete', ...formBody(), csrf, page(async (req, res) => {
    if (!siteAdmin(req, res)) return;
    // why: a form's fields arrive flattened to one value each, so each box is named by its notice's id.
    const ids = Object.keys(req.body as Record<string, string>).map((k) => /^id-(\d+)$/.exec(k)?.[1]).filter((x): x is string => !!x);
    await flashOutcome(req, () => deleteNotices(ctxOf(req), ids), (n) => `${n} notice${n === 1 ? '' : 's'} deleted.`);
    res.redirect(303, to('/notices'));
  }));
  r.post('/admin/notices/delete_all', ...formBody(), csrf, page(async (req, res) => {
    if (!siteAdmin(req, res)) return;
    await flashOutcome(req, () => deleteEveryNotice(ctxOf(req)), () => 'Every notice has been deleted.');
    res.redirect(303, to('/notices'));
  }));

  r.get('/admin/emails', page(async (req, res) => {
    if (!siteAdmin(req, res)) return;
    const q = keyword(req);
    const pageNo = pageNumber(req);
    const { rows, count } = await searchAllEmails(ctxOf(req), q, PAGE_SIZE, (pageNo - 1) * PAGE_SIZE);
    await renderPage(req, res, 'admin/emails', 'Email addresses', { section: 'emails', emails: rows, ...paging(q, pageNo, count) });
  }));

  r.post('/admin/emails/activate', ...formBody(), csrf, page(async (req, res) => {
    if (!siteAdmin(req, res)) return;
    const b = req.body as Record<string, string>;
    const activate = b.activate === 'true';
    const email = String(b.email ?? '');
    await flashOutcome(req, () => setEmailActivationByAdmin(ctxOf(req), doerOf(req), Number(b.uid) || 0, email, activate),
      (changed) => (changed ? `The email address ${email} has been ${activate ? 'activated' : 'deactivated'}.` : `The email address ${email} was already ${activate ? 'activated' : 'deactivated'}.`));
    const back = new URLSearchParams({ ...(b.q ? { q: String(b.q) } : {}), ...(Number(b.page) > 1 ? { page: String(Number(b.page)) } : {}) }).toString();
    res.redirect(303, to(`/emails${back ? `?${back}` : ''}`));
  }));

  r.get('/admin/packages', page(async (req, res) => {
    if (!siteAdmin(req, res)) return;
    const q = keyword(req);
    const type = (PACKAGE_TYPES as readonly string[]).includes(String(req.query.type)) ? String(req.query.type) : '';
    const pageNo = pageNumber(req);
    const { rows, count } = await listAllPackageVersions(ctxOf(req), { type, q }, PAGE_SIZE, (pageNo - 1) * PAGE_SIZE);
    await renderPage(req, res, 'admin/packages', 'Packages', {
      section: 'packages', packages: rows, types: PACKAGE_TYPES, type, size: humanSize, ...paging(q, pageNo, count),
      pagerQuery: new URLSearchParams({ ...(q ? { q } : {}), ...(type ? { type } : {}) }).toString(),
    });
  }));
  r.post('/admin/packages/:id/delete', ...formBody(), csrf, page(async (req, res) => {
    if (!siteAdmin(req, res)) return;
    const id = Number(req.params.id);
    if (!Number.isInteger(id) || id < 1) throw new NotFound();
    await flashOutcome(req, () => removeAnyPackageVersion(ctxOf(req), doerOf(req), id), (what) => `The package ${what} has been deleted.`);
    res.redirect(303, to('/packages'));
  }));
  return r;
}
