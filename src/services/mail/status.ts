/**
 * The mailer as an administrator sees it: how it sends, how much mail waits in the outbox or was
 * given up, and whether this process can reach the server (for `/api/healthz` and the admin page).
 */
import { settings } from '../../config';
import { systemCtx } from '../../db';
import { outboxBacklog } from '../../queue/outbox';
import { SEND_TOPIC } from './message';
import { mailerState } from './transport';

/** The mailer's state. `failingSince`: when sending started to fail on this process (null while it works). */
export interface MailStatus {
  enabled: boolean; protocol: string; server: string; from: string;
  waiting: number; dead: number; oldestWaiting: Date | null; failingSince: Date | null; lastError: string | null;
}

/** Read the mailer's state now. */
export async function mailStatus(): Promise<MailStatus> {
  const m = settings().mailer;
  const backlog = m.enabled ? await outboxBacklog(systemCtx, SEND_TOPIC) : { waiting: 0, dead: 0, oldest: null };
  const st = mailerState();
  return {
    enabled: m.enabled, protocol: m.protocol || '', from: m.fromAddress,
    server: m.protocol === 'sendmail' ? m.sendmailPath : m.protocol === 'dummy' ? '' : `${m.smtpAddr}${m.smtpPort ? `:${m.smtpPort}` : ''}`,
    waiting: backlog.waiting, dead: backlog.dead, oldestWaiting: backlog.oldest,
    failingSince: st.failingSince ? new Date(st.failingSince) : null, lastError: st.lastError,
  };
}
