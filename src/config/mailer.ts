/**
 * [mailer] (Gitea's mailer.go): whether mail is sent, how (SMTP with or without TLS, a sendmail
 * program, or the dummy that only logs), to which server, as whom, and in what form; and
 * [admin] DEFAULT_EMAIL_NOTIFICATIONS, the mail preference a new account starts with.
 * A missing port or protocol is inferred as Gitea does: 25 smtp, 465 smtps, 587 smtp+starttls.
 */
import { ConfigError } from './errors';
import { section } from './spec';

/** How mail leaves the forge. */
export const MAIL_PROTOCOLS = ['smtp', 'smtps', 'smtp+starttls', 'smtp+unix', 'sendmail', 'dummy'] as const;
export type MailProtocol = typeof MAIL_PROTOCOLS[number];

/** [mailer]. `from` is worked out into `fromName` and `fromAddress`. */
export interface MailerSettings {
  enabled: boolean; protocol: MailProtocol | ''; smtpAddr: string; smtpPort: number | undefined;
  user: string; passwd: string; from: string; subjectPrefix: string; sendAsPlainText: boolean;
  forceTrustServerCert: boolean; enableHelo: boolean; heloHostname: string; envelopeFrom: string;
  sendmailPath: string; sendmailArgs: string[]; sendmailTimeout: number;
  fromName: string; fromAddress: string;
}

/** [admin]: what a new account's mail preference is, and what users may not do themselves (`deletion`: delete their account). */
export interface AdminSettings { defaultEmailNotifications: EmailPreference; userDisabledFeatures: string[] }

/** A user's email notification preference, by Gitea's names. */
export const EMAIL_PREFERENCES = ['enabled', 'onmention', 'disabled', 'andyourown'] as const;
export type EmailPreference = typeof EMAIL_PREFERENCES[number];

/** [mailer]. */
export const mailerSection = section<MailerSettings>('mailer', {
  ENABLED: { kind: 'bool', def: 'false' },
  PROTOCOL: { kind: 'string', def: '', oneOf: ['', ...MAIL_PROTOCOLS], ignoreCase: true },
  SMTP_ADDR: { kind: 'string', def: '' },
  SMTP_PORT: { kind: 'int', def: '', min: 1, max: 65535 },
  USER: { kind: 'string', def: '' },
  PASSWD: { kind: 'string', def: '' },
  FROM: { kind: 'string', def: '' },
  ENVELOPE_FROM: { kind: 'string', def: '' },
  SUBJECT_PREFIX: { kind: 'string', def: '' },
  SEND_AS_PLAIN_TEXT: { kind: 'bool', def: 'false' },
  FORCE_TRUST_SERVER_CERT: { kind: 'bool', def: 'false' },
  ENABLE_HELO: { kind: 'bool', def: 'true' },
  HELO_HOSTNAME: { kind: 'string', def: '' },
  SENDMAIL_PATH: { kind: 'string', def: 'sendmail' },
  SENDMAIL_ARGS: { kind: 'list', def: '', keepCase: true },
  SENDMAIL_TIMEOUT: { kind: 'duration', def: '5m', min: 1, max: 3600 },
});

/** [admin]. */
export const adminSection = section<AdminSettings>('admin', {
  DEFAULT_EMAIL_NOTIFICATIONS: { kind: 'string', def: 'enabled', oneOf: [...EMAIL_PREFERENCES], ignoreCase: true },
  USER_DISABLED_FEATURES: { kind: 'list', def: '' },
});

const PORT_OF: Partial<Record<MailProtocol, number>> = { smtp: 25, smtps: 465, 'smtp+starttls': 587 };
const PROTOCOL_OF: Record<number, MailProtocol> = { 25: 'smtp', 465: 'smtps', 587: 'smtp+starttls' };

/**
 * Infer the port and protocol (Gitea's order: the port from the protocol, then the protocol from
 * the address or port; any other port is taken as smtps, with a warning), and split FROM into its
 * display name and address (FROM defaults to USER, as in Gitea). Returns warnings to log.
 */
export function resolveMailer(m: MailerSettings): string[] {
  const warnings: string[] = [];
  if (m.smtpPort === undefined && m.protocol && PORT_OF[m.protocol]) m.smtpPort = PORT_OF[m.protocol];
  if (!m.protocol) {
    if (/[/\\]/.test(m.smtpAddr)) m.protocol = 'smtp+unix';
    else if (m.smtpPort !== undefined && PROTOCOL_OF[m.smtpPort]) m.protocol = PROTOCOL_OF[m.smtpPort];
    else if (m.enabled) {
      warnings.push(`[mailer] PROTOCOL is not set and SMTP_PORT ${m.smtpPort ?? '(none)'} does not name one: assuming smtps`);
      m.protocol = 'smtps';
      m.smtpPort ??= 465;
    }
  }
  const from = parseFrom(m.from || m.user);
  if (from === null) throw new ConfigError(`[mailer] FROM: "${m.from}" is not an address (write "Name <user@host>" or user@host)`);
  m.fromName = from.name;
  m.fromAddress = from.address;
  if (m.enabled && !m.fromAddress) warnings.push('[mailer] FROM is empty: mail may be refused by the server');
  return warnings;
}

/** `"Name" <a@b>`, `Name <a@b>` or `a@b` into its parts; '' into empty parts; null when unreadable. */
function parseFrom(text: string): { name: string; address: string } | null {
  const t = text.trim();
  if (!t) return { name: '', address: '' };
  const angled = /^(?:"?([^"<]*?)"?\s*)?<([^<>\s]+@[^<>\s]+)>$/.exec(t);
  if (angled) return { name: (angled[1] ?? '').trim(), address: angled[2] };
  return /^[^\s<>@]+@[^\s<>@]+$/.test(t) ? { name: '', address: t } : null;
}
