/**
 * Structured logs: one JSON object per line on stderr, with a request id where there is one.
 * Secrets never reach the sink: values of keys named like authorization, token, secret, pin,
 * password, apiKey, privateKey are replaced by "[redacted]", and `svc_test_…`/`svc_live_…`
 * keys and JWT-shaped strings inside any string are masked.
 * @module
 */

/** A log function. */
export type Logger = (
  level: "debug" | "info" | "warn" | "error",
  msg: string,
  fields?: Record<string, unknown>,
) => void;

const SECRET_KEY = /authorization|token|secret|pin|password|passphrase|api[-_]?key|private/i;
const SECRET_TEXT =
  /svc_(test|live)_[A-Za-z0-9_-]+|eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g;

/**
 * Deep-copy a value with secrets redacted.
 * @param v any JSON-like value
 * @returns the redacted copy
 */
export function redact(v: unknown, depth = 0): unknown {
  if (typeof v === "string") return v.replace(SECRET_TEXT, "[redacted]");
  if (depth > 6 || v === null || typeof v !== "object") return v;
  if (Array.isArray(v)) return v.map((x) => redact(x, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    out[k] = SECRET_KEY.test(k) ? "[redacted]" : redact(x, depth + 1);
  }
  return out;
}

/**
 * A JSON-lines logger.
 * @param sink where lines go (default stderr)
 * @param minLevel lowest level written
 * @returns the logger
 */
export function jsonLogger(
  sink: (line: string) => void = (l) => console.error(l),
  minLevel: "debug" | "info" | "warn" | "error" = "info",
): Logger {
  const order = { debug: 0, info: 1, warn: 2, error: 3 };
  return (level, msg, fields) => {
    if (order[level] < order[minLevel]) return;
    sink(
      JSON.stringify({
        t: new Date().toISOString(),
        level,
        msg: redact(msg),
        ...(redact(fields ?? {}) as object),
      }),
    );
  };
}

/** A logger that drops everything. */
export const silentLogger: Logger = () => {};
