/**
 * A real SMTP server on loopback for the notice tests (`npm:smtp-server`, in-process, port 0,
 * no STARTTLS, optional AUTH PLAIN/LOGIN). Received messages are decoded enough to assert on:
 * recipients, Subject (RFC 2047 encoded words), custom headers and the text body (base64 or
 * quoted-printable, UTF-8).
 * @module
 */
import { SMTPServer } from "smtp-server";

/** One received message. */
export interface ReceivedMail {
  readonly from: string;
  readonly to: string[];
  readonly subject: string;
  readonly text: string;
  readonly headers: Map<string, string>;
  readonly raw: string;
}

/** A running sink. */
export interface SmtpSink {
  readonly port: number;
  readonly messages: ReceivedMail[];
  /** Make the next `n` deliveries fail with a 451 (temporary) error. */
  failNext(n: number): void;
  close(): Promise<void>;
}

const utf8 = new TextDecoder();

function decodeWords(s: string): string {
  return s.replace(/=\?utf-8\?([bq])\?([^?]*)\?=\s*/gi, (_m, enc: string, data: string) => {
    if (enc.toLowerCase() === "b") return utf8.decode(Uint8Array.fromBase64(data));
    return decodeQp(data.replaceAll("_", " "));
  }).trim();
}

function decodeQp(s: string): string {
  const soft = s.replace(/=\r?\n/g, "");
  const bytes: number[] = [];
  for (let i = 0; i < soft.length; i++) {
    if (soft[i] === "=" && /^[0-9A-F]{2}$/i.test(soft.slice(i + 1, i + 3))) {
      bytes.push(parseInt(soft.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(...new TextEncoder().encode(soft[i]!));
  }
  return utf8.decode(new Uint8Array(bytes));
}

/**
 * Parse a single-part message as nodemailer writes a plain-text mail.
 * @param raw the DATA content
 * @returns headers (lower-case names, unfolded, decoded), subject and text
 */
export function parseMail(raw: string): Omit<ReceivedMail, "from" | "to"> {
  const cut = raw.indexOf("\r\n\r\n");
  const head = raw.slice(0, cut).replace(/\r\n[ \t]+/g, " ");
  const body = raw.slice(cut + 4);
  const headers = new Map<string, string>();
  for (const line of head.split("\r\n")) {
    const i = line.indexOf(":");
    if (i > 0) headers.set(line.slice(0, i).toLowerCase(), decodeWords(line.slice(i + 1).trim()));
  }
  const cte = (headers.get("content-transfer-encoding") ?? "7bit").toLowerCase();
  const text = cte === "base64"
    ? utf8.decode(Uint8Array.fromBase64(body.replace(/\s+/g, "")))
    : cte === "quoted-printable"
    ? decodeQp(body)
    : body;
  return { subject: headers.get("subject") ?? "", text: text.replace(/\r\n/g, "\n"), headers, raw };
}

/**
 * Start an SMTP sink on 127.0.0.1 (random port).
 * @param auth when given, AUTH is required with these credentials
 * @returns the sink
 */
export function startSmtpSink(auth?: { user: string; pass: string }): Promise<SmtpSink> {
  const messages: ReceivedMail[] = [];
  let failures = 0;
  const server = new SMTPServer({
    secure: false,
    disabledCommands: auth ? ["STARTTLS"] : ["STARTTLS", "AUTH"],
    authOptional: !auth,
    allowInsecureAuth: true,
    logger: false,
    onAuth(a, _s, cb) {
      if (auth && a.username === auth.user && a.password === auth.pass) {
        cb(null, { user: a.username });
      } else cb(new Error("Invalid username or password"));
    },
    onData(stream, session, cb) {
      (async () => {
        const chunks: Uint8Array[] = [];
        for await (const c of stream) chunks.push(c as Uint8Array);
        const raw = utf8.decode(new Uint8Array(chunks.flatMap((c) => [...c])));
        if (failures > 0) {
          failures--;
          const e = new Error("Temporary failure") as Error & { responseCode: number };
          e.responseCode = 451;
          return cb(e);
        }
        const mailFrom = session.envelope.mailFrom;
        messages.push({
          from: mailFrom ? mailFrom.address : "",
          to: session.envelope.rcptTo.map((r) => r.address),
          ...parseMail(raw),
        });
        cb(null);
      })().catch((e) => cb(e));
    },
  });
  return new Promise((resolve, reject) => {
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const port = (server.server.address() as { port: number }).port;
      resolve({
        port,
        messages,
        failNext: (n) => {
          failures = n;
        },
        close: () => new Promise<void>((r) => server.close(() => r())),
      });
    });
  });
}
