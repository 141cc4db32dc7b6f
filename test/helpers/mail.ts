/**
 * A real SMTP server on loopback for the tests (the `smtp-server` package), whose mails are parsed
 * with `mailparser`. It can refuse mail for a while (a temporary 451, as a busy server answers) or
 * be stopped and started again on the same port (a server that is down).
 */
import { SMTPServer } from 'smtp-server';
import { simpleParser, type ParsedMail } from 'mailparser';
import { freePort } from './server';

/** A received mail: the envelope's recipients and the parsed message. */
export interface Received { rcpt: string[]; mail: ParsedMail; raw: string }

/** A mail sink on 127.0.0.1. */
export class MailSink {
  readonly received: Received[] = [];
  /** While set, every message is refused with this temporary error. */
  refusing: string | null = null;
  private server: SMTPServer | null = null;
  private waiters: (() => void)[] = [];
  constructor(public readonly port: number) {}

  /** Make a sink on a free port and start it. */
  static async start(): Promise<MailSink> {
    const sink = new MailSink(await freePort());
    await sink.listen();
    return sink;
  }

  /** The [mailer] settings that send to this sink. */
  env(extra: Record<string, string> = {}): Record<string, string> {
    return {
      FORGE__MAILER__ENABLED: 'true', FORGE__MAILER__PROTOCOL: 'smtp', FORGE__MAILER__SMTP_ADDR: '127.0.0.1',
      FORGE__MAILER__SMTP_PORT: String(this.port), FORGE__MAILER__FROM: '"Forge" <forge@example.com>', ...extra,
    };
  }

  /** Listen (again) on the sink's port. */
  async listen(): Promise<void> {
    const server = new SMTPServer({
      authOptional: true, disabledCommands: ['STARTTLS', 'AUTH'], logger: false, size: 10 * 1024 * 1024,
      // why: a stop drops the forge's open pooled connections at once, as a server that goes down does.
      closeTimeout: 100,
      onData: (stream, session, done) => {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          if (this.refusing) return done(Object.assign(new Error(this.refusing), { responseCode: 451 }));
          const raw = Buffer.concat(chunks).toString('utf8');
          simpleParser(raw).then((mail) => {
            this.received.push({ rcpt: session.envelope.rcptTo.map((r) => r.address), mail, raw });
            for (const w of this.waiters.splice(0)) w();
            done();
          }, done);
        });
      },
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    server.removeAllListeners('error');
    // why: a client that goes away mid-session (a stopped server) resets its connection; that is not the sink's fault.
    server.on('error', () => undefined);
    this.server = server;
  }

  /** Stop listening (the server is down: connections are refused). */
  async close(): Promise<void> {
    const s = this.server;
    this.server = null;
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  }

  /** Mails to `address` so far. */
  to(address: string): Received[] {
    return this.received.filter((r) => r.rcpt.includes(address.toLowerCase()) || r.rcpt.includes(address));
  }

  /** Wait until `pred` holds of the mails received (up to `ms`); returns the matching mails. */
  async waitFor(pred: (r: Received) => boolean, count = 1, ms = 20_000): Promise<Received[]> {
    const deadline = Date.now() + ms;
    for (;;) {
      const got = this.received.filter(pred);
      if (got.length >= count) return got;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`expected ${count} mail(s), got ${got.length}; received: ${this.received.map((r) => `${r.rcpt.join(',')}: ${r.mail.subject}`).join(' | ') || 'none'}`);
      await new Promise<void>((resolve) => { this.waiters.push(resolve); setTimeout(resolve, Math.min(left, 200)); });
    }
  }

  /** Forget what was received. */
  clear(): void {
    this.received.length = 0;
  }
}

/** The links of a mail's text part. */
export function linksOf(r: Received): string[] {
  return [...(r.mail.text ?? '').matchAll(/https?:\/\/[^\s\])>]+/g)].map((m) => m[0]);
}
