/**
 * The demo's outbox (docs/token-service.md § The demo outbox): a {@link Mailer} that keeps every
 * mail the token service would send — sign-up and sign-in links, administrators' invitations,
 * notices — in memory, for the outbox page (outbox_page.ts) and a line of the demo's output.
 * With SMTP configured it also hands each mail on to it. Only `deno task start` (src/cli/demo.ts)
 * builds one; the outbox page is mounted only for a service whose mailer is one
 * (app.ts), so no deployment ever serves it.
 * @module
 */
import type { Mailer, MailMessage } from "../notices/mod.ts";

/** A mail kept in the outbox. */
export interface OutboxMail extends MailMessage {
  /** When it was sent, epoch ms. */
  readonly at: number;
  /** The `http(s)://…` links of its text, in order, each once. */
  readonly links: readonly string[];
}

/** Options of {@link DemoOutbox}. */
export interface DemoOutboxOptions {
  /** The clock's now, epoch ms. */
  readonly now: () => number;
  /** SMTP (SVC_SMTP_*), when configured: every mail is also sent there; null = kept only. */
  readonly forward?: Mailer | null;
  /** Told of every mail after it is kept (the demo prints its first link). */
  readonly onMail?: (m: OutboxMail) => void;
  /** How many mails are kept, newest first (default 200; older ones drop). */
  readonly keep?: number;
}

/**
 * The links in a mail's text (`http://` or `https://`, up to the next white space).
 * @param text the text
 * @returns the links, each once, in order
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * equal(linksOf("Open\nhttp://localhost:1/profile/link?code=a\nonce").join(), "http://localhost:1/profile/link?code=a");
 * ```
 */
export function linksOf(text: string): string[] {
  return [...new Set(text.match(/https?:\/\/\S+/g) ?? [])];
}

/** The demo's outbox: keeps every mail; forwards to SMTP when given one. */
export class DemoOutbox implements Mailer {
  readonly #o: DemoOutboxOptions;
  readonly #mails: OutboxMail[] = [];

  /** @param o the clock, SMTP to forward to, the listener, how many mails to keep */
  constructor(o: DemoOutboxOptions) {
    this.#o = o;
  }

  /** The kept mails, newest first. */
  get mails(): readonly OutboxMail[] {
    return this.#mails;
  }

  /**
   * Keep the mail (and send it by SMTP when forwarding).
   * @param m the message
   * @throws Error from the SMTP mailer when forwarding fails (the mail stays in the outbox)
   */
  async send(m: MailMessage): Promise<void> {
    const kept: OutboxMail = { ...m, at: this.#o.now(), links: linksOf(m.text) };
    this.#mails.unshift(kept);
    this.#mails.length = Math.min(this.#mails.length, this.#o.keep ?? 200);
    this.#o.onMail?.(kept);
    await this.#o.forward?.send(m);
  }

  /** Close the SMTP mailer it forwards to, if any. */
  close(): void {
    this.#o.forward?.close();
  }
}
