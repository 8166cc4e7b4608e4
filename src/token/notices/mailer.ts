/**
 * Outgoing e-mail for the notices of docs/token-service.md § Access phases: a small {@link Mailer}
 * interface (injected; tests use a real SMTP server on loopback) and its SMTP implementation
 * over nodemailer. The SMTP password is only handed to nodemailer, never logged.
 * @module
 */
import nodemailer from "nodemailer";
import { UserError } from "../../user_error.ts";

/** One plain-text message. */
export interface MailMessage {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  /** Stable per notice (`<ntc_…@svc-token-service>`), so a rare duplicate is recognisable. */
  readonly messageId: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/** Sends mail; rejects when the server did not accept the message. */
export interface Mailer {
  send(m: MailMessage): Promise<void>;
  close(): void;
}

/** SMTP settings (config `SVC_SMTP_*`). */
export interface SmtpSettings {
  readonly host: string;
  readonly port: number;
  /** true = TLS from the start (port 465); false = STARTTLS when offered. */
  readonly secure: boolean;
  readonly user?: string | null;
  readonly pass?: string | null;
  /** Sender, e.g. `"Svc Token Service" <noreply@example.com>`. */
  readonly from: string;
  /** Per-step timeout in ms (connect, greeting, socket); default 30 s, far below the lease. */
  readonly timeoutMs?: number;
}

/**
 * An SMTP mailer (one pooled transport).
 * @param s host, port, TLS, credentials, sender
 * @returns the mailer
 * @throws Error from `send` when the SMTP server refuses the message or cannot be reached
 */
export function createSmtpMailer(s: SmtpSettings): Mailer {
  const timeout = s.timeoutMs ?? 30_000;
  const transport = nodemailer.createTransport({
    host: s.host,
    port: s.port,
    secure: s.secure,
    auth: s.user ? { user: s.user, pass: s.pass ?? "" } : undefined,
    pool: true,
    maxConnections: 2,
    connectionTimeout: timeout,
    greetingTimeout: timeout,
    socketTimeout: timeout * 2,
  });
  return {
    async send(m) {
      const info = await transport.sendMail({
        from: s.from,
        to: m.to,
        subject: m.subject,
        text: m.text,
        messageId: m.messageId,
        headers: m.headers,
      });
      if (!info.accepted || info.accepted.length === 0) {
        throw new UserError(`SMTP server did not accept the message for ${m.to}`);
      }
    },
    close() {
      transport.close();
    },
  };
}
