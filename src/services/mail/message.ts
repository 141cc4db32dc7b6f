/**
 * A mail as it is queued: everything the transport needs, rendered once when it is queued, so a
 * retry (or a second delivery after a crash) sends the very same message with the same Message-ID.
 * One message per recipient, never several people in one To (Gitea's rule).
 */
import crypto from 'node:crypto';
import { convert } from 'html-to-text';
import { settings } from '../../config';
import type { DbContext } from '../../db';
import { enqueueMany, notifyEnqueued } from '../../queue/outbox';

/** The outbox topic of mails to send. */
export const SEND_TOPIC = 'mail.send';

/** A rendered mail for one recipient. */
export interface MailMessage {
  to: string;
  /** Shown beside the address (account mails); empty for notification mails, which go to the bare address. */
  toName: string;
  /** Display name of the sender; the address is always [mailer] FROM. */
  fromName: string;
  subject: string;
  /** HTML body, or null with SEND_AS_PLAIN_TEXT. */
  html: string | null;
  text: string;
  messageId: string;
  /** When the message was made (ms), its Date header. */
  date: number;
  headers: Record<string, string>;
}

/** What a mail says, before it is addressed. */
export interface MailContent { subject: string; html: string; headers?: Record<string, string>; messageId?: string; fromName?: string }

/** The host part of Message-IDs and List-IDs (Gitea's DOMAIN): the ROOT_URL's host name. */
export function mailDomain(): string {
  return new URL(settings().server.rootUrl).hostname;
}

/** The plain-text part of an HTML body, as a mail client without HTML shows it. */
export function textOf(html: string): string {
  return convert(html, { wordwrap: 100, selectors: [{ selector: 'a', options: { hideLinkHrefIfSameAsText: true } }, { selector: 'img', format: 'skip' }] });
}

/**
 * Address `content` to one recipient. The subject gets [mailer] SUBJECT_PREFIX; the text part is
 * made from the HTML (`text`, when the caller converted it once for many recipients).
 */
export function addressed(content: MailContent, to: { address: string; name?: string }, text?: string): MailMessage {
  const m = settings().mailer;
  const subject = m.subjectPrefix ? `${m.subjectPrefix} ${content.subject}` : content.subject;
  return {
    to: to.address,
    toName: (to.name ?? '').replace(/[\r\n<>,:;"]/g, ''),
    fromName: content.fromName ?? m.fromName,
    subject,
    html: m.sendAsPlainText ? null : content.html,
    text: text ?? textOf(content.html),
    messageId: content.messageId ?? `<autogen-${Date.now()}-${crypto.randomBytes(8).toString('hex')}@${mailDomain()}>`,
    date: Date.now(),
    // why: as Gitea, every mail asks auto-responders (out-of-office replies) to stay quiet.
    headers: { 'X-Auto-Response-Suppress': 'All', ...content.headers },
  };
}

/**
 * Queue messages in `tx` (one outbox job each, so one that fails is retried alone); the node's
 * senders are woken when it commits. Nothing is queued when [mailer] is off.
 */
export async function queueMails(tx: DbContext, messages: MailMessage[]): Promise<void> {
  if (!settings().mailer.enabled || messages.length === 0) return;
  await enqueueMany(tx, SEND_TOPIC, messages);
  if (tx.tx) tx.tx.afterCommit(() => notifyEnqueued());
  else notifyEnqueued();
}
