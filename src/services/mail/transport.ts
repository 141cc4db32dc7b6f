/**
 * The way out for mail: a nodemailer transport built from [mailer] (SMTP with or without TLS,
 * STARTTLS, a Unix socket, a sendmail program, or the dummy that only logs), kept open as a pool of
 * connections, and what this process last learnt of the server (for `/api/healthz`).
 */
import nodemailer, { type Transporter } from 'nodemailer';
import { settings } from '../../config';
import type { MailMessage } from './message';

let transport: Transporter | null = null;

/** What this process knows of the mail server: since when sending fails, and why. */
export interface MailerState { failingSince: number | null; lastError: string | null; sent: number }
const state: MailerState = { failingSince: null, lastError: null, sent: 0 };

/** The mail server as this process last saw it. */
export function mailerState(): Readonly<MailerState> {
  return state;
}

function build(): Transporter {
  const m = settings().mailer;
  if (m.protocol === 'dummy') return nodemailer.createTransport({ jsonTransport: true });
  if (m.protocol === 'sendmail') {
    return nodemailer.createTransport({ sendmail: true, path: m.sendmailPath, args: m.sendmailArgs, newline: 'unix' });
  }
  const tls = { rejectUnauthorized: !m.forceTrustServerCert, servername: m.smtpAddr };
  return nodemailer.createTransport({
    // why: a pool keeps a few connections open, so a storm of mail is not a TCP and TLS handshake per message.
    pool: true, maxConnections: 4, maxMessages: Infinity,
    ...(m.protocol === 'smtp+unix' ? { socketPath: m.smtpAddr } as object : { host: m.smtpAddr, port: m.smtpPort }),
    secure: m.protocol === 'smtps',
    // why: as Gitea, smtp+starttls upgrades when the server offers it; plain smtp never tries.
    ignoreTLS: m.protocol === 'smtp' || m.protocol === 'smtp+unix',
    name: m.enableHelo ? (m.heloHostname || undefined) : 'localhost',
    auth: m.user ? { user: m.user, pass: m.passwd } : undefined,
    tls,
    connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000,
  });
}

function current(): Transporter {
  transport ??= build();
  return transport;
}

/** Send one message now; resolves when the server accepted it. */
export async function deliver(msg: MailMessage): Promise<void> {
  const m = settings().mailer;
  try {
    const info = await current().sendMail({
      from: { name: msg.fromName, address: m.fromAddress },
      envelope: m.envelopeFrom ? { from: m.envelopeFrom === '<>' ? '' : m.envelopeFrom, to: msg.to } : undefined,
      to: msg.toName ? { name: msg.toName, address: msg.to } : msg.to,
      subject: msg.subject,
      text: msg.text,
      html: msg.html ?? undefined,
      messageId: msg.messageId,
      date: new Date(msg.date),
      headers: msg.headers,
    });
    // why: with PROTOCOL = dummy the log is the mailbox: an administrator trying the flows finds the links there.
    if (m.protocol === 'dummy') console.info(`mail (dummy) ${info.messageId} to ${msg.to}: ${msg.subject}\n${msg.text}`);
    state.failingSince = null;
    state.lastError = null;
    state.sent++;
  } catch (err) {
    state.failingSince ??= Date.now();
    state.lastError = (err as Error).message;
    throw err;
  }
}

/** Can the server be reached and does it greet us (and accept our credentials)? Throws why not. */
export async function probeServer(): Promise<void> {
  const m = settings().mailer;
  if (m.protocol === 'dummy' || m.protocol === 'sendmail') return;
  await current().verify();
  state.failingSince = null;
  state.lastError = null;
}

/** Close the pool's connections (at shutdown, and in tests that change [mailer]). */
export function closeTransport(): void {
  transport?.close();
  transport = null;
}
